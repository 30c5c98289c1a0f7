// End-to-end: what a person meets on the first run, before any profile exists: one message that
// says what to do first, no stack traces for expected errors even with --debug, and a demo whose
// closing suggestion runs from the shell it was started in.
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './harness.js';
import { runInTerminal } from './terminal.js';

const dir = mkdtempSync(join(tmpdir(), 'hogctl-first-run-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
// An empty config dir: no profile saved. Nothing listens on port 9; no test here may reach it.
const fresh = { HOGCTL_CONFIG_DIR: join(dir, 'config') };

describe('with no profile and no HOGCTL_* variables', () => {
  it.each([[['persons', 'list']], [['persons', 'list', '--project', '1']], [['persons', 'get', '1', '--base-url', 'http://127.0.0.1:9']]])(
    'hogctl %j says to run `hogctl profile add` first (exit 4), naming the variables for CI',
    async (args) => {
      const res = await runCli(args, { env: fresh });
      expect(res.code).toBe(4);
      expect(res.stderr).toContain('hogctl is not set up yet: run `hogctl profile add <name>` first');
      expect(res.stderr).toContain('HOGCTL_BASE_URL, HOGCTL_PROJECT_ID and HOGCTL_API_KEY');
      expect(res.stderr).not.toContain('no project chosen');
      expect(res.stdout).toBe('');
    },
  );

  it('on an 80-column terminal the message wraps at spaces, never mid-word', async () => {
    const res = await runInTerminal(['persons', 'list'], fresh, [], 30_000, { columns: 80, rows: 24 });
    expect(res.code).toBe(4);
    const lines = res.output.replace(/\r/g, '').split('\n').filter(Boolean);
    expect(lines.length).toBeGreaterThan(2);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(80);
    // Every word of the hint is whole on some line.
    for (const word of ['HOGCTL_BASE_URL,', 'HOGCTL_PROJECT_ID', 'HOGCTL_API_KEY', '`hogctl demo`']) expect(res.output).toContain(word);
  });

  it('a key in the environment is a setup: then the missing project is named', async () => {
    const res = await runCli(['persons', 'list'], { env: { ...fresh, HOGCTL_API_KEY: 'phx_test', HOGCTL_BASE_URL: 'http://127.0.0.1:9' } });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('no project chosen');
  });
});

describe('--debug', () => {
  it('prints no JavaScript stack for an expected error', async () => {
    const res = await runCli(['persons', 'get', 'not-an-id', '--debug'], {
      env: { ...fresh, HOGCTL_API_KEY: 'phx_test', HOGCTL_BASE_URL: 'http://127.0.0.1:9', HOGCTL_PROJECT_ID: '1' },
    });
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/^error: /m);
    expect(res.stderr).not.toMatch(/^\s+at /m);
    expect(res.stderr).not.toMatch(/Error: /);
  });
});

describe('the demo ends with a suggestion that runs', () => {
  it('`npx hogctl sandbox` where hogctl is not on the PATH, `hogctl sandbox` where it is', async () => {
    const without = await runCli(['demo', '--persons', '50'], { env: fresh });
    expect(without.code).toBe(0);
    expect(without.stdout).toMatch(/^ {2}npx hogctl sandbox --persons 10000 /m);

    const bin = join(dir, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'hogctl'), '#!/bin/sh\n');
    chmodSync(join(bin, 'hogctl'), 0o755);
    const withIt = await runCli(['demo', '--persons', '50'], { env: { ...fresh, PATH: `${bin}${delimiter}${process.env.PATH}` } });
    expect(withIt.code).toBe(0);
    expect(withIt.stdout).toMatch(/^ {2}hogctl sandbox --persons 10000 /m);
    // Under `npx hogctl`, npm puts a hogctl on this process's PATH alone.
    const underNpx = await runCli(['demo', '--persons', '50'], {
      env: { ...fresh, PATH: `${bin}${delimiter}${process.env.PATH}`, npm_command: 'exec' },
    });
    expect(underNpx.stdout).toMatch(/^ {2}npx hogctl sandbox --persons 10000 /m);
  });
});
