// The habits of a person at an 80×24 terminal, each seen on a real pseudo-terminal against the
// sandbox: a person named by address on every verb that takes one, a --jq that saw one page,
// what --search matched, the field meant, help for a verb named alone with its options on the
// first screen, and lines that wrap at spaces with their continuations indented.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, spawnCli, startWorld, type World } from './harness.js';
import { runInTerminal } from './terminal.js';

let world: World;
let dir: string;
const SCREEN = { columns: 80, rows: 24 };
/** Lines as the terminal shows them: `script` turns \n into \r\n. */
const lines = (output: string) => output.replace(/\r/g, '').replace(/\n$/, '').split('\n');
const fits = (output: string) => lines(output).filter((l) => l.length > 80);

beforeAll(async () => {
  world = await startWorld({ persons: 400 });
  dir = mkdtempSync(join(tmpdir(), 'hogctl-habits-'));
  world.sandbox.store.addPerson({
    uuid: '01900000-aaaa-7bbb-8ccc-0000000000d1',
    createdAtUs: Date.UTC(2024, 4, 1) * 1000,
    distinctIds: ['ken', '01900000-aaaa-7bbb-8ccc-0000000000d2', '01900000-aaaa-7bbb-8ccc-0000000000d3'],
    properties: { email: 'Lee.Mixed@Example.NET', name: 'Lee Mixed' },
  });
}, 60_000);
afterAll(async () => {
  await world.close();
  rmSync(dir, { recursive: true, force: true });
});

const term = (args: string[], env: Record<string, string | undefined> = world.env) => runInTerminal(args, env, [], 30_000, SCREEN);

describe('one person by e-mail address, one rule for the case of addresses', () => {
  it('set-prop --email finds the person whatever the case of the address, and names them by it', async () => {
    const res = await term(['persons', 'set-prop', '--email', 'LEE.MIXED@example.net', 'plan', 'pro']);
    expect(res.code, res.output).toBe(0);
    expect(res.output.replace(/\r?\n  /g, ' ')).toContain(
      'on person 01900000-aaaa-7bbb-8ccc-0000000000d1 (e-mail LEE.MIXED@example.net) accepted',
    );
  });

  it('persons list --email ignores the case of ASCII letters, as persons get --email does', async () => {
    const res = await term(['persons', 'list', '--email', 'lee.mixed@EXAMPLE.net', '--fields', 'uuid']);
    expect(res.code, res.output).toBe(0);
    expect(lines(res.output)).toContain('01900000-aaaa-7bbb-8ccc-0000000000d1');
  });
});

describe('a filter that saw one page says so', () => {
  it('--jq length under the default --limit warns that more match', async () => {
    const res = await term(['persons', 'list', '--where', 'has:email', '--jq', 'length']);
    expect(res.code).toBe(0);
    expect(lines(res.output)[0]).toBe('100');
    expect(res.output.replace(/\r?\n  /g, ' ')).toContain(
      'warning: --jq saw the first 100 persons only (the default --limit), and more match: add --all for --jq to see every one',
    );
    expect(fits(res.output)).toEqual([]);
  });
});

