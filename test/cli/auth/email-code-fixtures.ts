// What the tests of a sign-in by e-mailed code share: the codes in the sandbox's outbox, read as a
// person reads their mailbox, and the password step that makes the server mail one.
import type { SessionWorld } from '../session-fixtures.js';

/** `session` is called when a helper runs: the file's world starts in its beforeAll. */
export function emailCodeSteps(session: () => SessionWorld) {
  const sandbox = () => session().world.sandbox;
  const run = (args: string[], stdin?: string) => session().run(args, { stdin });
  const codes = () =>
    sandbox()
      .outbox.filter((m) => m.kind === 'login_code')
      .map((m) => m.code!);
  return {
    sandbox,
    run,
    codes,
    latestCode: () => codes().at(-1)!,
    since: (n: number) => sandbox().requests.slice(n),
    /** The e-mail and password, from stdin: a server that mails codes answers it with exit 4. */
    passwordStep: () => run(['auth', 'login', '--email', sandbox().login.email, '--password-stdin'], sandbox().login.password),
  };
}
