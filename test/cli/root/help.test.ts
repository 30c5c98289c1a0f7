// `hogctl help`: its topics, a command's help and typo suggestions, in this process
// (test/cli/harness.ts). Help answered from files by the built binary, and the helps as they fit a
// terminal, stay spawned: test/e2e/help-topics.test.ts.
import { describe, expect, it } from 'vitest';
import { commandWords } from '../../../src/program.js';
import { runCli } from '../harness.js';

describe('help topics', () => {
  it('hogctl help exit-codes lists every code', async () => {
    const res = await runCli(['help', 'exit-codes']);
    expect(res.code).toBe(0);
    for (const code of ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '130'])
      expect(res.stdout).toMatch(new RegExp(`^  ${code} +\\S`, 'm'));
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

describe('commandWords', () => {
  it('skips global flags and their values', () => {
    expect(commandWords(['--profile', 'persons', 'users', 'me'])).toEqual(['users', 'me']);
    expect(commandWords(['-o', 'json', '--debug', 'persons', 'get', '42'])).toEqual(['persons', 'get', '42']);
    expect(commandWords(['persons', '--project', '7', 'get', '--distinct-id', 'x'])).toEqual(['persons', 'get', 'x']);
    expect(commandWords(['--quiet'])).toEqual([]);
    expect(commandWords(['--', 'email'])).toEqual(['email']);
  });
});

describe('short help first, the long explanations as topics (80 columns)', () => {
  it('hogctl help lists the topics it has', async () => {
    const res = await runCli(['help', 'help']);
    for (const topic of ['exit-codes', 'environment', 'bulk-input', 'bulk-plans', 'erasure', 'bulk-runs', 'capture'])
      expect(res.stdout).toContain(topic);
  });
});
