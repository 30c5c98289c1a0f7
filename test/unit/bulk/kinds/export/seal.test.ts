// The export's verification: summary.html and manifest.json made from what the journal kept of
// each person (its files' SHA-256, hashed when the person was done), then every file read back
// against the manifest. A file changed or added since is named; the state file goes.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sealBundle, type SealFacts } from '../../../../../src/bulk/kinds/export/seal.js';
import type { PersonSummary } from '../../../../../src/bulk/kinds/export/write-person.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'hogctl-seal-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

/** A bundle of one person with one file, as its attempt left it, and the facts that seal it. */
function written(): SealFacts {
  const dir = 'project-1/person-a';
  mkdirSync(join(root, dir), { recursive: true });
  writeFileSync(join(root, dir, 'person.json'), '{"id":1}\n');
  writeFileSync(join(root, 'export-state.json'), '{}');
  const person: PersonSummary = {
    project: '1',
    uuid: 'a',
    dir,
    distinct_ids: ['d1'],
    found_by: ['lee@example.net'],
    parts: { person: { count: null } },
    events: { count: 0, history_count: 0, queries: 1, first: null, last: null, months: {} },
    files: [{ path: `${dir}/person.json`, bytes: 9, sha256: sha('{"id":1}\n') }],
  };
  return {
    bundle: root,
    zip: null,
    host: 'eu.posthog.com',
    profile: null,
    requestedBy: 'dpo@example.com',
    startedAt: '2026-01-01T00:00:00.000Z',
    finishedAt: '2026-01-01T00:01:00.000Z',
    until: '2026-01-01T00:00:00.000Z',
    from: null,
    identifiers: { emails: ['lee@example.net'], distinct_ids: [], persons: [] },
    projects: [{ id: '1', name: 'Default project' }],
    persons: [person],
    noPerson: [],
  };
}

describe('sealBundle', () => {
  it('writes the manifest from the journaled hashes, reads the bundle back, and removes the state file', async () => {
    const v = await sealBundle(written());
    expect(v).toMatchObject({ status: 'verified', mismatched: [], unlisted: [], files: 3 });
    const manifest = readFileSync(join(root, 'manifest.json'), 'utf8');
    expect(v.manifest_sha256).toBe(sha(manifest));
    expect(JSON.parse(manifest).files.map((f: { path: string }) => f.path)).toEqual(['project-1/person-a/person.json', 'summary.html']);
    expect(existsSync(join(root, 'export-state.json'))).toBe(false);
  });

  it('names a file changed since its person was written, and one the manifest does not name', async () => {
    const facts = written();
    writeFileSync(join(root, 'project-1/person-a/person.json'), '{"id":2}\n');
    writeFileSync(join(root, 'project-1/stray.json'), '{}');
    const v = await sealBundle(facts);
    expect(v).toMatchObject({
      status: 'mismatch',
      mismatched: ['project-1/person-a/person.json'],
      unlisted: ['project-1/stray.json'],
    });
  });
});
