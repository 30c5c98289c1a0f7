// End-to-end: what the key may do, asked of the server (GET /api/personal_api_keys/@current/,
// docs/server-contract.md §3.6; PostHog/posthog posthog/api/personal_api_key.py). auth status and profile
// show print it, and a bulk job refuses before sending anything when the key lacks the scope.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type World } from './harness.js';

let world: World;
let dir: string;
beforeAll(async () => {
  world = await startWorld({ persons: 20 });
  dir = mkdtempSync(join(tmpdir(), 'hogctl-e2e-keys-'));
});
afterAll(async () => {
  await world.close();
  rmSync(dir, { recursive: true, force: true });
});

const withKey = (key: string) => ({ env: { HOGCTL_API_KEY: key } });

describe('auth status and profile show', () => {
  it('print the label and scopes of the key in effect', async () => {
    const status = await world.run(['auth', 'status', '-o', 'json']);
    expect(JSON.parse(status.stdout)).toMatchObject({
      api_key_label: 'sandbox key',
      api_key_scopes: ['*'],
      api_key_scoped_projects: [],
      api_key_scoped_organizations: [],
    });
    const key = world.sandbox.addKey(['person:read', 'personal_api_key:read']);
    const show = await world.run(['profile', 'show', '-o', 'json'], withKey(key));
    expect(show.code).toBe(0);
    expect(JSON.parse(show.stdout)).toMatchObject({ api_key_scopes: ['person:read', 'personal_api_key:read'] });
  });

  it('say so when the key may not read its own scopes, as PostHog refuses it without personal_api_key:read', async () => {
    const key = world.sandbox.addKey(['person:read']);
    const show = await world.run(['profile', 'show', '-o', 'json'], withKey(key));
    expect(show.code).toBe(0);
    expect(JSON.parse(show.stdout)).toMatchObject({ api_key_scopes: null });
    expect(show.stderr).toContain('note: the key may not read its own scopes (it lacks personal_api_key:read)');
  });
});

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
