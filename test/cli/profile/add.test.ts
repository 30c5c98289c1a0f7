// Profiles in this process (test/cli/harness.ts): `hogctl profile add` stores the key privately,
// and flags, the environment and the profile resolve in that order.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, startWorld, type World } from '../harness.js';

let world: World;

beforeAll(async () => {
  world = await startWorld({ persons: 2500, seed: 7 });
});
afterAll(async () => {
  await world.close();
});

describe('profiles', () => {
  it('stores the key privately, never echoes it, and resolves flags > env > profile', async () => {
    const key = world.sandbox.defaultKey;
    const env = { HOGCTL_CONFIG_DIR: world.configDir };
    const add = await runCli(['profile', 'add', 'local', '--base-url', world.sandbox.url, '--project', '1', '--api-key-stdin', '--debug'], {
      env,
      stdin: `${key}\n`,
    });
    expect(add.code).toBe(0);
    expect(add.stderr).toContain('saved profile "local"');
    for (const text of [add.stdout, add.stderr]) expect(text).not.toContain(key);
    for (const file of readdirSync(world.configDir)) {
      expect(statSync(join(world.configDir, file)).mode & 0o777).toBe(0o600);
    }
    expect(statSync(world.configDir).mode & 0o777).toBe(0o700);
    expect(readFileSync(join(world.configDir, 'config.json'), 'utf8')).not.toContain(key);

    const list = await runCli(['profile', 'list'], { env });
    expect(list.stdout).toContain(`phx_…${key.slice(-4)}`);
    expect(list.stdout).not.toContain(key);

    // The profile alone is enough to list persons, and the debug log never shows the key.
    const viaProfile = await runCli(['persons', 'list', '--limit', '1', '--debug'], { env });
    expect(viaProfile.code).toBe(0);
    expect(viaProfile.stderr).toContain('GET');
    expect(viaProfile.stderr).toContain('/persons/');
    expect(viaProfile.stderr + viaProfile.stdout).not.toContain(key);

    // The environment beats the profile, and a flag beats the environment.
    const envWins = await runCli(['persons', 'list', '--limit', '1'], { env: { ...env, HOGCTL_PROJECT_ID: '424242' } });
    expect(envWins.code).toBe(3);
    expect(envWins.stderr).toContain('/api/projects/424242/');
    const flagWins = await runCli(['persons', 'list', '--limit', '1', '--project', '1'], { env: { ...env, HOGCTL_PROJECT_ID: '424242' } });
    expect(flagWins.code).toBe(0);

    const rm = await runCli(['profile', 'remove', 'local'], { env });
    expect(rm.code).toBe(2);
    expect(rm.stderr).toContain('--yes');
    const rmYes = await runCli(['profile', 'remove', 'local', '--yes'], { env });
    expect(rmYes.code).toBe(0);
  });
});
