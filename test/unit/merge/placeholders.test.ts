// Values that name no one person: PostHog's placeholder words (person-merge-service.ts
// isDistinctIdIllegal), a short list of test and form values, a user's own, and values that are
// not text.
import { describe, expect, it } from 'vitest';
import { comparable, isIllegalDistinctId, jsonType, placeholderReason, typeReason } from '../../../src/merge/placeholders.js';

describe('isIllegalDistinctId', () => {
  it('follows PostHog: trimmed empty, case-insensitive and exact lists, quoted forms; e-mail addresses are fine', () => {
    for (const id of ['', '  ', 'Anonymous', 'GUEST', 'distinct_id', "'null'", '"undefined"', 'NaN', 'None', '0', '[object Object]'])
      expect(isIllegalDistinctId(id), id).toBe(true);
    for (const id of ['NULL', 'nan', '00', 'ana@example.com', 'user-1']) expect(isIllegalDistinctId(id), id).toBe(false);
  });
});

describe('placeholderReason', () => {
  it("names PostHog's words in any letter case, as PostHog's own refusal", () => {
    for (const value of ['null', 'NULL', ' Undefined ', 'none', 'nan', 'true', 'FALSE', '0', 'anonymous', '"null"'])
      expect(placeholderReason(value), value).toBe("a placeholder, not one person's (PostHog refuses to merge on it)");
  });

  it('names the test and form values, and no-reply senders at any domain', () => {
    for (const value of ['n/a', 'N/A', 'na', '-', 'test@test.com', 'Test@Example.com', 'noreply@corp.io', 'no-reply@x.y', 'donotreply@a.b'])
      expect(placeholderReason(value), value).toBe("a placeholder or test value, not one person's");
  });

  it('names the values a user gave, compared trimmed and without ASCII case', () => {
    const ignored = new Set(['Desk@Corp.io '].map(comparable));
    expect(placeholderReason('desk@corp.io', ignored)).toBe('given to --ignore-value');
    expect(placeholderReason('desk@corp.io')).toBeUndefined();
  });

  it('lets a real address, a user id and a near miss of a placeholder through', () => {
    for (const value of ['ana@example.com', 'user-881', 'nullable@x.io', 'noreplyx@corp.io', 'reply@corp.io', '00', 'testing'])
      expect(placeholderReason(value), value).toBeUndefined();
  });
});

describe('jsonType and typeReason', () => {
  it('only text names a person', () => {
    expect([true, 1, 'a', ['a'], { a: 1 }, null, undefined].map(jsonType)).toEqual([
      'boolean',
      'number',
      'string',
      'array',
      'object',
      'null',
      'missing',
    ]);
    expect(typeReason('string')).toBeUndefined();
    expect(typeReason('boolean')).toBe('a boolean, not text that names one person');
    expect(typeReason('array')).toBe('a list, not text that names one person');
  });
});
