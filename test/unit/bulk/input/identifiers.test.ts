// How identifiers are named in the evidence: by the evidence key, or in clear (--keep-identifiers).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { evidenceKey } from '../../../../src/config/evidence-key.js';
import {
  CLEAR,
  emailBatches,
  identifierKey,
  keyedPolicy,
  listBinding,
  namingOf,
  policyOfJournal,
  recordedDistinctId,
} from '../../../../src/bulk/input/identifiers.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hogctl-identifiers-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('identifier names', () => {
  it('are HMAC-SHA256 under the identifier sub-key, not anything the files hold', () => {
    const key = evidenceKey({ HOGCTL_CONFIG_DIR: dir });
    const policy = keyedPolicy(key);
    const expected = createHmac('sha256', key.identifiers).update('lee@example.net').digest('hex');
    expect(identifierKey('lee@example.net', policy)).toBe(expected);
    expect(recordedDistinctId('lee@example.net', policy)).toBe(`hmac:${expected}`);
    expect(recordedDistinctId('user-1971', policy)).toBe('user-1971');
    expect(listBinding('a'.repeat(64), policy)).toBe(
      createHmac('sha256', key.identifiers)
        .update(`id list:${'a'.repeat(64)}`)
        .digest('hex'),
    );
    expect(namingOf(policy)).toEqual({ key_id: key.id });
  });

  it('in clear are the identifiers themselves, and a journal in clear is continued in clear', () => {
    expect(identifierKey('lee@example.net', CLEAR)).toBe('lee@example.net');
    expect(recordedDistinctId('lee@example.net', CLEAR)).toBe('lee@example.net');
    expect(listBinding('a'.repeat(64), CLEAR)).toBe('a'.repeat(64));
    expect(namingOf(CLEAR)).toEqual({});
    expect(policyOfJournal(namingOf(CLEAR), {}, 'j.ndjson')).toEqual(CLEAR);
  });

  it('of a journal under a key need that key', () => {
    const key = evidenceKey({ HOGCTL_CONFIG_DIR: dir });
    expect(() => policyOfJournal({ key_id: key.id }, { HOGCTL_CONFIG_DIR: join(dir, 'other') }, 'j.ndjson')).toThrow(
      `the journal j.ndjson names its identifiers with evidence key ${key.id}, and there is no evidence key here`,
    );
    expect(identifierKey('x', policyOfJournal({ key_id: key.id }, { HOGCTL_CONFIG_DIR: dir }, 'j.ndjson'))).toBe(
      identifierKey('x', keyedPolicy(key)),
    );
  });
});

describe('e-mail batches', () => {
  it('hold 1,000 addresses of usual length, so 10,000 take 10 batches and 20 queries', () => {
    const emails = Array.from({ length: 10_000 }, (_, i) => `user${i}@example.com`);
    const batches = emailBatches(emails);
    expect(batches.map((b) => b.length)).toEqual(Array(10).fill(1000));
    expect(batches.flat()).toEqual(emails);
  });

  it('hold fewer long addresses, so that a query stays well under ClickHouse max_query_size', () => {
    const emails = Array.from({ length: 1000 }, (_, i) => `${'x'.repeat(240)}${i}@example.com`);
    const batches = emailBatches(emails);
    expect(batches.length).toBeGreaterThan(2);
    for (const batch of batches) expect(batch.join('').length).toBeLessThanOrEqual(100_000);
    expect(batches.flat()).toEqual(emails);
  });
});
