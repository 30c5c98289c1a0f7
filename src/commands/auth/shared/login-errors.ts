// What a refused sign-in means (docs/server-contract.md §11.1, §11.2), worded for a person. Every one is
// an authentication failure (exit 4), although PostHog answers most with a 400: a wrong password
// or code is not a malformed request, and scripts should treat it like a refused key.
import { ApiError, AuthError, RateLimitedError } from '../../../errors.js';
import { counted } from '../../../io/counts.js';

const AGAIN = 'run `hogctl auth login` again';

const REASONS: Record<string, (detail: string) => [string, string]> = {
  invalid_credentials: () => [
    'wrong e-mail or password',
    'check both and try again; after repeated failures PostHog locks the account for a while',
  ],
  not_verified: () => [
    'the account is waiting for its e-mail address to be verified',
    'PostHog just e-mailed a 6-digit code (older servers: a link): give it with `hogctl email verify <code> --uuid <uuid>` (the uuid is in the address of the verification page), then sign in again',
  ],
  sso_enforced: (detail) => [
    `this account must sign in with SSO: ${detail}`,
    'sign in in the browser; for scripts, use a personal API key (`hogctl profile add`)',
  ],
  too_many_failed_attempts: (detail) => [`too many failed sign-ins: ${detail}`, 'wait, then try again with the right password'],
  '2fa_invalid': () => [
    'the 2FA code was not accepted',
    `use the current code from your authenticator app (each code works once) or an unused backup code, and ${AGAIN}`,
  ],
  '2fa_expired': () => ['the sign-in expired before the 2FA code was given (10 minutes)', AGAIN],
  '2fa_too_many_attempts': () => [
    'too many 2FA codes tried in a row',
    `wait a few seconds (the wait doubles after each wrong code), then ${AGAIN}`,
  ],
  invalid_code: () => [
    'the e-mailed code was not accepted: it is wrong, was replaced by a newer one, or is older than 10 minutes',
    'use the code from the latest e-mail with `hogctl auth login --email-code <code>`, or get a new one with `hogctl auth login --resend-code`',
  ],
  too_many_attempts: () => ['too many wrong codes: PostHog cancelled this sign-in', `${AGAIN} (PostHog e-mails a new code)`],
  no_pending_verification: () => [
    'no sign-in is waiting for an e-mailed code on the server (it expired, or was finished or cancelled)',
    AGAIN,
  ],
};

/** "Expected available in 540 seconds." → minutes to wait, rounded up. */
function waitMinutes(text: string): number | undefined {
  const seconds = /available in (\d+) seconds?/.exec(text)?.[1];
  return seconds === undefined ? undefined : Math.max(1, Math.ceil(Number(seconds) / 60));
}

export function explainLoginError(err: unknown): unknown {
  // A throttled code step is a reason to wait, not a wrong code (TwoFactorThrottle, 6 per 20 minutes).
  if (err instanceof RateLimitedError || (err instanceof ApiError && err.status === 429)) {
    const minutes = waitMinutes(err.message);
    return new RateLimitedError(
      `too many attempts: wait ${minutes === undefined ? 'a few minutes' : counted(minutes, 'minute')} before trying again`,
      'PostHog limits how often codes may be tried or sent',
    );
  }
  if (!(err instanceof ApiError) || !err.server.code) return err;
  const reason = REASONS[err.server.code];
  if (!reason) return err;
  const [message, hint] = reason(err.server.detail ?? '');
  return new AuthError(message, hint);
}
