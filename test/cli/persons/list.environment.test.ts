// In this process (test/cli/harness.ts): an error caused by an environment variable names the
// variable. None of these reach a server.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../harness.js';

const configDir = mkdtempSync(join(tmpdir(), 'hogctl-habits-'));
afterAll(() => rmSync(configDir, { recursive: true, force: true }));
// Nothing listens on port 9 (discard); no test here may get as far as a request.
const env = { HOGCTL_CONFIG_DIR: configDir, HOGCTL_BASE_URL: 'http://127.0.0.1:9', HOGCTL_PROJECT_ID: '1' };

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
