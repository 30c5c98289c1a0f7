// End-to-end: command lines typed from other tools' habits get the hogctl way as a hint, and an
// error caused by an environment variable names the variable. None of these reach a server.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ProfileStore } from '../../src/config/profiles.js';
import { runCli } from './harness.js';

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

describe('errors caused by environment variables name them', () => {
  it.each([
    [{ HOGCTL_OUTPUT: 'yaml' }, 'unknown output format "yaml" (from HOGCTL_OUTPUT)', 2],
    [{ HOGCTL_TIMEOUT: 'soon', HOGCTL_API_KEY: 'phx_x' }, 'invalid timeout "soon" (from HOGCTL_TIMEOUT)', 2],
    [{ HOGCTL_PROJECT_ID: ' ' }, 'the project is empty: give its id or name (from HOGCTL_PROJECT_ID)', 2],
    [{ HOGCTL_BASE_URL: 'ftp://x' }, 'invalid base URL "ftp://x" (from HOGCTL_BASE_URL)', 2],
    [{ HOGCTL_PROFILE: 'nope' }, 'no profile named "nope" (from HOGCTL_PROFILE)', 2],
    [{ HOGCTL_API_KEY: '' }, 'HOGCTL_API_KEY is empty, and no profile is set', 4],
    [{ HOGCTL_API_KEY: '  ' }, 'HOGCTL_API_KEY is empty', 4],
  ])('%j', async (extra, message, code) => {
    const r = await runCli(['persons', 'list'], {
      env: { ...env, HOGCTL_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'hogctl-habits-')), ...extra },
    });
    expect(r.stderr).toContain(message);
    expect(r.code).toBe(code);
  });

  it('the same bad value from a flag does not name a variable', async () => {
    const r = await runCli(['persons', 'list', '-o', 'yaml'], { env: { ...env, HOGCTL_OUTPUT: 'json' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown output format "yaml":');
    expect(r.stderr).not.toContain('HOGCTL_OUTPUT');
  });
});
