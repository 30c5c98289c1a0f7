// Reliability: the machine hogctl runs on. Directories it did not create keep their mode; files
// that hold secrets are never read or written through a symbolic link; a read-only or foreign
// directory, a full disk, an unreadable --file and a broken config.json each get a clear message
// and exit 2, never "unexpected failure" (exit 1); a run configured by HOGCTL_* variables needs
// no config dir; and a profile's key is only ever sent to the profile's host.
//
// Permission cases need a second user: as root the CLI runs as `nobody` (uid 65534), otherwise a
// directory of mode 000 stands in for someone else's. The full disk is a 64 KiB tmpfs, which
// needs root; without it that case is skipped.
import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, startWorld, type RunResult, type World } from '../e2e/harness.js';
import { startSandbox, type Sandbox } from '@hogctl/sandbox';
import { sessionFilePath } from '../../src/config/session-jar.js';
import { errorLine, expectCleanFailure } from './helpers.js';

const ROOT = process.getuid?.() === 0;
const NOBODY = 65534;

let world: World;
let scratch: string;
beforeAll(async () => {
  world = await startWorld({ persons: 10, applyDelayMs: 0 });
  scratch = mkdtempSync(join(tmpdir(), 'hogctl-machine-'));
  chmodSync(scratch, 0o755);
});
afterAll(async () => {
  await world.close();
  rmSync(scratch, { recursive: true, force: true });
});

let n = 0;
/** A fresh directory path under the scratch directory (not created). */
const fresh = (name = 'cfg') => join(scratch, `${name}-${n++}`);

interface Run {
  env?: Record<string, string | undefined>;
  stdin?: string;
  /** Run as another user than the owner of the test's files (nobody, when the tests run as root). */
  asOther?: boolean;
}

/** The built CLI with only the given environment (no sandbox settings unless passed). */
function cli(args: string[], { env = {}, stdin = '', asOther = false }: Run = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const ids = asOther && ROOT ? { uid: NOBODY, gid: NOBODY } : {};
    const child = spawn(process.execPath, [BIN, ...args], { env: cleanEnv(env), stdio: ['pipe', 'pipe', 'pipe'], ...ids });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    child.stdin.on('error', () => {});
    child.stdin.end(stdin);
  });
}

const KEY = 'phx_machinetestkey000000000000000001';
const mode = (path: string) => statSync(path).mode & 0o7777;
// --no-verify: KEY is not one the sandbox knows, and these tests are about the file system.
const addProfile = (dir: string, run: Run = {}, name = 'p') =>
  cli(['profile', 'add', name, '--base-url', world.sandbox.url, '--project', '1', '--api-key-stdin', '--no-verify'], {
    ...run,
    stdin: KEY,
    env: { HOGCTL_CONFIG_DIR: dir, ...run.env },
  });
/** Settings of the sandbox from the environment alone. */
const sandboxEnv = (configDir: string) => ({ ...world.env, HOGCTL_CONFIG_DIR: configDir });
const noTempFiles = (dir: string) => expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);

describe('directories hogctl did not create', () => {
  it('keeps the mode of a shared (1777) config dir through profile add and list, and warns on stderr', async () => {
    const dir = fresh();
    mkdirSync(dir);
    chmodSync(dir, 0o1777);
    const add = await addProfile(dir);
    expect(add.code).toBe(0);
    const list = await cli(['profile', 'list'], { env: { HOGCTL_CONFIG_DIR: dir } });
    expect(list.code).toBe(0);
    expect(list.stdout).toContain('p');
    expect(mode(dir)).toBe(0o1777);
    for (const res of [add, list]) expect(res.stderr).toMatch(new RegExp(`warning: the hogctl directory ${dir} is writable by all users`));
    expect(mode(join(dir, 'credentials.json'))).toBe(0o600);
  });

  it('creates a missing config dir (and its parents) 0700, with 0600 files', async () => {
    const parent = fresh();
    const dir = join(parent, 'deeper', 'hogctl');
    const add = await addProfile(dir);
    expect(add.code).toBe(0);
    expect(add.stderr).not.toContain('warning');
    expect(mode(dir)).toBe(0o700);
    expect(mode(join(parent, 'deeper'))).toBe(0o700);
    expect(mode(join(dir, 'config.json'))).toBe(0o600);
    expect(mode(join(dir, 'credentials.json'))).toBe(0o600);
  });
});

