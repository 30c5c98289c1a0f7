import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkProfileName, ProfileStore } from '../../../src/config/profiles.js';
import { UsageError } from '../../../src/errors.js';
import { thrown } from '../helpers.js';

const KEY = 'phx_profilekey1234567890wxyz';
const mode = (path: string) => statSync(path).mode & 0o777;

let root: string;
let dir: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'hogctl-profiles-'));
  dir = join(root, 'nested', 'hogctl');
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('ProfileStore files', () => {
  it('creates the directory 0700 and both files 0600', async () => {
    const store = new ProfileStore(dir);
    await store.save('prod', { base_url: 'https://eu.posthog.com', project_id: '42' }, KEY);
    expect(mode(dir)).toBe(0o700);
    expect(store.configPath).toBe(join(dir, 'config.json'));
    expect(store.credentialsPath).toBe(join(dir, 'credentials.json'));
    expect(mode(store.configPath)).toBe(0o600);
    expect(mode(store.credentialsPath)).toBe(0o600);
  });

  it('keeps the key in credentials.json and out of config.json', async () => {
    const store = new ProfileStore(dir);
    await store.save('prod', { base_url: 'https://eu.posthog.com', project_id: '42' }, KEY);
    const config = readFileSync(store.configPath, 'utf8');
    const credentials = readFileSync(store.credentialsPath, 'utf8');
    expect(config).not.toContain(KEY);
    expect(config).toContain('https://eu.posthog.com');
    expect(credentials).toContain(KEY);
    expect(JSON.parse(credentials)).toEqual({ api_keys: { prod: KEY } });
  });

  it('never changes the mode of a directory it did not create; warns when others can write to it', async () => {
    mkdirSync(dir, { recursive: true });
    chmodSync(dir, 0o1777);
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { old: { base_url: 'https://us.posthog.com' } } }), { mode: 0o644 });
    writeFileSync(join(dir, 'credentials.json'), JSON.stringify({ api_keys: { old: KEY } }), { mode: 0o644 });
    chmodSync(join(dir, 'credentials.json'), 0o644);
    const warnings: string[] = [];
    const store = new ProfileStore(dir, (m) => warnings.push(m));
    expect(store.names()).toEqual(['old']);
    expect(store.apiKey('old')).toBe(KEY);
    await store.save('new', { base_url: 'https://eu.posthog.com' }, KEY);
    expect(mode(dir)).toBe(0o777);
    expect(statSync(dir).mode & 0o7777).toBe(0o1777);
    // The files are hogctl's own: the key file is private again, and every write makes both 0600.
    expect(mode(store.credentialsPath)).toBe(0o600);
    expect(mode(store.configPath)).toBe(0o600);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`${dir} is writable by all users`);
  });

  it('says nothing about a private directory', async () => {
    const warnings: string[] = [];
    const store = new ProfileStore(dir, (m) => warnings.push(m));
    await store.save('prod', { base_url: 'https://eu.posthog.com' }, KEY);
    expect(store.apiKey('prod')).toBe(KEY);
    expect(warnings).toEqual([]);
  });

  it('refuses a credentials file that is a symbolic link, reading and writing, and leaves its target alone', async () => {
    mkdirSync(dir, { recursive: true });
    const target = join(root, 'elsewhere.json');
    writeFileSync(target, '{"api_keys": {}}');
    symlinkSync(target, join(dir, 'credentials.json'));
    const store = new ProfileStore(dir);
    const write = await store.save('prod', { base_url: 'https://eu.posthog.com' }, KEY).catch((e: unknown) => e as UsageError);
    expect(write).toBeInstanceOf(UsageError);
    expect((write as UsageError).message).toContain(`refusing to use ${join(dir, 'credentials.json')}: it is a symbolic link`);
    expect(readFileSync(target, 'utf8')).toBe('{"api_keys": {}}');
    expect(thrown(() => store.apiKey('prod')).message).toContain('symbolic link');
    expect(readdirSync(dir).sort()).toEqual(['credentials.json']);
  });

  it('a file where the directory should be: no profiles to read, and a write says what is in the way', async () => {
    mkdirSync(root, { recursive: true });
    const file = join(root, 'a-file');
    writeFileSync(file, 'x');
    for (const [path, says] of [
      [file, 'a file is in the way of the directory'],
      [join(file, 'sub'), 'a part of the path is a file'],
    ]) {
      const store = new ProfileStore(path);
      expect(store.names()).toEqual([]);
      expect(store.apiKey('prod')).toBeUndefined();
      const err = await store.save('prod', { base_url: 'https://eu.posthog.com' }, KEY).catch((e: unknown) => e as UsageError);
      expect(err).toBeInstanceOf(UsageError);
      expect((err as UsageError).message).toContain(says);
    }
  });

  it('says which part of a config.json has the wrong shape', async () => {
    mkdirSync(dir, { recursive: true });
    for (const [text, says] of [
      ['{"profiles": 5}', '"profiles" must be an object'],
      ['{"profiles": {"x": "https://a.test"}}', 'profile "x" must have a "base_url"'],
      ['{"profiles": {}, "current": 3}', '"current" must be'],
      ['[]', 'not valid JSON'],
    ]) {
      writeFileSync(join(dir, 'config.json'), text);
      const err = thrown(() => new ProfileStore(dir).names());
      expect(err).toBeInstanceOf(UsageError);
      expect(err.message).toContain(says);
    }
    rmSync(join(dir, 'config.json'));
    mkdirSync(join(dir, 'config.json'));
    expect(thrown(() => new ProfileStore(dir).names()).message).toContain('it is a directory');
  });

  it('persists across instances', async () => {
    await new ProfileStore(dir).save('prod', { base_url: 'https://eu.posthog.com', project_id: '42', allow_insecure_http: true }, KEY);
    const again = new ProfileStore(dir);
    expect(again.get('prod')).toEqual({ base_url: 'https://eu.posthog.com', project_id: '42', allow_insecure_http: true });
    expect(again.apiKey('prod')).toBe(KEY);
    expect(again.current()).toBe('prod');
  });
});

