import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ProfileStore } from '../../../src/config/profiles.js';
import {
  checkKeyDestination,
  checkProjectId,
  DEFAULT_BASE_URL,
  maskKey,
  normalizeBaseUrl,
  resolveSettings,
} from '../../../src/config/settings.js';
import { UsageError } from '../../../src/errors.js';
import { thrown } from '../helpers.js';

const PROD_KEY = 'phx_prodkey000000000000prod';
const DEV_KEY = 'phx_devkey0000000000000dev1';
const ENV_KEY = 'phx_envkey00000000000000env';

let dir: string;
let store: ProfileStore;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hogctl-settings-'));
  store = new ProfileStore(dir);
  // prod is saved first, so it is the current profile.
  await store.save('prod', { base_url: 'https://eu.posthog.com', project_id: '100' }, PROD_KEY);
  await store.save('dev', { base_url: 'http://localhost:8010', project_id: '200', allow_insecure_http: true }, DEV_KEY);
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('resolveSettings', () => {
  it('uses the current profile when nothing else is given', async () => {
    const s = resolveSettings({}, {}, store);
    expect(s).toEqual({
      profileName: 'prod',
      baseUrl: 'https://eu.posthog.com',
      projectId: '100',
      apiKey: PROD_KEY,
      allowInsecureHttp: false,
      sources: { baseUrl: 'profile', projectId: 'profile', apiKey: 'profile' },
      profileOrigin: 'https://eu.posthog.com',
    });
  });

  it('a chosen profile (--profile) beats the current one', async () => {
    const s = resolveSettings({ profile: 'dev' }, {}, store);
    expect(s.profileName).toBe('dev');
    expect(s.baseUrl).toBe('http://localhost:8010');
    expect(s.projectId).toBe('200');
    expect(s.apiKey).toBe(DEV_KEY);
    expect(s.allowInsecureHttp).toBe(true);
  });

  it('HOGCTL_PROFILE selects a profile, and --profile beats it', async () => {
    expect(resolveSettings({}, { HOGCTL_PROFILE: 'dev' }, store).profileName).toBe('dev');
    expect(resolveSettings({}, { HOGCTL_PROFILE: 'dev' }, store).apiKey).toBe(DEV_KEY);
    expect(resolveSettings({ profile: 'prod' }, { HOGCTL_PROFILE: 'dev' }, store).profileName).toBe('prod');
    expect(resolveSettings({}, { HOGCTL_PROFILE: '' }, store).profileName).toBe('prod');
  });

  it('environment beats the profile', async () => {
    const s = resolveSettings({}, { HOGCTL_BASE_URL: 'https://us.posthog.com/', HOGCTL_PROJECT_ID: '300' }, store);
    expect(s.baseUrl).toBe('https://us.posthog.com');
    expect(s.projectId).toBe('300');
    expect(s.sources).toMatchObject({ baseUrl: 'env', projectId: 'env' });
  });

  it('flags beat the environment', async () => {
    const s = resolveSettings(
      { baseUrl: 'https://posthog.internal.test', project: '400' },
      { HOGCTL_BASE_URL: 'https://us.posthog.com', HOGCTL_PROJECT_ID: '300' },
      store,
    );
    expect(s.baseUrl).toBe('https://posthog.internal.test');
    expect(s.projectId).toBe('400');
    expect(s.sources).toMatchObject({ baseUrl: 'flag', projectId: 'flag' });
  });

  it('an empty environment value does not count', async () => {
    const s = resolveSettings({}, { HOGCTL_BASE_URL: '', HOGCTL_PROJECT_ID: '', HOGCTL_API_KEY: '  ' }, store);
    expect(s.baseUrl).toBe('https://eu.posthog.com');
    expect(s.projectId).toBe('100');
    expect(s.apiKey).toBe(PROD_KEY);
  });

  it('HOGCTL_API_KEY beats the profile key', async () => {
    const s = resolveSettings({ profile: 'dev' }, { HOGCTL_API_KEY: ` ${ENV_KEY}\n` }, store);
    expect(s.apiKey).toBe(ENV_KEY);
    expect(s.sources.apiKey).toBe('env');
  });

  it('falls back to the default base URL with no profile at all', async () => {
    const empty = new ProfileStore(join(dir, 'empty'));
    const s = resolveSettings({}, {}, empty);
    expect(s).toEqual({
      profileName: undefined,
      baseUrl: DEFAULT_BASE_URL,
      projectId: undefined,
      apiKey: undefined,
      allowInsecureHttp: false,
      sources: { baseUrl: 'default', projectId: undefined, apiKey: undefined },
    });
  });

  it('an unknown profile is a UsageError listing the names', async () => {
    for (const [flags, env] of [
      [{ profile: 'stage' }, {}],
      [{}, { HOGCTL_PROFILE: 'stage' }],
    ] as const) {
      const err = thrown(() => resolveSettings(flags, env, store));
      expect(err).toBeInstanceOf(UsageError);
      expect(err.exitCode).toBe(2);
      expect(err.message).toContain('"stage"');
      expect(err.hint).toContain('dev, prod');
    }
  });

  it('takes the project from an old saved /api/environments/<id>/ URL', async () => {
    await store.save('old', { base_url: 'https://eu.posthog.com/api/environments/42/' }, 'phx_old');
    const s = resolveSettings({ profile: 'old' }, {}, store);
    expect(s.baseUrl).toBe('https://eu.posthog.com');
    expect(s.projectId).toBe('42');
    expect(s.sources.projectId).toBe('profile');
    // An explicit project still wins.
    expect(resolveSettings({ profile: 'old', project: '7' }, {}, store).projectId).toBe('7');
  });

  it('keeps a project name for the Context to look up, and rejects an empty one', async () => {
    expect(resolveSettings({ project: 'My project' }, {}, store).projectId).toBe('My project');
    const err = thrown(() => resolveSettings({ project: '  ' }, {}, store));
    expect(err).toBeInstanceOf(UsageError);
    expect(err.message).toContain('the project is empty');
    expect(checkProjectId('@current')).toBe('@current');
  });
});

