// The built binary against the sandbox, for the foundation's vertical slice: what only a child
// process shows (a terminal, a reader that goes away). The verbs themselves are tested in this
// process: test/cli/persons/list.test.ts, get.test.ts, test/cli/profile/add.test.ts, root/demo.test.ts;
// so are the steps here that need no terminal (runCli of test/cli/harness.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { BIN, cleanEnv, startWorld, type World } from './harness.js';
import { runCli } from '../cli/harness.js';
import { runInTerminal, stripAnsi } from './terminal.js';

let world: World;

beforeAll(async () => {
  world = await startWorld({ persons: 2500, seed: 7 });
});
afterAll(async () => {
  await world.close();
});

function sh(command: string, env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', command], { env: cleanEnv(env) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('persons list', () => {
  it('prints tab-separated lines without colour when piped, and a table on a terminal', async () => {
    const piped = await runCli(['persons', 'list', '--limit', '3'], { env: { ...world.env, FORCE_COLOR: undefined } });
    expect(piped.code).toBe(0);
    const lines = piped.stdout.trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines.every((l) => l.split('\t').length === 4)).toBe(true);
    expect(piped.stdout).not.toMatch(/\u001b\[/);

    const tty = await sh(`script -qec "${process.execPath} ${BIN} persons list --limit 3" /dev/null`, { ...world.env, TERM: 'xterm' });
    expect(tty.code).toBe(0);
    expect(stripAnsi(tty.stdout)).toMatch(/^uuid +name +distinct_ids/m);
    expect(tty.stdout).not.toContain('┌');
  });

  it('exits 0 quietly when the reader goes away (| head)', async () => {
    const res = await sh(
      `${process.execPath} ${BIN} persons list --all --page-size 100 -o ndjson | head -n 1; echo "status=\${PIPESTATUS[0]}" >&2`,
      world.env,
    );
    expect(res.stdout.trim().split('\n')).toHaveLength(1);
    expect(res.stderr).toContain('status=0');
    expect(res.stderr).not.toMatch(/error|EPIPE/i);
  });
});

describe('on a terminal', () => {
  it('a declined confirmation exits 130 and changes nothing', async () => {
    const env = { HOGCTL_CONFIG_DIR: world.configDir };
    await runCli(['profile', 'add', 'keepme', '--base-url', world.sandbox.url, '--project', '1', '--api-key-stdin'], {
      env,
      stdin: world.sandbox.defaultKey,
    });
    const res = await runInTerminal(['profile', 'remove', 'keepme'], env, [{ when: 'Delete profile "keepme"?', send: 'n\r' }]);
    expect(res.code).toBe(130);
    expect(res.output).toContain('will be deleted');
    expect(res.output).toContain('cancelled; nothing was changed');
    const list = await runCli(['profile', 'list'], { env });
    expect(list.stdout).toContain('keepme');
  });

  it('profile add asks for the key hidden and offers the projects to pick from', async () => {
    const env = { HOGCTL_CONFIG_DIR: world.configDir };
    const key = world.sandbox.defaultKey;
    const res = await runInTerminal(['profile', 'add', 'picked', '--base-url', world.sandbox.url], env, [
      { when: 'Personal API key', send: `${key}\r` },
      { when: 'Project', send: '\u001b[B\r' }, // arrow down to the second project
    ]);
    expect(res.code).toBe(0);
    expect(res.output).not.toContain(key);
    expect(res.output).toContain('saved profile "picked"');
    const show = await runCli(['profile', 'show', 'picked', '-o', 'json'], { env });
    expect(JSON.parse(show.stdout).project_id).toBe('2');
  });
});
