// In this process (test/cli/harness.ts): what the key may do, asked of the server
// (GET /api/personal_api_keys/@current/, docs/server-contract.md §3.6; PostHog/posthog
// posthog/api/personal_api_key.py). auth status and profile show print it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type World } from '../harness.js';

let world: World;
beforeAll(async () => {
  world = await startWorld({ persons: 20 });
});
afterAll(async () => {
  await world.close();
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
