// The built binary's help: the root help answered from files without the bundle, and the helps
// as they fit a terminal. `hogctl help` and its topics are tested in this process:
// test/cli/root/help.test.ts.
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { BIN, cleanEnv, runCli } from './harness.js';
import { runInTerminal, stripAnsi } from './terminal.js';

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

describe('short help first, the long explanations as topics (80 columns)', () => {
  const SCREEN = { columns: 80, rows: 24 };
  const lines = (output: string) => output.replace(/\r/g, '').split('\n');

  for (const [verb, topics] of [
    ['bulk-delete', ['bulk-input', 'bulk-plans', 'erasure', 'bulk-runs']],
    ['bulk-update', ['bulk-input', 'capture', 'bulk-runs']],
    ['erasure-status', ['erasure']],
  ] as const) {
    it(`persons ${verb} --help: usage, one paragraph, then its options on the first screen, naming its topics`, async () => {
      const res = await runInTerminal(['persons', verb, '--help'], {}, [], 30_000, SCREEN);
      expect(res.code).toBe(0);
      const shown = lines(res.output);
      expect(shown[0]).toBe(`Usage: hogctl persons ${verb} [options]`);
      const options = shown.indexOf('Options:');
      expect(options, res.output).toBeGreaterThan(0);
      expect(options, res.output).toBeLessThan(24);
      // Examples are command lines to copy: they stay whole.
      for (const line of shown.filter((l) => !l.startsWith('  $ '))) expect(line.length, line).toBeLessThanOrEqual(80);
      const head = shown.slice(0, options).join(' ');
      for (const topic of topics) expect(head).toContain(`hogctl help ${topic}`);
      expect(shown.some((l) => l.startsWith('Examples:'))).toBe(true);
    });
  }

  it('hogctl help erasure: the prose page, wrapped at spaces to 80 columns', async () => {
    const res = await runInTerminal(['help', 'erasure'], {}, [], 30_000, SCREEN);
    expect(res.code).toBe(0);
    const shown = lines(res.output);
    expect(shown[0]).toMatch(/^Erasure/);
    for (const line of shown) expect(line.length, line).toBeLessThanOrEqual(80);
    expect(res.output).toContain('--check-email');
    expect(res.output).toContain('HMAC-SHA256');
  });
});
