// Help topics and typo suggestions, through the built binary.
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { BIN, cleanEnv, runCli } from './harness.js';
import { stripAnsi } from './terminal.js';
import { commandWords } from '../../src/program.js';

describe('help topics', () => {
  it('hogctl help exit-codes lists every code', async () => {
    const res = await runCli(['help', 'exit-codes']);
    expect(res.code).toBe(0);
    for (const code of ['0', '1', '2', '3', '4', '5', '6', '7', '8', '130']) expect(res.stdout).toMatch(new RegExp(`^  ${code} +\\S`, 'm'));
  });

  it('hogctl help environment lists the variables', async () => {
    const res = await runCli(['help', 'environment']);
    expect(res.code).toBe(0);
    for (const name of [
      'HOGCTL_PROFILE',
      'HOGCTL_BASE_URL',
      'HOGCTL_PROJECT_ID',
      'HOGCTL_API_KEY',
      'HOGCTL_CONFIG_DIR',
      'NO_COLOR',
      'HTTPS_PROXY',
    ]) {
      expect(res.stdout).toContain(name);
    }
  });

  it('hogctl help <command> shows that command', async () => {
    const res = await runCli(['help', 'persons', 'list']);
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('Usage: hogctl persons list');
  });

  it('a typo suggests the nearest command and exits 2', async () => {
    const group = await runCli(['persns', 'list']);
    expect(group.code).toBe(2);
    expect(group.stderr).toContain('Did you mean persons?');
    const verb = await runCli(['persons', 'lst']);
    expect(verb.code).toBe(2);
    expect(verb.stderr).toContain('list');
    const topic = await runCli(['help', 'exit-code']);
    expect(topic.code).toBe(2);
    expect(topic.stderr).toContain('hogctl help exit-codes');
  });
});

describe('root help', () => {
  const widest = (text: string) => Math.max(...text.split('\n').map((line) => line.length));
  /** `hogctl <args>` on a pseudo-terminal `columns` wide. */
  const onTerminal = (columns: number, args: string[]) => {
    const command = `stty cols ${columns}; '${process.execPath}' '${BIN}' ${args.join(' ')}`;
    const res = spawnSync('script', ['-qec', command, '/dev/null'], { env: cleanEnv({ TERM: 'xterm' }), encoding: 'utf8' });
    return stripAnsi(res.stdout).replace(/\r\n/g, '\n');
  };

  it('answered without the bundle, is the bundle’s own rendering', async () => {
    const fast = await runCli(['--help']);
    const live = await runCli(['--quiet', '--help']);
    expect(fast.code).toBe(0);
    expect(fast.stdout).toContain('Usage: hogctl [options] [command]');
    expect(fast.stdout).toBe(live.stdout);
    expect(widest(fast.stdout)).toBeLessThanOrEqual(80);
  });

  it('is 80 columns on a wide terminal, and wraps to fit a narrow one', async () => {
    const { stdout: piped } = await runCli(['--help']);
    expect(onTerminal(120, ['--help'])).toBe(piped);
    expect(onTerminal(120, ['--quiet', '--help'])).toBe(piped);
    // (commander stops wrapping when fewer than 40 columns are left for descriptions)
    const narrow = onTerminal(76, ['--help']);
    expect(narrow).toContain('Usage: hogctl [options] [command]');
    expect(narrow).not.toBe(piped);
    expect(widest(narrow)).toBeLessThanOrEqual(76);
  });
});

describe('commandWords', () => {
  it('skips global flags and their values', () => {
    expect(commandWords(['--profile', 'persons', 'users', 'me'])).toEqual(['users', 'me']);
    expect(commandWords(['-o', 'json', '--debug', 'persons', 'get', '42'])).toEqual(['persons', 'get', '42']);
    expect(commandWords(['persons', '--project', '7', 'get', '--distinct-id', 'x'])).toEqual(['persons', 'get', 'x']);
    expect(commandWords(['--quiet'])).toEqual([]);
    expect(commandWords(['--', 'email'])).toEqual(['email']);
  });
});

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
