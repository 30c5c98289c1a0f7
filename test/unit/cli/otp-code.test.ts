import { describe, expect, it } from 'vitest';
import { checkOtpCode } from '../../../src/cli/otp-code.js';
import { UsageError } from '../../../src/errors.js';

const HINT = 'the code changes every 30 seconds; use the current one';

describe('checkOtpCode', () => {
  it('takes six digits, forgiving the spaces and dashes apps and people put in', () => {
    expect(checkOtpCode('123456', { backupCodes: false })).toBe('123456');
    expect(checkOtpCode(' 123 456 ', { backupCodes: false })).toBe('123456');
    expect(checkOtpCode('123-456', { backupCodes: true })).toBe('123456');
  });

  it('takes a backup code, in lower case, only where one is allowed', () => {
    expect(checkOtpCode('ABCD-EFGH', { backupCodes: true })).toBe('abcdefgh');
    expect(() => checkOtpCode('abcdefgh', { backupCodes: false })).toThrow(
      new UsageError('invalid 2FA code: expected the 6 digits from your authenticator app', HINT),
    );
  });

  it('refuses anything else before it is sent, saying what is expected', () => {
    for (const raw of ['12345', '1234567', 'abcdefg1', 'abcdefgh9']) {
      expect(() => checkOtpCode(raw, { backupCodes: true }), raw).toThrow(
        new UsageError('invalid 2FA code: expected the 6 digits from your authenticator app, or an 8-character backup code', HINT),
      );
    }
  });
});