describe('ProfileStore profiles', () => {
  it('makes the first saved profile current and keeps it when others are added', async () => {
    const store = new ProfileStore(dir);
    expect(store.current()).toBeUndefined();
    await store.save('prod', { base_url: 'https://eu.posthog.com' }, KEY);
    await store.save('dev', { base_url: 'http://localhost:8000' }, 'phx_dev0000');
    expect(store.current()).toBe('prod');
    expect(store.names()).toEqual(['dev', 'prod']);
    await store.use('dev');
    expect(store.current()).toBe('dev');
  });

  it('saving without a key keeps the stored key', async () => {
    const store = new ProfileStore(dir);
    await store.save('prod', { base_url: 'https://eu.posthog.com' }, KEY);
    await store.save('prod', { base_url: 'https://us.posthog.com', project_id: '7' });
    expect(store.get('prod')).toEqual({ base_url: 'https://us.posthog.com', project_id: '7' });
    expect(store.apiKey('prod')).toBe(KEY);
  });

  it('remove deletes the profile and its key, and clears current when it was current', async () => {
    const store = new ProfileStore(dir);
    await store.save('prod', { base_url: 'https://eu.posthog.com' }, KEY);
    await store.save('dev', { base_url: 'http://localhost:8000' }, 'phx_dev0000');
    await store.remove('prod');
    expect(store.get('prod')).toBeUndefined();
    expect(store.apiKey('prod')).toBeUndefined();
    expect(store.current()).toBeUndefined();
    expect(store.names()).toEqual(['dev']);
    expect(readFileSync(store.configPath, 'utf8')).not.toContain('"prod"');
    expect(readFileSync(store.credentialsPath, 'utf8')).not.toContain(KEY);
    expect(store.apiKey('dev')).toBe('phx_dev0000');
  });

  it('remove of another profile leaves current alone', async () => {
    const store = new ProfileStore(dir);
    await store.save('prod', { base_url: 'https://eu.posthog.com' }, KEY);
    await store.save('dev', { base_url: 'http://localhost:8000' });
    await store.remove('dev');
    expect(store.current()).toBe('prod');
  });

  it('use, remove and require of an unknown profile are usage errors naming the profiles', async () => {
    const store = new ProfileStore(dir);
    await store.save('prod', { base_url: 'https://eu.posthog.com' });
    await store.save('dev', { base_url: 'http://localhost:8000' });
    for (const action of [() => store.use('stage'), () => store.remove('stage'), async () => store.require('stage')]) {
      const err = await action().then(
        () => expect.unreachable('expected a usage error'),
        (e: unknown) => e as UsageError,
      );
      expect(err).toBeInstanceOf(UsageError);
      expect(err.message).toContain('"stage"');
      expect(err.hint).toContain('dev, prod');
    }
    expect(store.current()).toBe('prod');
  });

  it('checkProfileName', async () => {
    expect(checkProfileName('prod-eu_1.x')).toBe('prod-eu_1.x');
    for (const bad of ['', '-x', 'a b', 'a/b', 'x'.repeat(65)]) expect(() => checkProfileName(bad)).toThrow(UsageError);
  });
});
