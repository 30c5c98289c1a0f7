// End-to-end: the built binary against the sandbox, for the foundation's vertical slice.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { statSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, cleanEnv, runCli, startWorld, type World } from './harness.js';
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
  it('--all with page size 100 returns exactly 2,500 unique ids, each page starting 25 rows early', async () => {
    const before = world.sandbox.requests.length;
    const res = await world.run(['persons', 'list', '--all', '--page-size', '100', '-o', 'ndjson']);
    expect(res.code).toBe(0);
    const rows = res.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rows).toHaveLength(2500);
    expect(new Set(rows.map((r) => r.id)).size).toBe(2500);
    const requests = world.sandbox.requests.slice(before).filter((r) => r.path.endsWith('/persons/'));
    // Each next page reaches 25 rows back (deletions meanwhile would shift it); the last one holds
    // only those 25, so it is short and links nowhere.
    expect(requests).toHaveLength(26);
    expect(requests.map((r) => `${r.query.offset ?? 0}+${r.query.limit}`)).toEqual([
      '0+100',
      ...Array.from({ length: 25 }, (_, i) => `${(i + 1) * 100 - 25}+125`),
    ]);
  });

  it('sends filters as PostHog expects them', async () => {
    const before = world.sandbox.requests.length;
    const res = await world.run([
      'persons',
      'list',
      '--email',
      'user5@example.com',
      '--search',
      'user',
      '--distinct-id',
      'user-5',
      '--where',
      'plan=team',
      '--properties',
      '[{"key":"country","value":"DE","operator":"is_not"}]',
      '-o',
      'json',
    ]);
    expect(res.code).toBe(0);
    const req = world.sandbox.requests.slice(before).find((r) => r.path.endsWith('/persons/'))!;
    expect(req.method).toBe('GET');
    // PostHog's email parameter compares case and all: --email goes as a regex of ASCII letter classes.
    expect(req.query.email).toBeUndefined();
    expect(req.query.search).toBe('user');
    expect(req.query.distinct_id).toBe('user-5');
    expect(JSON.parse(req.query.properties as string)).toEqual([
      { key: 'email', value: '^[uU][sS][eE][rR]5@[eE][xX][aA][mM][pP][lL][eE]\\.[cC][oO][mM]$', operator: 'regex', type: 'person' },
      { key: 'plan', value: 'team', operator: 'exact', type: 'person' },
      { key: 'country', value: 'DE', operator: 'is_not', type: 'person' },
    ]);
    expect(Array.isArray(JSON.parse(res.stdout))).toBe(true);
  });

  it('filters really narrow the result', async () => {
    const res = await world.run(['persons', 'list', '--where', 'plan=enterprise', '--all', '-o', 'ndjson']);
    expect(res.code).toBe(0);
    const rows = res.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => r.properties.plan === 'enterprise')).toBe(true);
  });

  it('prints tab-separated lines without colour when piped, and a table on a terminal', async () => {
    const piped = await world.run(['persons', 'list', '--limit', '3'], { env: { FORCE_COLOR: undefined } });
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

  it('--fields picks columns in csv and rejects unknown names with the valid ones', async () => {
    const csv = await world.run(['persons', 'list', '--limit', '2', '-o', 'csv', '--fields', 'id,properties.email']);
    expect(csv.code).toBe(0);
    const [header, ...rows] = csv.stdout.trim().split('\n');
    expect(header).toBe('id,properties.email');
    expect(rows).toHaveLength(2);

    const bad = await world.run(['persons', 'list', '--fields', 'id,emial']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('"emial"');
    expect(bad.stderr).toContain('valid fields are id, uuid');
    expect(bad.stdout).toBe('');
  });

  it('--server-format csv passes the format parameter and prints the server CSV', async () => {
    const before = world.sandbox.requests.length;
    const res = await world.run(['persons', 'list', '--server-format', 'csv', '--where', 'plan=team']);
    expect(res.code).toBe(0);
    const req = world.sandbox.requests.slice(before).find((r) => r.path.endsWith('/persons/'))!;
    expect(req.query.format).toBe('csv');
    expect(res.stdout.split('\n')[0]).toContain('properties.email');
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

  it('an empty result exits 0', async () => {
    const res = await world.run(['persons', 'list', '--email', 'nobody@nowhere.invalid', '-o', 'json']);
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toEqual([]);
  });
});

describe('persons get', () => {
  it('gets by UUID and by integer id, with the retrieve shape', async () => {
    const person = world.sandbox.store.list({}, 0, 1)[0]!;
    const byUuid = await world.run(['persons', 'get', person.uuid, '-o', 'json']);
    expect(byUuid.code).toBe(0);
    const body = JSON.parse(byUuid.stdout);
    expect(body.uuid).toBe(person.uuid);
    expect(typeof body.id).toBe('number');
    const byId = await world.run(['persons', 'get', String(body.id), '-o', 'json']);
    expect(JSON.parse(byId.stdout).uuid).toBe(person.uuid);
  });

  it('gets by distinct id through the list filter', async () => {
    const before = world.sandbox.requests.length;
    const res = await world.run(['persons', 'get', '--distinct-id', 'user-5', '-o', 'json']);
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout).distinct_ids).toContain('user-5');
    const list = world.sandbox.requests.slice(before).find((r) => r.path.endsWith('/persons/'))!;
    expect(list.query.distinct_id).toBe('user-5');
  });
});

describe('exit codes', () => {
  it('2 for a bad flag, a bad id and a missing project, with nothing sent', async () => {
    const before = world.sandbox.requests.length;
    const flag = await world.run(['persons', 'list', '--limitt', '3']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain("unknown option '--limitt'");
    const id = await world.run(['persons', 'get', 'not-an-id']);
    expect(id.code).toBe(2);
    expect(id.stderr).toContain('invalid person id "not-an-id"');
    expect(id.stderr).toContain('--distinct-id');
    const noProject = await world.run(['persons', 'list'], { env: { HOGCTL_PROJECT_ID: undefined } });
    expect(noProject.code).toBe(2);
    expect(noProject.stderr).toContain('no project chosen');
    expect(world.sandbox.requests.length).toBe(before);
  });

  it('3 for a person that does not exist', async () => {
    const res = await world.run(['persons', 'get', '99999999']);
    expect(res.code).toBe(3);
    expect(res.stderr).toContain('person 99999999 not found in project');
    const distinct = await world.run(['persons', 'get', '--distinct-id', 'no-such-id']);
    expect(distinct.code).toBe(3);
  });

  it('4 for a missing key, a refused key and a missing scope', async () => {
    const none = await world.run(['persons', 'list'], { env: { HOGCTL_API_KEY: undefined } });
    expect(none.code).toBe(4);
    expect(none.stderr).toContain('HOGCTL_API_KEY');
    const bad = await world.run(['persons', 'list'], { env: { HOGCTL_API_KEY: 'phx_notakey' } });
    expect(bad.code).toBe(4);
    expect(bad.stderr).toContain('Personal API key found in request Authorization header is invalid');
    const readOnly = world.sandbox.addKey(['project:read']);
    const scope = await world.run(['persons', 'list'], { env: { HOGCTL_API_KEY: readOnly } });
    expect(scope.code).toBe(4);
    expect(scope.stderr).toContain("API key missing required scope 'person:read'");
    expect(scope.stderr).not.toContain(readOnly);
  });

  it('6 when still rate-limited after retries, 7 on a server failure', async () => {
    const throttled = await startWorld({ persons: 10, faults: '429=1' });
    try {
      const res = await throttled.run(['persons', 'list']);
      expect(res.code).toBe(6);
      expect(res.stderr).toContain('Request was throttled');
      expect(throttled.sandbox.requests.length).toBe(6); // the first try and five retries
    } finally {
      await throttled.close();
    }
    const failing = await startWorld({ persons: 10, faults: '500=1' });
    try {
      const res = await failing.run(['persons', 'list']);
      expect(res.code).toBe(7);
      expect(res.stderr).toContain('A server error occurred.');
      expect(res.stderr).not.toMatch(/\n\s+at /); // no stack trace
    } finally {
      await failing.close();
    }
  });
});

describe('profiles', () => {
  it('stores the key privately, never echoes it, and resolves flags > env > profile', async () => {
    const key = world.sandbox.defaultKey;
    const env = { HOGCTL_CONFIG_DIR: world.configDir };
    const add = await runCli(['profile', 'add', 'local', '--base-url', world.sandbox.url, '--project', '1', '--api-key-stdin', '--debug'], {
      env,
      stdin: `${key}\n`,
    });
    expect(add.code).toBe(0);
    expect(add.stderr).toContain('saved profile "local"');
    for (const text of [add.stdout, add.stderr]) expect(text).not.toContain(key);
    for (const file of readdirSync(world.configDir)) {
      expect(statSync(join(world.configDir, file)).mode & 0o777).toBe(0o600);
    }
    expect(statSync(world.configDir).mode & 0o777).toBe(0o700);
    expect(readFileSync(join(world.configDir, 'config.json'), 'utf8')).not.toContain(key);

    const list = await runCli(['profile', 'list'], { env });
    expect(list.stdout).toContain(`phx_…${key.slice(-4)}`);
    expect(list.stdout).not.toContain(key);

    // The profile alone is enough to list persons, and the debug log never shows the key.
    const viaProfile = await runCli(['persons', 'list', '--limit', '1', '--debug'], { env });
    expect(viaProfile.code).toBe(0);
    expect(viaProfile.stderr).toContain('GET');
    expect(viaProfile.stderr).toContain('/persons/');
    expect(viaProfile.stderr + viaProfile.stdout).not.toContain(key);

    // The environment beats the profile, and a flag beats the environment.
    const envWins = await runCli(['persons', 'list', '--limit', '1'], { env: { ...env, HOGCTL_PROJECT_ID: '424242' } });
    expect(envWins.code).toBe(3);
    expect(envWins.stderr).toContain('/api/projects/424242/');
    const flagWins = await runCli(['persons', 'list', '--limit', '1', '--project', '1'], { env: { ...env, HOGCTL_PROJECT_ID: '424242' } });
    expect(flagWins.code).toBe(0);

    const rm = await runCli(['profile', 'remove', 'local'], { env });
    expect(rm.code).toBe(2);
    expect(rm.stderr).toContain('--yes');
    const rmYes = await runCli(['profile', 'remove', 'local', '--yes'], { env });
    expect(rmYes.code).toBe(0);
  });
});

describe('the README quickstart', () => {
  it('hogctl demo runs its tour against a sandbox and exits 0', async () => {
    const res = await runCli(['demo', '--persons', '300']);
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('$ hogctl persons list --limit 5');
    expect(res.stdout).toContain('properties.email');
    expect(res.stdout).not.toContain('(exit code 1)');
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

describe('exit code 5', () => {
  it('when the server rejects a filter', async () => {
    const res = await world.run(['persons', 'list', '--properties', '[{"key":"email","operator":"regex","value":"("}]']);
    expect(res.code).toBe(5);
    expect(res.stderr).toMatch(/failed with 400/);
  });
});
