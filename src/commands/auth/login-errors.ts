// What a refused sign-in means (posthog-api.md §11.1, §11.2), worded for a person. Every one is
// an authentication failure (exit 4), although PostHog answers most with a 400: a wrong password
// or code is not a malformed request, and scripts should treat it like a refused key.
import { ApiError, AuthError } from '../../errors.js';

const AGAIN = 'run `hogctl auth login` again';

const REASONS: Record<string, (detail: string) => [string, string]> = {
  invalid_credentials: () => ['wrong e-mail or password', 'check both and try again; after repeated failures PostHog locks the account for a while'],
  not_verified: () => ['the account is waiting for its e-mail address to be verified', 'open the link in the e-mail PostHog just sent (or `hogctl email verify <link>`), then sign in again'],
  sso_enforced: (detail) => [`this account must sign in with SSO: ${detail}`, 'sign in in the browser; for scripts, use a personal API key (`hogctl profile add`)'],
  too_many_failed_attempts: (detail) => [`too many failed sign-ins: ${detail}`, 'wait, then try again with the right password'],
  '2fa_invalid': () => ['the 2FA code was not accepted', `use the current code from your authenticator app (each code works once) or an unused backup code, and ${AGAIN}`],
  '2fa_expired': () => ['the sign-in expired before the 2FA code was given (10 minutes)', AGAIN],
  '2fa_too_many_attempts': () => ['too many 2FA codes tried in a row', `wait a few seconds (the wait doubles after each wrong code), then ${AGAIN}`],
};

export function explainLoginError(err: unknown): unknown {
  if (!(err instanceof ApiError) || !err.server.code) return err;
  const reason = REASONS[err.server.code];
  if (!reason) return err;
  const [message, hint] = reason(err.server.detail ?? '');
  return new AuthError(message, hint);
}
