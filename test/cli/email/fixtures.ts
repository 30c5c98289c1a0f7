// What the e-mail tests read of the sandbox's outbox, as a person reads their mailbox, and the
// change of address that starts each verification.
import { expect } from 'vitest';
import type { SessionWorld } from '../session-fixtures.js';

/** Reads the session's sandbox when called, so that it may be made before the session starts. */
export function mailbox(session: SessionWorld) {
  const sb = () => session.world.sandbox;
  const uuid = () => sb().world.user.uuid;
  /** The newest verification code PostHog mailed. */
  const lastCode = () =>
    sb()
      .outbox.filter((m) => m.kind === 'email_verification_code')
      .at(-1)!.code!;
  return {
    uuid,
    account: () => sb().identity.byUuid(uuid())!,
    since: (n: number) => sb().requests.slice(n),
    lastMail: () => sb().outbox.at(-1)!,
    lastCode,
    /** A 6-digit code that is not the right one. */
    wrongCode: () => (lastCode() === '000000' ? '111111' : '000000'),
    /** `users update --field email=<address>`: the address is pending, and a code (or link) mailed. */
    changeEmailTo: async (address: string) => {
      const res = await session.run(['users', 'update', '--field', `email=${address}`]);
      expect(res.code).toBe(0);
      expect(sb().identity.byUuid(uuid())!.pendingEmail).toBe(address);
    },
  };
}
