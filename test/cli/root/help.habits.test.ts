// In this process (test/cli/harness.ts): command lines typed from other tools' habits get the
// hogctl way as a hint. None of these reach a server.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ProfileStore } from '../../../src/config/profiles.js';
import { runCli } from '../harness.js';

const configDir = mkdtempSync(join(tmpdir(), 'hogctl-habits-'));
afterAll(() => rmSync(configDir, { recursive: true, force: true }));
// Nothing listens on port 9 (discard); no test here may get as far as a request.
const env = { HOGCTL_CONFIG_DIR: configDir, HOGCTL_BASE_URL: 'http://127.0.0.1:9', HOGCTL_PROJECT_ID: '1' };

describe('habits from other tools', () => {
  it.each([
    [['version'], 'unknown command "version"', 'did you mean `hogctl --version`?'],
    [['login'], 'unknown command "login"', 'did you mean `hogctl auth login`?'],
    [['persons', 'list', '--json'], 'unknown option "--json"', 'use `-o json`'],
    [['api', '/api/users/@me/'], 'is not an HTTP method', 'did you mean `hogctl api GET /api/users/@me/`?'],
    [
      ['persons', 'bulk-delete', 'file.txt', '--yes'],
      'bulk-delete reads the ids from --file',
      'did you mean `hogctl persons bulk-delete --file file.txt`?',
    ],
  ])('hogctl %j', async (args, message, hint) => {
    const r = await runCli(args, { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    expect(r.stderr).toContain(hint);
  });

  it('profile use prd: did you mean prod?', async () => {
    await new ProfileStore(configDir).save('prod', { base_url: 'http://127.0.0.1:9', project_id: '1' });
    const r = await runCli(['profile', 'use', 'prd'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no profile named "prd": did you mean "prod"?');
  });

  it('a command that exists is not taken for a habit', async () => {
    const r = await runCli(['api', 'GET', '/api/users/@me/', '--json'], { env });
    expect(r.stderr).toContain('unknown option "--json"');
    const literal = await runCli(['persons', 'query', '--', '--json'], { env: { ...env, HOGCTL_API_KEY: 'phx_x', HOGCTL_TIMEOUT: '0.5' } });
    expect(literal.stderr).not.toContain('unknown option');
  });
});
