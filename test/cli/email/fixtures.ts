// What the e-mail tests read of the sandbox's outbox, as a person reads their mailbox, and the
// change of address that starts each verification.
import { expect } from 'vitest';
import type { SessionWorld } from '../session-fixtures.js';

export function mailbox(session: SessionWorld) {
  const sandbox = session.world.sandbox;
  const uuid = () => sandbox.world.user.uuid;
  /** The newest verification code PostHog mailed. */
  const lastCode = () => sandbox.outbox.filter((m) => m.kind === 'email_verification_code').at(-1)!.code!;
  return {
    uuid,
    account: () => sandbox.identity.byUuid(uuid())!,
    since: (n: number) => sandbox.requests.slice(n),
    lastMail: () => sandbox.outbox.at(-1)!,
    lastCode,
    /** A 6-digit code that is not the right one. */
    wrongCode: () => (lastCode() === '000000' ? '111111' : '000000'),
    /** `users update --field email=<address>`: the address is pending, and a code (or link) mailed. */
    changeEmailTo: async (address: string) => {
      const res = await session.run(['users', 'update', '--field', `email=${address}`]);
      expect(res.code).toBe(0);
      expect(sandbox.identity.byUuid(uuid())!.pendingEmail).toBe(address);
    },
  };
}
