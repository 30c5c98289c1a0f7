import { describe, expect, it } from 'vitest';
import { eventStamp, eventUuid } from '../../../../../src/bulk/kinds/update/update-persons.js';
import type { JournalHeader } from '../../../../../src/bulk/engine/journal-format.js';

const PERSON = '0190a1b2-0000-7000-8000-000000000001';

function header(extra: Partial<JournalHeader> = {}): JournalHeader {
  return {
    type: 'header',
    journal_format: 2,
    hogctl: '0.1.0',
    created_at: '2026-11-24T10:00:00.000Z',
    profile: null,
    host: 'https://us.posthog.com',
    project: '1',
    id_kind: 'person_ids',
    command: 'persons bulk-update',
    flags: { delete_events: false, delete_recordings: false, keep_person: false },
    input: {
      file: 'ids.txt',
      format: 'lines',
      column: null,
      ids: 1,
      id_list_sha256: 'ab'.repeat(32),
      given: { kind: 'ids', flag: '--file' },
    },
    settings: {
      receipt: null,
      output: null,
      rate: [],
      concurrency: 1,
      retries: 0,
      max_wait_ms: 0,
      skip_invalid: false,
      backup: null,
      projects_flag: null,
      read_rate: 240,
      reference: null,
    },
    ...extra,
  };
}

describe('eventUuid', () => {
  it('is a version 4 UUID, the same for the same run and person, another for another run, project or person', () => {
    const uuid = eventUuid('n1', '1', PERSON);
    expect(uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(eventUuid('n1', '1', PERSON)).toBe(uuid);
    expect(eventUuid('n2', '1', PERSON)).not.toBe(uuid);
    expect(eventUuid('n1', '2', PERSON)).not.toBe(uuid);
    expect(eventUuid('n1', '1', PERSON.replace(/1$/, '2'))).not.toBe(uuid);
  });
});

describe('eventStamp', () => {
  it("is the journal's nonce and time", () => {
    const stamp = { nonce: 'f'.repeat(32), timestamp: '2026-11-24T10:00:01.000Z' };
    expect(eventStamp(header({ capture_events: stamp }))).toEqual(stamp);
  });
});
