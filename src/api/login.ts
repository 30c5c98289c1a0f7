// Thin typed calls for signing in with a session (posthog-api.md §11.1, §11.2). The client
// carries the session jar, so every Set-Cookie (the 401 `2fa_required` one too) is kept.
import type { ApiClient } from '../http/client.js';
import { describeHttpError } from '../http/describe-error.js';

/** The password step; true when the server wants a second factor. */
export async function loginPassword(client: ApiClient, email: string, password: string): Promise<{ twoFactorRequired: boolean }> {
  const res = await client.post<{ code?: string }>('/api/login/', { email, password }, { acceptStatus: (s) => s === 401 });
  if (res.status === 401 && res.body?.code !== '2fa_required') throw describeHttpError('POST', res.url, res.status, res.body);
  return { twoFactorRequired: res.status === 401 };
}

/** The second factor: a TOTP code or an unused backup code. */
export async function loginToken(client: ApiClient, token: string): Promise<void> {
  await client.post('/api/login/token/', { token });
}