describe('a profile key goes only to its host', () => {
  it('HOGCTL_CAPTURE_URL is normalised, and one that is not a URL is a usage error naming the variable', () => {
    expect(resolveSettings({}, { HOGCTL_CAPTURE_URL: 'https://ingest.example.com/' }, store).captureUrl).toBe('https://ingest.example.com');
    for (const value of ['eu.i.posthog.com', 'ftp://ingest.example.com']) {
      const err = thrown(() => resolveSettings({}, { HOGCTL_CAPTURE_URL: value }, store));
      expect(err).toBeInstanceOf(UsageError);
      expect(err.exitCode).toBe(2);
      expect(err.message).toContain(`invalid capture URL "${value}" (from HOGCTL_CAPTURE_URL)`);
      expect(err.hint).toContain('unset HOGCTL_CAPTURE_URL');
    }
  });

  it('refuses a stored key with --base-url or HOGCTL_BASE_URL naming another host (exit 2)', async () => {
    for (const [flags, env, via] of [
      [{ baseUrl: 'https://collector.example' }, {}, '--base-url'],
      [{}, { HOGCTL_BASE_URL: 'https://collector.example' }, 'HOGCTL_BASE_URL'],
      [{ profile: 'dev', baseUrl: 'http://localhost:8011' }, {}, '--base-url'],
    ] as const) {
      const s = resolveSettings(flags, env, store);
      const err = thrown(() => checkKeyDestination(s));
      expect(err).toBeInstanceOf(UsageError);
      expect(err.exitCode).toBe(2);
      expect(err.message).toContain(`to ${new URL(s.baseUrl).origin} (${via})`);
      expect(err.message).not.toContain(PROD_KEY);
      expect(err.hint).toContain('HOGCTL_API_KEY');
    }
  });

  it('lets the key go to its own host, however the URL is spelled, and an env key anywhere', async () => {
    expect(() => checkKeyDestination(resolveSettings({ baseUrl: 'https://eu.posthog.com/' }, {}, store))).not.toThrow();
    expect(() => checkKeyDestination(resolveSettings({ baseUrl: 'https://eu.posthog.com/api/projects/5/' }, {}, store))).not.toThrow();
    expect(() =>
      checkKeyDestination(resolveSettings({ baseUrl: 'https://collector.example' }, { HOGCTL_API_KEY: ENV_KEY }, store)),
    ).not.toThrow();
  });

  it("does not carry a profile's allow_insecure_http to another host", async () => {
    expect(resolveSettings({ profile: 'dev' }, {}, store).allowInsecureHttp).toBe(true);
    expect(resolveSettings({ profile: 'dev', baseUrl: 'http://10.0.0.9:8010' }, { HOGCTL_API_KEY: ENV_KEY }, store).allowInsecureHttp).toBe(
      false,
    );
  });
});