describe('--search, --fields and completion say what they do', () => {
  it('a row found by a whole distinct id is said to be, since nothing shown contains the text', async () => {
    const res = await term(['persons', 'list', '--search', 'ken', '--fields', 'uuid,name']);
    expect(res.code).toBe(0);
    const shown = lines(res.output).filter((l) => /^[0-9a-f]{8}-/.test(l));
    expect(shown).toEqual(['01900000-aaaa-7bbb-8ccc-0000000000d1  Lee.Mixed@Example.NET']);
    expect(res.output.replace(/\r?\n  /g, ' ')).toContain('1 of these matched --search "ken" as a whole distinct id or UUID');
  });

  it('--fields email names properties.email', async () => {
    const res = await term(['persons', 'list', '--limit', '1', '--fields', 'email']);
    expect(res.code).toBe(2);
    expect(res.output).toContain('did you mean --fields properties.email?');
  });

  it('bash completion offers the rules after --keep, commands and topics after help, and project ids after --project', async () => {
    const bin = join(dir, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'hogctl'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
    chmodSync(join(bin, 'hogctl'), 0o755);
    // Asynchronously: the sandbox answering --project's lookup runs in this process.
    const complete = async (words: string[]) =>
      (
        await promisify(execFile)(
          'bash',
          [
            '-c',
            `source <(hogctl completion bash); COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _hogctl; echo "\${COMPREPLY[*]}"`,
          ],
          { env: cleanEnv({ ...world.env, PATH: `${bin}:${process.env.PATH}` }), encoding: 'utf8' },
        )
      ).stdout.trim();
    expect(await complete(['hogctl', 'persons', 'merge', '--keep', ''])).toBe('identified oldest newest most-events');
    expect((await complete(['hogctl', 'help', 'e'])).split(' ')).toEqual(expect.arrayContaining(['erasure', 'exit-codes', 'events']));
    expect(await complete(['hogctl', 'help', 'pe'])).toBe('persons');
    expect(await complete(['hogctl', 'persons', 'list', '--project', ''])).toBe('1 2');
  });
});

describe('help for a verb named alone, options first', () => {
  for (const verb of ['merge', 'export']) {
    it(`hogctl help ${verb} is persons ${verb}'s help, its options on the first screen`, async () => {
      const res = await term(['help', verb]);
      expect(res.code).toBe(0);
      const shown = lines(res.output);
      expect(shown[0]).toBe(`Usage: hogctl persons ${verb} [options]${verb === 'merge' ? ' [persons...]' : ''}`);
      expect(shown.indexOf('Options:')).toBeGreaterThan(0);
      expect(shown.indexOf('Options:')).toBeLessThan(SCREEN.rows - 4);
      expect(shown.indexOf('Details:')).toBeGreaterThan(shown.indexOf('Options:'));
    });
  }
});

describe('lines wrap at spaces at 80 columns, continuations indented', () => {
  it("the demo's banner and its echoed commands", async () => {
    const res = await term(['demo', '--persons', '1000']);
    expect(res.code).toBe(0);
    const shown = lines(res.output);
    expect(shown[0]).toMatch(/^hogctl demo: a local PostHog sandbox is running at http:\/\/127\.0\.0\.1:\d+ with$/);
    expect(shown[1]).toBe('  1,000 persons.');
    const add = shown.findIndex((l) => l.startsWith('$ hogctl profile add demo'));
    expect(shown[add]).toMatch(/--project 1 \\$/);
    expect(shown[add + 1]).toBe('    --api-key-stdin');
    expect(shown.filter((l) => !/^[0-9a-f]{8}-|^\{|^ +"/.test(l) && l.length > 80)).toEqual([]);
  }, 60_000);

  it("persons get's distinct_ids line wraps between ids, under the value", async () => {
    const res = await term(['persons', 'get', '01900000-aaaa-7bbb-8ccc-0000000000d1']);
    expect(res.code).toBe(0);
    const shown = lines(res.output);
    const at = shown.findIndex((l) => l.startsWith('distinct_ids:'));
    expect(shown[at]).toBe('distinct_ids: ken, 01900000-aaaa-7bbb-8ccc-0000000000d2,');
    expect(shown[at + 1]).toBe('              01900000-aaaa-7bbb-8ccc-0000000000d3');
    expect(fits(res.output)).toEqual([]);
  });

  it('the base-URL prompt fits the line, its choices said above it', async () => {
    const env = { HOGCTL_CONFIG_DIR: join(dir, 'fresh') };
    const res = await runInTerminal(['profile', 'add', 'work'], env, [{ when: 'PostHog base URL', send: '\u0003' }], 30_000, SCREEN);
    const shown = lines(res.output);
    expect(shown.slice(0, 2)).toEqual([
      'Your PostHog: https://us.posthog.com (US Cloud), https://eu.posthog.com (EU',
      '  Cloud) or your own address.',
    ]);
    expect(shown.find((l) => l.includes('PostHog base URL'))).toMatch(/^\? PostHog base URL: \(https:\/\/us\.posthog\.com\)/);
    expect(fits(res.output)).toEqual([]);
  });
});

describe('CI: a SIGTERM and a key without a site', () => {
  it('a bulk run stopped by SIGTERM is told a second SIGTERM quits, not Ctrl-C', async () => {
    const uuids = [...world.sandbox.store].slice(0, 3).map((p) => p.uuid);
    const path = join(dir, 'term.txt');
    writeFileSync(path, uuids.join('\n'));
    const journal = join(dir, 'term.ndjson');
    world.sandbox.setFaults('slow=1@4000,path=bulk_delete');
    try {
      const { child, exited } = spawnCli(['persons', 'bulk-delete', '--file', path, '--journal', journal, '-y'], world.env);
      for (let i = 0; i < 200 && !(existsSync(journal) && readFileSync(journal, 'utf8').includes('"sending"')); i++)
        await new Promise((r) => setTimeout(r, 50));
      child.kill('SIGTERM');
      const res = await exited;
      expect(res.code).toBe(130);
      expect(res.stderr).toContain('a second SIGTERM quits now');
      expect(res.stderr).not.toContain('Ctrl-C again');
    } finally {
      world.sandbox.setFaults(undefined);
    }
  });

  it('HOGCTL_API_KEY without HOGCTL_BASE_URL says once that it goes to US Cloud', async () => {
    // The proxy refuses at once: nothing leaves this machine.
    const env = {
      HOGCTL_API_KEY: 'phx_test',
      HOGCTL_PROJECT_ID: '1',
      HOGCTL_CONFIG_DIR: join(dir, 'ci'),
      HTTPS_PROXY: 'http://127.0.0.1:9',
    };
    const res = await term(['persons', 'list', '--limit', '1', '--timeout', '2'], env);
    expect(res.code).not.toBe(0);
    const said = res.output.replace(/\r?\n  /g, ' ');
    expect(said).toContain('HOGCTL_API_KEY without HOGCTL_BASE_URL (or a profile): using US Cloud, https://us.posthog.com');
    expect(said.split('using US Cloud')).toHaveLength(2);
    expect(fits(res.output)).toEqual([]);
  });
});
