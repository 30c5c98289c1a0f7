// In this process (test/cli/harness.ts): a bulk job asks the server what the key may do
// (GET /api/personal_api_keys/@current/, docs/server-contract.md §3.6; PostHog/posthog
// posthog/api/personal_api_key.py) and refuses before sending anything when it lacks the scope.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type World } from '../harness.js';

let world: World;
let dir: string;
beforeAll(async () => {
  world = await startWorld({ persons: 20 });
  dir = mkdtempSync(join(tmpdir(), 'hogctl-keys-'));
});
afterAll(async () => {
  await world.close();
  rmSync(dir, { recursive: true, force: true });
});

const withKey = (key: string) => ({ env: { HOGCTL_API_KEY: key } });

describe('bulk-delete checks the scope before sending anything', () => {
  it('refuses a read-only key with exit 4 naming person:write, zero bulk requests sent', async () => {
    const key = world.sandbox.addKey(['person:read', 'personal_api_key:read']);
    const ids = join(dir, 'ids.txt');
    writeFileSync(
      ids,
      world.sandbox.store
        .list({}, 0, 5)
        .map((p) => p.uuid)
        .join('\n'),
    );
    const before = world.sandbox.requests.length;
    const res = await world.run(['persons', 'bulk-delete', '--file', ids, '--yes', '--journal', join(dir, 'j1')], withKey(key));
    expect(res.code).toBe(4);
    expect(res.stderr).toMatch(
      /^error: the API key "sandbox key" \(phx_\.\.\.\w+\) lacks the scope person:write this job needs \(it has person:read, personal_api_key:read\); nothing was sent$/m,
    );
    const sent = world.sandbox.requests.slice(before);
    expect(sent.map((r) => r.path)).toEqual(['/api/personal_api_keys/@current/']);
    expect(world.sandbox.store.size).toBe(20);
  });

  it('goes on when the key may not read its scopes, and the server refuses the first chunk itself', async () => {
    const key = world.sandbox.addKey(['person:read']);
    const ids = join(dir, 'ids2.txt');
    writeFileSync(
      ids,
      world.sandbox.store
        .list({}, 0, 5)
        .map((p) => p.uuid)
        .join('\n'),
    );
    const res = await world.run(['persons', 'bulk-delete', '--file', ids, '--yes', '--journal', join(dir, 'j2')], withKey(key));
    expect(res.code).toBe(4);
    expect(res.stderr).toMatch(/API key missing required scope 'person:write'/);
  });
});
