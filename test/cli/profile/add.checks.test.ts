// `hogctl profile add` in this process (test/cli/harness.ts): the key and the project are checked
// against the sandbox before saving, a server out of reach saves nothing, the missing flags are
// named off a terminal, and a profile is replaced only with --yes. The questions asked on a real
// terminal: test/e2e/profile-add.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, startWorld, type World } from '../harness.js';

let world: World;
let configDir: string;
const env = () => ({ HOGCTL_CONFIG_DIR: configDir });
const WRONG_KEY = 'phx_wrongwrongwrongwrongwrongwrong0000';

beforeAll(async () => {
  world = await startWorld({ persons: 5 });
});
afterAll(async () => {
  await world.close();
  rmSync(configDir, { recursive: true, force: true });
});

function freshConfig() {
  if (configDir) rmSync(configDir, { recursive: true, force: true });
  configDir = mkdtempSync(join(tmpdir(), 'hogctl-profile-'));
}

const add = (args: string[], key?: string) =>
  runCli(['profile', 'add', ...args], { env: env(), stdin: key === undefined ? '' : `${key}\n` });
const show = async (name: string) => JSON.parse((await runCli(['profile', 'show', name, '-o', 'json'], { env: env() })).stdout || 'null');

describe('profile add checks the key and the project', () => {
  it('refuses a key the server does not accept (exit 4) and saves nothing', async () => {
    freshConfig();
    const res = await add(['bad', '--base-url', world.sandbox.url, '--project', '1', '--api-key-stdin'], WRONG_KEY);
    expect(res.code).toBe(4);
    expect(res.stderr).toContain(`error: ${world.sandbox.url} does not accept this API key (401)`);
    expect(res.stderr).toContain('--no-verify');
    expect(res.stderr).not.toContain(WRONG_KEY);
    expect((await runCli(['profile', 'list', '-o', 'json'], { env: env() })).stdout.trim()).toBe('[]');
  });

  it('refuses a project the key cannot see (exit 3)', async () => {
    freshConfig();
    const res = await add(['bad', '--base-url', world.sandbox.url, '--project', '999999', '--api-key-stdin'], world.sandbox.defaultKey);
    expect(res.code).toBe(3);
    expect(res.stderr).toContain('project 999999 was not found');
    expect(await show('bad')).toBeNull();
  });

  it('saves a good key and project, and --no-verify saves without asking the server', async () => {
    freshConfig();
    const before = world.sandbox.requests.length;
    const ok = await add(['good', '--base-url', world.sandbox.url, '--project', '1', '--api-key-stdin'], world.sandbox.defaultKey);
    expect(ok.code).toBe(0);
    expect(world.sandbox.requests.slice(before).some((r) => r.path === '/api/projects/1/')).toBe(true);
    const offline = world.sandbox.requests.length;
    const unchecked = await add(
      ['offline', '--base-url', world.sandbox.url, '--project', '424242', '--api-key-stdin', '--no-verify'],
      WRONG_KEY,
    );
    expect(unchecked.code).toBe(0);
    expect(world.sandbox.requests.length).toBe(offline);
    expect(await show('offline')).toMatchObject({ project_id: '424242' });
  });

  it('saves nothing when the server cannot be reached, and says how to save it unchecked (exit 7)', async () => {
    freshConfig();
    // A port that was free a moment ago: nothing listens there.
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port: p } = server.address() as { port: number };
        server.close(() => resolve(p));
      });
    });
    const res = await add(['far', '--base-url', `http://127.0.0.1:${port}`, '--project', '1', '--api-key-stdin'], world.sandbox.defaultKey);
    expect(res.code).toBe(7);
    expect(res.stderr).toContain(`could not reach http://127.0.0.1:${port} to check the key and project`);
    expect(res.stderr).toContain('nothing was saved');
    expect(res.stderr).toContain('--no-verify');
    expect(await show('far')).toBeNull();
  });

  it('off a terminal, names every missing flag at once and saves no profile without a key', async () => {
    freshConfig();
    const none = await add(['ci2']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('profile add ci2: missing --base-url <url>, --project <id>, --api-key-stdin');
    const keyless = await add(['ci2', '--base-url', world.sandbox.url, '--project', '1']);
    expect(keyless.code).toBe(2);
    expect(keyless.stderr).toContain('missing --api-key-stdin');
    // A key in the environment is the environment's, not the profile's.
    const fromEnv = await runCli(['profile', 'add', 'ci2', '--base-url', world.sandbox.url, '--project', '1'], {
      env: { ...env(), HOGCTL_API_KEY: world.sandbox.defaultKey },
    });
    expect(fromEnv.code).toBe(2);
    expect(await show('ci2')).toBeNull();
  });
});

describe('profile add on an existing profile', () => {
  it('off a terminal, refuses to replace it without --yes (exit 2)', async () => {
    freshConfig();
    expect((await add(['prod', '--base-url', world.sandbox.url, '--project', '1', '--no-verify', '--api-key-stdin'], WRONG_KEY)).code).toBe(
      0,
    );
    const res = await add(['prod', '--base-url', world.sandbox.url, '--project', '2', '--no-verify']);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('profile "prod" exists');
    expect(res.stderr).toContain('--yes');
    expect(await show('prod')).toMatchObject({ project_id: '1' });
    const yes = await add(['prod', '--base-url', world.sandbox.url, '--project', '2', '--no-verify', '--yes']);
    expect(yes.code).toBe(0);
    expect(await show('prod')).toMatchObject({ project_id: '2' });
  });
});
