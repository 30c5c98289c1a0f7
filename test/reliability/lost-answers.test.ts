// Reliability: writes whose answer is lost after the server carried them out (a connection closed
// by a proxy, or a gateway's 504 while the app finished the work). The change is made every time,
// so the error must say it may have been applied and how to check, never just "failed"; the exit
// code stays 7 (ARCHITECTURE.md §4).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type World } from '../cli/harness.js';
import { type Person, totp, TOTP_STEP_SECONDS } from '@hogctl/sandbox';
import { errorLine, eventually, expectCleanFailure } from './helpers.js';

let world: World;
let clock = Date.now();
let next = 0;
beforeAll(async () => {
  world = await startWorld({ persons: 40, seed: 5, applyDelayMs: 0, now: () => clock });
});
afterAll(async () => {
  await world.close();
});

/** A person no other test in this file touches (with at least two distinct ids when asked). */
function freshPerson(minDistinctIds = 1): Person {
  for (;;) {
    const person = world.sandbox.store.list({}, next++, 1)[0];
    if (!person) throw new Error('the sandbox ran out of persons for this file');
    if (person.distinctIds.length >= minDistinctIds) return person;
  }
}

const LOST = ['drop-after', '504-after'] as const;

async function underFault(kind: (typeof LOST)[number], filter: string, args: string[], env: Record<string, string> = {}) {
  world.sandbox.setFaults(`${kind}=1,${filter}`);
  try {
    return await world.run(args, { env });
  } finally {
    world.sandbox.setFaults();
  }
}

/** The error of a change that was made but not confirmed: exit 7, what may have happened, how to check. */
function expectUnconfirmed(res: Awaited<ReturnType<World['run']>>, change: RegExp, check: string): void {
  expect(res.code).toBe(7);
  expectCleanFailure(world, res);
  expect(errorLine(res)).toMatch(change);
  expect(errorLine(res)).toContain('may or may not have been applied');
  expect(res.stderr).toContain(check);
}

describe.each(LOST)('persons writes whose answer is lost (%s)', (kind) => {
  it('set-prop: the property was set; the error says it may have been set and how to check', async () => {
    const person = freshPerson();
    const res = await underFault(kind, 'path=update_property', ['persons', 'set-prop', person.uuid, 'plan', `lost-${kind}`]);
    expectUnconfirmed(res, new RegExp(`setting plan on person ${person.uuid}`), `hogctl persons get ${person.uuid}`);
    await eventually(() => world.sandbox.store.getByUuid(person.uuid)?.properties.plan === `lost-${kind}`, 'the property was set');
  });

  it('unset-prop: the property was removed; the error says it may have been', async () => {
    const person = freshPerson();
    world.sandbox.store.setProperties(person.id, { doomed: 'yes' });
    const res = await underFault(kind, 'path=delete_property', ['persons', 'unset-prop', person.uuid, 'doomed']);
    expectUnconfirmed(res, new RegExp(`removal of doomed from person ${person.uuid}`), `hogctl persons get ${person.uuid}`);
    await eventually(
      () => !('doomed' in (world.sandbox.store.getByUuid(person.uuid)?.properties ?? { doomed: 1 })),
      'the property was removed',
    );
  });

  it('update: the properties were set; the error says how to check', async () => {
    const person = freshPerson();
    const res = await underFault(kind, 'method=PATCH', ['persons', 'update', person.uuid, '--set', `tier=lost-${kind}`]);
    expectUnconfirmed(res, new RegExp(`update of person ${person.uuid}`), `hogctl persons get ${person.uuid}`);
    await eventually(() => world.sandbox.store.getByUuid(person.uuid)?.properties.tier === `lost-${kind}`, 'the update was applied');
  });

  it('split: the distinct ids were moved off; the error says how to check', async () => {
    const person = freshPerson(2);
    const [main, ...moved] = person.distinctIds;
    const res = await underFault(kind, 'path=/split/', ['persons', 'split', person.uuid, '--main-distinct-id', main, '--yes']);
    expectUnconfirmed(res, new RegExp(`split of person ${person.uuid}`), `hogctl persons get ${person.uuid}`);
    await eventually(() => world.sandbox.store.getByUuid(person.uuid)?.distinctIds.join() === main, `${moved.join(', ')} moved off`);
  });
});

// The deletions of a person's events and recordings, whose requests are retried when the answer is
// lost (15 s of backoff each on the real clock), run on virtual time:
// test/cli/persons/delete-events.lost-answers.test.ts.

describe('users 2fa writes whose answer is lost', () => {
  const account = () => world.sandbox.identity.byEmail(world.sandbox.twoFactorUser.email)!;
  let configDir: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    // The 2FA user's own session, in a config dir of its own.
    configDir = mkdtempSync(join(tmpdir(), 'hogctl-lost-2fa-'));
    env = { HOGCTL_CONFIG_DIR: configDir };
    const user = world.sandbox.twoFactorUser;
    clock += TOTP_STEP_SECONDS * 1000;
    const login = await world.run(['auth', 'login', '--email', user.email, '--password-stdin', '--code', totp(user.totpSecret, clock)], {
      stdin: user.password,
      env,
    });
    expect(login.code).toBe(0);
  });
  afterAll(() => rmSync(configDir, { recursive: true, force: true }));

  it.each(LOST)(
    'backup-codes (%s): the old codes were replaced; the error says they may no longer work and how to get new ones',
    async (kind) => {
      const before = [...account().backupCodes];
      const res = await underFault(kind, 'path=two_factor_backup_codes', ['users', '2fa', 'backup-codes', '--yes'], env);
      expectUnconfirmed(res, /replacement of the backup codes of totp@example\.com/, 'hogctl users 2fa backup-codes');
      expect(res.stderr).toContain('the old backup codes no longer work');
      expect(account().backupCodes).toHaveLength(5);
      expect(account().backupCodes.some((c) => before.includes(c))).toBe(false);
      // None of the new codes was ever shown.
      for (const code of account().backupCodes) expect(res.stdout + res.stderr).not.toContain(code);
    },
  );

  it.each(LOST)('disable (%s): 2FA was turned off; the error says how to check', async (kind) => {
    // Each run starts with 2FA on (the device as it was, so the session stays valid).
    account().totp ??= { secret: world.sandbox.twoFactorUser.totpSecret, lastStep: -1, persistentId: 'reliability' };
    const res = await underFault(kind, 'path=two_factor_disable', ['users', '2fa', 'disable', '--yes'], env);
    expectUnconfirmed(res, /turning 2FA off for totp@example\.com/, 'hogctl users 2fa status');
    expect(account().totp).toBeNull();
  });
});