describe('files that hold secrets are never used through a symbolic link', () => {
  it('profile add refuses a credentials.json that is a link, and leaves its target untouched', async () => {
    const dir = fresh();
    mkdirSync(dir, { mode: 0o700 });
    const target = join(fresh('target'), 'owned-by-someone.json');
    mkdirSync(join(target, '..'));
    writeFileSync(target, '{"api_keys": {}}\n');
    symlinkSync(target, join(dir, 'credentials.json'));
    const res = await addProfile(dir);
    expect(res.code).toBe(2);
    expectCleanFailure(world, res);
    expect(errorLine(res)).toContain(`refusing to use ${join(dir, 'credentials.json')}: it is a symbolic link`);
    expect(readFileSync(target, 'utf8')).toBe('{"api_keys": {}}\n');
    expect(lstatSync(join(dir, 'credentials.json')).isSymbolicLink()).toBe(true);
    noTempFiles(dir);
  });

  it('auth login refuses a session jar that is a link, and leaves its target untouched', async () => {
    const dir = fresh();
    mkdirSync(join(dir, 'sessions'), { recursive: true, mode: 0o700 });
    const target = join(scratch, `jar-target-${n++}.json`);
    writeFileSync(target, '');
    const jar = sessionFilePath(dir, undefined, world.sandbox.url);
    symlinkSync(target, jar);
    const res = await cli(['auth', 'login', '--email', world.sandbox.login.email, '--password-stdin'], {
      env: sandboxEnv(dir),
      stdin: world.sandbox.login.password,
    });
    expect(res.code).toBe(2);
    expectCleanFailure(world, res);
    expect(res.stderr).toContain(`refusing to use ${jar}: it is a symbolic link`);
    expect(res.stderr).not.toContain(world.sandbox.login.password);
    expect(readFileSync(target, 'utf8')).toBe('');
    expect(lstatSync(jar).isSymbolicLink()).toBe(true);
  });

  it('bulk-delete refuses a journal that is a link, new or resumed, and appends nothing to its target', async () => {
    const dir = fresh();
    mkdirSync(dir, { mode: 0o700 });
    const ids = join(dir, 'ids.txt');
    writeFileSync(ids, '1\n2\n3\n');
    const env = sandboxEnv(dir);
    // A run whose chunk fails leaves a journal to resume.
    const real = join(dir, 'real.ndjson');
    world.sandbox.setFaults('500=1,path=bulk_delete');
    const first = await cli(['persons', 'bulk-delete', '--file', ids, '--yes', '--retries', '0', '--journal', real], { env }).finally(() =>
      world.sandbox.setFaults(),
    );
    expect(first.code).toBe(8);
    const before = readFileSync(real, 'utf8');
    const link = join(dir, 'link.ndjson');
    symlinkSync(real, link);
    const sent = () => world.sandbox.requests.filter((r) => r.path.includes('bulk_delete')).length;
    const sentBefore = sent();

    const resumed = await cli(['persons', 'bulk-delete', '--file', ids, '--yes', '--resume', '--journal', link], { env });
    expect(resumed.code).toBe(2);
    expectCleanFailure(world, resumed);
    expect(resumed.stderr).toContain(`refusing to use ${link}: it is a symbolic link`);
    // A new run, with a link to a file that does not exist yet.
    const dangling = join(dir, 'dangling.ndjson');
    symlinkSync(join(dir, 'not-yet.ndjson'), dangling);
    const created = await cli(['persons', 'bulk-delete', '--file', ids, '--yes', '--journal', dangling], { env });
    expect(created.code).toBe(2);
    expect(created.stderr).toContain(`refusing to use ${dangling}: it is a symbolic link`);
    expect(existsSync(join(dir, 'not-yet.ndjson'))).toBe(false);
    expect(readFileSync(real, 'utf8')).toBe(before);
    expect(sent()).toBe(sentBefore);
  });
});

