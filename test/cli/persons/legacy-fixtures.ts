// Shared setup of the tests of the verbs that read PostHog's legacy person lists (cohorts, timeline,
// funnel, funnel-correlation, lifecycle): a world of 800 persons a file, the requests a run sent,
// and the refusal of a personal key that these lists answer with on current servers.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import type { RecordedRequest } from '@hogctl/sandbox';
import type { World } from '../harness.js';
import { useWorld } from './fixtures.js';

export const P = '/api/projects/1/persons';

/** The world of a legacy-list test file, and the requests sent since a count of them. */
export function useLegacyWorld(): { world: World; since(before: number): RecordedRequest[] } {
  const world = useWorld({ persons: 800, seed: 4 });
  return { world, since: (before) => world.sandbox.requests.slice(before) };
}

export function expectNeedsSession(res: { code: number | null; stderr: string; stdout: string }, path: string): void {
  expect(res.code).toBe(4);
  expect(res.stderr).toContain(`error: this command needs a signed-in session: the server refuses personal API keys for ${path}`);
  expect(res.stderr).toContain('This action does not support personal API key access');
  expect(res.stderr).toContain('sign in with `hogctl auth login`, then run the command again');
  expect(res.stdout).toBe('');
}

/** Signs in (`hogctl auth login`) in a config dir of its own before the calling describe's tests,
 * and fills `env` with it: a session there makes every insight verb use it instead of the key. */
export function useSignedInSession(world: World, env: Record<string, string>): void {
  beforeAll(async () => {
    env.HOGCTL_CONFIG_DIR = mkdtempSync(join(tmpdir(), 'hogctl-session-'));
    const login = await world.run(['auth', 'login', '--email', world.sandbox.login.email, '--password-stdin'], {
      env,
      stdin: world.sandbox.login.password,
    });
    expect(login.code, login.stderr).toBe(0);
  });
  afterAll(() => {
    rmSync(env.HOGCTL_CONFIG_DIR, { recursive: true, force: true });
  });
}
