// What a person needs to add a PostHog account to an authenticator app: a QR code of the
// otpauth:// URI (docs/server-contract.md §11.4), the secret to type by hand, and the URI itself. And what
// a refused validation means.
import { ApiError, AuthError } from '../../../../errors.js';
import { otpauthUri } from '../../../../api/users.js';
import { qrLines } from './qr.js';

export const SETUP_INTRO = 'add PostHog to your authenticator app: scan the QR code, or type the secret by hand';

/**
 * The QR code (on a terminal), then the secret and the URI for typing by hand: 20 + 1 + 2
 * lines at 80 columns, so that the code stays whole on an 80×24 screen with the prompt below.
 * Anything else to say goes before it, on stderr.
 */
export async function setupText(email: string, secret: string, options: { qr: boolean; columns?: number }): Promise<string> {
  const uri = otpauthUri(email, secret);
  const lines: string[] = [];
  const code = options.qr ? await qrLines(uri) : [];
  const width = code.length > 0 ? code[0].replace(/\u001b\[[0-9;]*m/g, '').length : 0;
  // A code wider than the terminal wraps and cannot be scanned: say so rather than draw it.
  if (code.length > 0 && options.columns && options.columns < width) {
    lines.push(
      `(the QR code needs ${width} columns and the terminal has ${options.columns}: widen it and run again, or type the secret)`,
      `account: PostHog:${email}`,
    );
  } else if (code.length > 0) {
    lines.push(...code);
  } else {
    lines.push(`account: PostHog:${email}`);
  }
  lines.push(`secret:  ${secret}`, `URI:     ${uri}`);
  return `${lines.join('\n')}\n`;
}

export const SECRET_WARNING =
  'the secret is a credential: whoever has it can make your 2FA codes; do not paste it into tickets, chat or logs';

/** token_invalid and setup_expired are failed authentications, not malformed requests: exit 4. */
export function explainValidateError(err: unknown): unknown {
  if (!(err instanceof ApiError)) return err;
  if (err.server.code === 'token_invalid') {
    return new AuthError(
      'the 2FA code was not accepted',
      'use the current code of the new PostHog entry in your authenticator app (it changes every 30 seconds); check the device clock if it keeps failing',
    );
  }
  if (err.server.code === 'setup_expired') {
    return new AuthError(
      '2FA setup expired, or was not started in this session',
      'run `hogctl users 2fa start` again and validate within 10 minutes, with the same profile (the setup lives in the signed-in session)',
    );
  }
  return err;
}
