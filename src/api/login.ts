// Thin typed calls for signing in with a session (docs/server-contract.md §11.1, §11.2, §11.5). The client
// carries the session jar, so every Set-Cookie (the 401 ones too) is kept: the pending sign-in
// of the second factor and of the e-mailed code lives in the session cookie they set.
import type { ApiClient } from '../http/client.js';
import { describeHttpError } from '../http/describe-error.js';

/** Sign-in steps are never repeated on their own: a repeated password step mails another code,
 * and a throttled code step must say "wait", not wait silently. */
const ONCE = { retry: { maxRetries: 0 } };

/** What the password step asks for next. `code_emailed` carries the address the code went to. */
export type PasswordOutcome = { next: 'done' } | { next: 'totp' } | { next: 'code_emailed'; email: string };

/** The password step. Each call e-mails a new code to accounts without TOTP: never repeat it on
 * one's own. */
export async function loginPassword(client: ApiClient, email: string, password: string): Promise<PasswordOutcome> {
  const res = await client.post<{ code?: string; detail?: string }>(
    '/api/login/',
    { email, password },
    { ...ONCE, acceptStatus: (s) => s === 401 },
  );
  if (res.status !== 401) return { next: 'done' };
  if (res.body?.code === '2fa_required') return { next: 'totp' };
  if (res.body?.code === 'code_based_verification_required') return { next: 'code_emailed', email: res.body.detail || email };
  throw describeHttpError('POST', res.url, res.status, res.body);
}

/** The second factor: a TOTP code or an unused backup code. */
export async function loginToken(client: ApiClient, token: string): Promise<void> {
  await client.post('/api/login/token/', { token }, ONCE);
}

/** The code PostHog e-mailed after the password step. */
export async function loginEmailCode(client: ApiClient, code: string): Promise<void> {
  await client.post('/api/login/code-based-verification/', { code }, ONCE);
}

/** Mails a fresh code (at most once a minute) and invalidates the previous one. */
export async function resendLoginCode(client: ApiClient): Promise<void> {
  await client.post('/api/login/code-based-verification/resend/', undefined, ONCE);
}
