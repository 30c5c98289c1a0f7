// The verbs that use a session (auth, email, users), in this process: a world whose clock the test
// moves (TOTP steps, PostHog's 2-hour re-auth window, code expiry and throttles), signed in with
// the sandbox's password, and every run given to a Witness (test/e2e/secrets.ts), so that a file
// ends by checking that no password, cookie, code or TOTP secret reached argv or the output.
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import type { SandboxOptions } from '@hogctl/sandbox';
import { expectSecretsOnlyIn, jarValues, Witness } from '../e2e/secrets.js';
import { startWorld, type RunOptions, type RunResult, type World } from './harness.js';

export interface SessionWorld {
  world: World;
  witness: Witness;
  /** `hogctl <args>` in this process, what it was given and showed kept by the witness. */
  run(args: string[], options?: RunOptions): Promise<RunResult>;
  /** Moves the sandbox's clock on; hogctl keeps the real one, as a spawned binary would. */
  advance(ms: number): number;
  now(): number;
  /** The session file of the world's config dir (or of `configDir`). */
  jarFile(configDir?: string): string;
  close(): Promise<void>;
}

export async function startSessionWorld(options: SandboxOptions = {}): Promise<SessionWorld> {
  let clock = Date.now();
  const world = await startWorld({ persons: 5, now: () => clock, ...options });
  const witness = new Witness();
  return {
    world,
    witness,
    run: async (args, runOptions = {}) => {
      witness.ran(args);
      const res = await world.run(args, runOptions);
      witness.saw(res.stdout, res.stderr);
      return res;
    },
    advance: (ms) => (clock += ms),
    now: () => clock,
    jarFile: (configDir = world.configDir) => join(configDir, 'sessions', `@127.0.0.1_${world.sandbox.port}.json`),
    close: () => world.close(),
  };
}

/**
 * A world signed in before the file's tests (then `prepare` runs) and closed after them; the
 * object forwards to it once it has started.
 */
export function useSignedInSession(prepare: () => Promise<void> = async () => {}): SessionWorld {
  let started: SessionWorld | undefined;
  beforeAll(async () => {
    started = await startSessionWorld();
    await signIn(started);
    await prepare();
  });
  afterAll(() => started?.close());
  return new Proxy({} as SessionWorld, {
    get: (_, key) => {
      if (!started) throw new Error('the session world starts in beforeAll');
      return started[key as keyof SessionWorld];
    },
  });
}

/** Signs in as the sandbox's user without 2FA, the password from stdin. */
export async function signIn(session: SessionWorld, env: Record<string, string> = {}): Promise<void> {
  const { login } = session.world.sandbox;
  const res = await session.run(['auth', 'login', '--email', login.email, '--password-stdin'], { stdin: login.password, env });
  expect(res.code, res.stderr).toBe(0);
}

/** The password and the session's cookies reached no argv or output, and no file but the 0600 jar. */
export function expectPasswordAndCookiesKept(session: SessionWorld): void {
  const jarFile = session.jarFile();
  const password = session.world.sandbox.login.password;
  session.witness.expectNever([password, ...jarValues(jarFile)], 'password or cookie');
  expectSecretsOnlyIn(session.world.configDir, jarFile, [...jarValues(jarFile), password]);
}