describe('failures of the machine: a clear message and exit 2', () => {
  it('a read-only config dir: profile add says so, and the dir keeps its mode', async () => {
    const dir = fresh();
    mkdirSync(dir);
    if (ROOT) chownSync(dir, NOBODY, NOBODY);
    chmodSync(dir, 0o500);
    const res = await addProfile(dir, { asOther: true });
    expect(res.code).toBe(2);
    expectCleanFailure(world, res);
    expect(errorLine(res)).toContain(`cannot write ${join(dir, 'credentials.json')}: permission denied`);
    expect(res.stderr).toContain('HOGCTL_CONFIG_DIR');
    expect(mode(dir)).toBe(0o500);
    expect(readdirSync(dir)).toEqual([]);
  });

  it("another user's config dir: profile commands say so; a run configured by HOGCTL_* variables does not need it", async () => {
    const dir = fresh();
    expect((await addProfile(dir)).code).toBe(0);
    chmodSync(dir, ROOT ? 0o700 : 0o000);
    try {
      const list = await cli(['profile', 'list'], { env: { HOGCTL_CONFIG_DIR: dir }, asOther: true });
      expect(list.code).toBe(2);
      expectCleanFailure(world, list);
      expect(errorLine(list)).toContain(`cannot read ${join(dir, 'config.json')}: permission denied`);
      const envOnly = await cli(['persons', 'list', '--limit', '2'], { env: sandboxEnv(dir), asOther: true });
      expect(envOnly.stderr).toBe('');
      expect(envOnly.code).toBe(0);
      expect(envOnly.stdout.trim().split('\n')).toHaveLength(2);
    } finally {
      chmodSync(dir, 0o700);
    }
    expect(mode(dir)).toBe(0o700);
  });

  it('a run configured by HOGCTL_* variables works with a config dir that does not exist or holds a broken config.json', async () => {
    const missing = join(fresh(), 'nowhere');
    const res = await cli(['persons', 'list', '--limit', '1'], { env: sandboxEnv(missing) });
    expect(res.code).toBe(0);
    expect(existsSync(missing)).toBe(false);
    const broken = fresh();
    mkdirSync(broken);
    writeFileSync(join(broken, 'config.json'), '{"profiles": ');
    expect((await cli(['persons', 'list', '--limit', '1'], { env: sandboxEnv(broken) })).code).toBe(0);
  });

  it('a broken config.json names the file and what is wrong with it', async () => {
    const dir = fresh();
    mkdirSync(dir);
    for (const [content, says] of [
      ['{"current": "x", "profiles": 5}', '"profiles" must be an object'],
      ['{"current": "x", "profiles": {"x": "https://eu.posthog.com"}}', 'profile "x" must have a "base_url"'],
      ['{"profiles": ', 'is not valid JSON'],
    ]) {
      writeFileSync(join(dir, 'config.json'), content);
      const res = await cli(['persons', 'list'], { env: { HOGCTL_CONFIG_DIR: dir } });
      expect(res.code).toBe(2);
      expectCleanFailure(world, res);
      expect(errorLine(res)).toContain(join(dir, 'config.json'));
      expect(errorLine(res)).toContain(says);
    }
    rmSync(join(dir, 'config.json'));
    mkdirSync(join(dir, 'config.json'));
    const res = await cli(['profile', 'list'], { env: { HOGCTL_CONFIG_DIR: dir } });
    expect(res.code).toBe(2);
    expectCleanFailure(world, res);
    expect(errorLine(res)).toContain(`cannot read ${join(dir, 'config.json')}: it is a directory`);
  });

  it('an unreadable --file is refused before anything is sent', async () => {
    const dir = fresh();
    mkdirSync(dir, { mode: 0o777 });
    chmodSync(dir, 0o777);
    const ids = join(dir, 'ids.txt');
    writeFileSync(ids, '1\n2\n');
    chmodSync(ids, 0o000);
    const before = world.sandbox.requests.length;
    const res = await cli(['persons', 'bulk-delete', '--file', ids, '--yes', '--journal', join(dir, 'j.ndjson')], {
      env: sandboxEnv(dir),
      asOther: true,
    });
    expect(res.code).toBe(2);
    expectCleanFailure(world, res);
    expect(errorLine(res)).toContain(`cannot read ${ids}: permission denied`);
    expect(world.sandbox.requests.length).toBe(before);
  });

  describe.skipIf(!ROOT)('a full disk (a 64 KiB tmpfs)', () => {
    let disk: string;
    let mounted = false;
    beforeAll(() => {
      disk = fresh('disk');
      mkdirSync(disk);
      mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k,mode=0755', 'tmpfs', disk]).status === 0;
      if (!mounted) return;
      for (const sub of ['profile', 'login']) mkdirSync(join(disk, sub, 'sessions'), { recursive: true, mode: 0o700 });
      try {
        writeFileSync(join(disk, 'filler'), Buffer.alloc(128 * 1024));
      } catch {
        // ENOSPC: the disk is full, as wanted
      }
    });
    afterAll(() => {
      if (mounted) spawnSync('umount', [disk]);
    });

    it('profile add says the disk is full, keeps the old files and leaves no temp file', async (t) => {
      if (!mounted) t.skip();
      const dir = join(disk, 'profile');
      const res = await addProfile(dir);
      expect(res.code).toBe(2);
      expectCleanFailure(world, res);
      expect(errorLine(res)).toMatch(/cannot write .*credentials\.json: no space left on the device/);
      expect(readdirSync(dir)).toEqual(['sessions']);
    });

    it('auth login says the disk is full and leaves no temp file', async (t) => {
      if (!mounted) t.skip();
      const dir = join(disk, 'login');
      const res = await cli(['auth', 'login', '--email', world.sandbox.login.email, '--password-stdin'], {
        env: sandboxEnv(dir),
        stdin: world.sandbox.login.password,
      });
      expect(res.code).toBe(2);
      expectCleanFailure(world, res);
      expect(errorLine(res)).toMatch(/no space left on the device/);
      expect(readdirSync(join(dir, 'sessions'))).toEqual([]);
    });
  });
});

