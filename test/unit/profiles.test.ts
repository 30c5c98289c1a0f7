import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkProfileName, ProfileStore } from '../../src/config/profiles.js';
import { UsageError } from '../../src/errors.js';
import { thrown } from './helpers.js';

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

  it('tightens a directory and files that were too open', async () => {
    mkdirSync(dir, { recursive: true, mode: 0o755 });
    chmodSync(dir, 0o755);
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { old: { base_url: 'https://us.posthog.com' } } }), { mode: 0o644 });
    writeFileSync(join(dir, 'credentials.json'), JSON.stringify({ api_keys: { old: KEY } }), { mode: 0o644 });
    const store = new ProfileStore(dir);
    expect(mode(dir)).toBe(0o700);
    expect(mode(store.configPath)).toBe(0o600);
    expect(mode(store.credentialsPath)).toBe(0o600);
    expect(store.apiKey('old')).toBe(KEY);
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