describe('a run configured by HOGCTL_* variables', () => {
  const ENV = { HOGCTL_BASE_URL: 'https://us.posthog.com', HOGCTL_API_KEY: ENV_KEY, HOGCTL_PROJECT_ID: '9' };

  it('does not need a readable config: a broken one, or none at all', async () => {
    writeFileSync(join(dir, 'config.json'), '{ broken');
    expect(resolveSettings({}, ENV, store)).toMatchObject({
      profileName: undefined,
      baseUrl: 'https://us.posthog.com',
      projectId: '9',
      apiKey: ENV_KEY,
    });
    expect(resolveSettings({}, ENV, new ProfileStore(join(dir, 'missing', 'nowhere'))).apiKey).toBe(ENV_KEY);
    // Naming a profile still needs the file, and says what is wrong with it.
    expect(thrown(() => resolveSettings({ profile: 'prod' }, ENV, store)).message).toContain('not valid JSON');
  });

  it("takes the current profile's project only when it is for the same host", async () => {
    const { HOGCTL_PROJECT_ID: _, ...noProject } = ENV;
    expect(resolveSettings({}, noProject, store)).toMatchObject({ profileName: undefined, projectId: undefined });
    expect(resolveSettings({}, { ...noProject, HOGCTL_BASE_URL: 'https://eu.posthog.com' }, store)).toMatchObject({
      profileName: 'prod',
      projectId: '100',
      apiKey: ENV_KEY,
    });
  });
});

describe('normalizeBaseUrl', () => {
  it('drops a trailing slash', async () => {
    expect(normalizeBaseUrl('https://us.posthog.com/')).toEqual({ url: 'https://us.posthog.com', projectId: undefined });
    expect(normalizeBaseUrl('https://us.posthog.com')).toEqual({ url: 'https://us.posthog.com', projectId: undefined });
    expect(normalizeBaseUrl('https://host.test/posthog//')).toEqual({ url: 'https://host.test/posthog', projectId: undefined });
  });

  it('turns an old /api/environments/ or /api/projects/ URL into origin + project', async () => {
    expect(normalizeBaseUrl('https://eu.posthog.com/api/environments/42/')).toEqual({ url: 'https://eu.posthog.com', projectId: '42' });
    expect(normalizeBaseUrl('https://eu.posthog.com/api/projects/42')).toEqual({ url: 'https://eu.posthog.com', projectId: '42' });
    expect(normalizeBaseUrl('https://host.test/ph/api/environments/9/persons/')).toEqual({ url: 'https://host.test/ph', projectId: '9' });
  });

  it('rejects what is not an http(s) URL', async () => {
    expect(() => normalizeBaseUrl('us.posthog.com')).toThrow(UsageError);
    expect(() => normalizeBaseUrl('ftp://us.posthog.com')).toThrow(UsageError);
  });
});

describe('maskKey', () => {
  it('shows the prefix and the last four characters only', async () => {
    expect(maskKey('phx_1234567890abcd')).toBe('phx_…abcd');
    expect(maskKey('sessionkey9876')).toBe('…9876');
    expect(maskKey(undefined)).toBe('(none)');
    expect(maskKey('')).toBe('(none)');
  });
});