describe("a profile's key goes only to its host", () => {
  let other: Sandbox;
  beforeAll(async () => {
    other = await startSandbox({ quiet: true, persons: 3 });
  });
  afterAll(async () => {
    await other.close();
  });

  it('refuses --base-url or HOGCTL_BASE_URL naming another host with a stored key (exit 2), sending nothing', async () => {
    const dir = fresh();
    expect((await addProfile(dir)).code).toBe(0);
    const viaFlag = await cli(['persons', 'list', '--base-url', other.url], { env: { HOGCTL_CONFIG_DIR: dir } });
    const viaEnv = await cli(['persons', 'list'], { env: { HOGCTL_CONFIG_DIR: dir, HOGCTL_BASE_URL: other.url } });
    for (const [res, via] of [
      [viaFlag, '--base-url'],
      [viaEnv, 'HOGCTL_BASE_URL'],
    ] as const) {
      expect(res.code).toBe(2);
      expectCleanFailure(world, res);
      expect(res.stderr).not.toContain(KEY);
      expect(errorLine(res)).toContain(
        `refusing to send the API key of profile "p" to ${other.url} (${via}): the key belongs to ${world.sandbox.url}`,
      );
      expect(res.stderr).toContain('HOGCTL_API_KEY');
    }
    expect(other.requests).toEqual([]);
    // To its own host, the key goes.
    const own = await cli(['projects', 'list', '--base-url', `${world.sandbox.url}/`], { env: { HOGCTL_CONFIG_DIR: dir } });
    expect(own.stderr).not.toContain('refusing');
  });

  it('sends a key from HOGCTL_API_KEY wherever --base-url points', async () => {
    const dir = fresh();
    expect((await addProfile(dir)).code).toBe(0);
    const before = other.requests.length;
    const res = await cli(['persons', 'list', '--base-url', other.url, '--project', '1'], {
      env: { HOGCTL_CONFIG_DIR: dir, HOGCTL_API_KEY: other.defaultKey },
    });
    expect(res.code).toBe(0);
    const seen = other.requests.slice(before);
    expect(seen.length).toBeGreaterThan(0);
    for (const r of seen) expect(r.headers.authorization).toBe(`Bearer ${other.defaultKey}`);
  });
});
