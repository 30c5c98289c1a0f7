// Settle, then build: a resumed run's settings come from its journal, the kind's own fields are
// handed to the verb (which builds its kind once), and nothing is written into the Context.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Context } from '../../../../src/context.js';
import { deleteKind } from '../../../../src/bulk/kinds/delete/delete-persons.js';
import { DELETE_WINDOWS } from '../../../../src/bulk/kinds/delete/limits.js';
import { decideSettings, withKindDefaults } from '../../../../src/bulk/engine/settings.js';
import type { JobInput } from '../../../../src/bulk/input/input.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hogctl-settings-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const flags = { delete_events: true, delete_recordings: false, keep_person: false };

function context() {
  return new Context(
    { io: { stdout: new PassThrough(), stderr: new PassThrough(), stdin: new PassThrough() }, env: {}, now: Date.now },
    {},
  );
}

describe('decideSettings', () => {
  it("takes a resumed run's settings from its journal, and hands the kind's fields to the verb without touching the Context", async () => {
    const journal = join(dir, 'j.ndjson');
    const header = {
      type: 'header',
      journal_format: 2,
      hogctl: '0.1.0',
      created_at: '2026-01-01T00:00:00.000Z',
      profile: null,
      host: 'https://eu.posthog.com',
      project: '42',
      id_kind: 'distinct_ids',
      flags,
      command: 'persons bulk-delete',
      input: {
        file: 'ids.txt',
        format: 'csv',
        column: 'distinct_id',
        ids: 3,
        id_list_sha256: 'a'.repeat(64),
        given: { kind: 'ids', flag: '--file' },
      },
      settings: {
        receipt: '/r.json',
        output: 'csv',
        rate: [{ limit: 100, window_ms: 60_000 }],
        concurrency: 9,
        retries: 2,
        max_wait_ms: 1000,
        skip_invalid: true,
      },
    };
    writeFileSync(journal, `${JSON.stringify(header)}\n`);
    const ctx = context();
    // --file alone: the journal's kind of ids says what the file holds.
    const s = await decideSettings(ctx, {
      input: { kind: 'ids', flag: '--file', file: 'ids.txt', ids: 'person_ids' },
      journal,
      resume: true,
    });
    expect(ctx.globals.output).toBeUndefined();
    expect(s).toMatchObject({
      output: 'csv',
      recorded: { flags },
      input: { kind: 'ids', flag: '--file', file: 'ids.txt', ids: 'distinct_ids', format: 'csv', column: 'distinct_id' },
      concurrency: 9,
      retries: 2,
      maxWaitMs: 1000,
      skipInvalid: true,
      receipt: '/r.json',
    });
    expect(withKindDefaults(s, deleteKind(flags))).toMatchObject({ rate: [{ limit: 100, windowMs: 60_000 }], perMinute: 100 });
    // A new run's rate is the kind's when --rate does not give one.
    const fresh = await decideSettings(ctx, {
      input: { kind: 'ids', flag: '--file', file: 'ids.txt', ids: 'person_ids' },
      journal: join(dir, 'new.ndjson'),
    });
    expect(fresh.rate).toBeUndefined();
    expect(withKindDefaults(fresh, deleteKind(flags)).rate).toEqual(DELETE_WINDOWS);
  });

  it('resumes a run of a file with --file alone, and refuses another input flag than the one the journal records', async () => {
    const journal = join(dir, 'j.ndjson');
    const header = {
      type: 'header',
      journal_format: 2,
      hogctl: '0.1.0',
      created_at: '2026-01-01T00:00:00.000Z',
      profile: null,
      host: 'https://eu.posthog.com',
      project: '42',
      id_kind: 'emails',
      input: {
        file: 'x.txt',
        format: 'lines',
        column: null,
        ids: 3,
        id_list_sha256: 'a'.repeat(64),
        given: { kind: 'emails', flag: '--emails' },
      },
    };
    writeFileSync(journal, `${JSON.stringify(header)}\n`);
    const given = { input: { kind: 'ids', flag: '--file', file: 'x.txt', ids: 'person_ids' } as const, journal, resume: true };
    const resumed = await decideSettings(context(), given);
    expect(resumed.input).toEqual({ kind: 'emails', flag: '--emails', file: 'x.txt', format: 'lines' });
    const addresses: JobInput = { kind: 'addresses', flag: '--email', addresses: ['a@x.io'] };
    await expect(decideSettings(context(), { ...given, input: addresses })).rejects.toThrow(
      `journal ${journal} was written for --emails, not --email`,
    );
  });
});
