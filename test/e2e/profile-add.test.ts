// The built binary on a real terminal: `hogctl profile add` on an existing profile asks first,
// asks every field again with its saved value as the default, and gives a second chance after a
// wrong key. The first profile is saved in this process (test/cli/harness.ts); the checks of the
// key and the project, and the flags off a terminal: test/cli/profile/add.checks.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startWorld, type World } from './harness.js';
import { runCli } from '../cli/harness.js';
import { runInTerminal } from './terminal.js';

let world: World;
let configDir: string;
const env = () => ({ HOGCTL_CONFIG_DIR: configDir });
const WRONG_KEY = 'phx_wrongwrongwrongwrongwrongwrong0000';

beforeAll(async () => {
  world = await startWorld({ persons: 5 });
  configDir = mkdtempSync(join(tmpdir(), 'hogctl-profile-'));
});
afterAll(async () => {
  await world.close();
  rmSync(configDir, { recursive: true, force: true });
});

const show = async (name: string) => JSON.parse((await runCli(['profile', 'show', name, '-o', 'json'], { env: env() })).stdout || 'null');

describe('profile add on an existing profile', () => {
  it('on a terminal, asks first, asks every field again with its saved value as the default, takes a new key hidden, and asks again after a wrong one', async () => {
    const first = await runCli(['profile', 'add', 'prod', '--base-url', world.sandbox.url, '--project', '1', '--api-key-stdin'], {
      env: env(),
      stdin: `${world.sandbox.defaultKey}\n`,
    });
    expect(first.code).toBe(0);
    const other = world.sandbox.addKey(['*']);
    const res = await runInTerminal(['profile', 'add', 'prod'], env(), [
      { when: 'Replace profile "prod"?', send: 'y\r' },
      { when: 'PostHog base URL', send: '\r' },
      { when: `Enter keeps phx_…${world.sandbox.defaultKey.slice(-4)}`, send: `${WRONG_KEY}\r` },
      { when: 'does not accept this API key', send: '' },
      { when: 'Personal API key (input hidden):', send: `${other}\r` },
      // The saved project is the one offered first.
      { when: 'Project:', send: '\r' },
    ]);
    expect(res.code).toBe(0);
    expect(res.output).toContain('will be replaced');
    expect(res.output).toContain(`(${world.sandbox.url})`);
    expect(res.output).not.toContain(WRONG_KEY);
    expect(res.output).not.toContain(other);
    expect(res.output).toContain(`updated profile "prod": ${world.sandbox.url}, project 1, key phx_…${other.slice(-4)}`);
  });

  it('on a terminal, a declined replacement changes nothing and is not an error', async () => {
    const res = await runInTerminal(['profile', 'add', 'prod', '--project', '2'], env(), [
      { when: 'Replace profile "prod"?', send: 'n\r' },
    ]);
    expect(res.code).toBe(130);
    expect(res.output).toContain('cancelled; nothing was changed');
    expect(res.output).not.toContain('error:');
    expect(await show('prod')).toMatchObject({ project_id: '1' });
  });
});
