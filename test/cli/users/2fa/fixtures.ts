// 2FA set up in this process (test/cli/session-fixtures.ts), and the check that the TOTP secrets
// and backup codes a test was shown on stdout, because it asked for them, went nowhere else.
import { expect } from 'vitest';
import { totp } from '@hogctl/sandbox';
import { expectSecretsOnlyIn, jarValues, Witness } from '../../../e2e/secrets.js';
import type { SessionWorld } from '../../session-fixtures.js';

/** `users 2fa start -o json`: the secret, checked to be on stdout only. */
export async function startSetup(session: SessionWorld): Promise<string> {
  const res = await session.run(['users', '2fa', 'start', '-o', 'json', '--debug']);
  expect(res.code).toBe(0);
  const record = JSON.parse(res.stdout);
  expect(record).toMatchObject({ user: '@me', email: 'sandbox@example.com', expires_in_seconds: 600 });
  expect(record.otpauth_uri).toBe(`otpauth://totp/PostHog:sandbox@example.com?secret=${record.secret}&issuer=PostHog`);
  expect(res.stderr).toContain('warning: the secret is a credential');
  expect(res.stderr).not.toContain(record.secret);
  return record.secret;
}

/** 2FA turned on with `start` and `validate`; the secret. */
export async function turnOn(session: SessionWorld): Promise<string> {
  const secret = await startSetup(session);
  const res = await session.run(['users', '2fa', 'validate', totp(secret, session.now())]);
  expect(res.code, res.stderr).toBe(0);
  return secret;
}

/** No secret or code in argv or on stderr, nor on disk outside the session file. */
export function expectShownOnlyOnStdout(session: SessionWorld, shownSecrets: string[], shownCodes: string[]): void {
  const { witness, world } = session;
  const stderrs = new Witness();
  stderrs.argvs.push(...witness.argvs);
  // The witness keeps each run's stdout and stderr, in that order.
  expect(witness.texts.length % 2).toBe(0);
  for (let i = 1; i < witness.texts.length; i += 2) stderrs.saw(witness.texts[i]);
  if (shownSecrets.length) stderrs.expectNever(shownSecrets, 'TOTP secret');
  if (shownCodes.length) stderrs.expectNever(shownCodes, 'backup code');
  const jarFile = session.jarFile();
  expectSecretsOnlyIn(world.configDir, jarFile, [...jarValues(jarFile), ...shownSecrets, ...shownCodes, world.sandbox.login.password]);
}
