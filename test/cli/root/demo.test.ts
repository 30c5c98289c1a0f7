// `hogctl demo` in this process (test/cli/harness.ts): the README quickstart's tour.
import { describe, expect, it } from 'vitest';
import { runCli } from '../harness.js';

describe('the README quickstart', () => {
  it('hogctl demo runs its tour against a sandbox and exits 0', async () => {
    const res = await runCli(['demo', '--persons', '300']);
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('$ hogctl persons list --limit 5');
    expect(res.stdout).toContain('properties.email');
    expect(res.stdout).not.toContain('(exit code 1)');
  });
});
