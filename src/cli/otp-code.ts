// The codes people type for 2FA: six digits from an authenticator app, or (when signing in) an
// 8-character backup code. Checked before anything is sent; spaces and dashes are forgiven
// because apps show "123 456" and people copy "abcd-efgh".
import { UsageError } from '../errors.js';

export function checkOtpCode(raw: string, options: { backupCodes: boolean }): string {
  const code = raw.replace(/[\s-]/g, '');
  if (/^\d{6}$/.test(code)) return code;
  if (options.backupCodes && /^[a-z2-7]{8}$/i.test(code)) return code.toLowerCase();
  throw new UsageError(
    options.backupCodes
      ? 'invalid 2FA code: expected the 6 digits from your authenticator app, or an 8-character backup code'
      : 'invalid 2FA code: expected the 6 digits from your authenticator app',
    'the code changes every 30 seconds; use the current one',
  );
}
