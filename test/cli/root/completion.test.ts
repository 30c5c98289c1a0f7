// `hogctl completion <shell>` in this process (test/cli/harness.ts): the checked-in scripts.
import { describe, expect, it } from 'vitest';
import { runCli } from '../harness.js';

describe('completion', () => {
  it('prints the generated script for each shell, and refuses an unknown shell', async () => {
    const { readFileSync } = await import('node:fs');
    for (const [shell, file] of [
      ['bash', 'hogctl.bash'],
      ['zsh', '_hogctl'],
      ['fish', 'hogctl.fish'],
    ]) {
      const res = await runCli(['completion', shell]);
      expect(res.code).toBe(0);
      expect(res.stdout).toBe(readFileSync(`completions/${file}`, 'utf8'));
    }
    const bad = await runCli(['completion', 'tcsh']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('tcsh');
  });
});
