// `profile remove` deletes the profile, its stored key and its signed-in session: live cookies left
// on disk would be a credential nobody knows of, which a new profile of the same name would inherit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { startSessionWorld, type SessionWorld } from '../session-fixtures.js';

let s: SessionWorld;
beforeAll(async () => {
  s = await startSessionWorld();
});
afterAll(() => s.close());

describe('profile remove', () => {
  it('leaves no live session of the removed profile behind', async () => {
    const sb = s.world.sandbox;
    const noEnv = { HOGCTL_BASE_URL: '', HOGCTL_PROJECT_ID: '', HOGCTL_API_KEY: '' };
    const add = await s.run(['profile', 'add', 'prod', '--base-url', sb.url, '--project', '1', '--api-key-stdin'], {
      env: noEnv,
      stdin: `${sb.defaultKey}\n`,
    });
    expect(add.code, add.stderr).toBe(0);
    const login = await s.run(['--profile', 'prod', 'auth', 'login', '--email', sb.login.email, '--password-stdin'], {
      env: noEnv,
      stdin: sb.login.password,
    });
    expect(login.code, login.stderr).toBe(0);
    const jar = join(s.world.configDir, 'sessions', 'prod.json');
    expect(existsSync(jar)).toBe(true);
    const rm = await s.run(['profile', 'remove', 'prod', '--yes'], { env: noEnv });
    expect(rm.code, rm.stderr).toBe(0);
    expect(existsSync(jar), 'session cookies of the removed profile are still on disk').toBe(false);
  });
});
