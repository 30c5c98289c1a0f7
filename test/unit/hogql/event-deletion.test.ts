// The queries of an event deletion request: distinct ids as escaped literals, exact or (an
// erasure's addresses) in any case of their ASCII letters.
import { describe, expect, it } from 'vitest';
import { deletionQueries, subjectQueries } from '../../../src/hogql/event-deletion.js';

describe('deletionQueries', () => {
  it('matches distinct ids exactly', () => {
    expect(deletionQueries({ distinctIds: ['anon-Lee', "o'neil"] })).toEqual([
      "SELECT uuid FROM events WHERE distinct_id IN ('anon-Lee', 'o\\'neil')",
    ]);
  });

  it('matches addresses in any case of their ASCII letters, each once', () => {
    expect(
      deletionQueries({
        distinctIds: ['Kim.Lee@Example.com', 'kim.lee@example.com', 'Émile@example.com'],
        anyCase: true,
        until: '2026-11-22T10:00:00Z',
      }),
    ).toEqual([
      "SELECT uuid FROM events WHERE lower(distinct_id) IN ('kim.lee@example.com', 'Émile@example.com') AND timestamp <= toDateTime('2026-11-22T10:00:00Z')",
    ]);
  });
});

describe('subjectQueries', () => {
  it("a subject's addresses in any case of their ASCII letters, its other distinct ids exactly, within the bounds", () => {
    expect(subjectQueries(['anon-Lee', 'Lee@Example.com'], { until: '2026-11-22T10:00:00Z', after: '2026-01-01T00:00:00Z' })).toEqual([
      "SELECT uuid FROM events WHERE distinct_id IN ('anon-Lee') AND timestamp >= toDateTime('2026-01-01T00:00:00Z') AND timestamp <= toDateTime('2026-11-22T10:00:00Z')",
      "SELECT uuid FROM events WHERE lower(distinct_id) IN ('lee@example.com') AND timestamp >= toDateTime('2026-01-01T00:00:00Z') AND timestamp <= toDateTime('2026-11-22T10:00:00Z')",
    ]);
  });

  it('an id too long for a query of its own: null', () => {
    expect(subjectQueries(['x'.repeat(100_001)], {})).toBeNull();
  });
});
