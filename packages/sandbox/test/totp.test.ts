// The sandbox's TOTP against RFC 6238's own test vectors (SHA-1 key "12345678901234567890"),
// truncated to the 6 digits PostHog uses, plus drift, replay and backup-code rules.
import { describe, expect, it } from 'vitest';
import { base32Decode, base32Encode, hotp, newBackupCodes, newTotpSecret, totp, verifyTotp } from '../src/totp.js';

const SECRET = base32Encode(Buffer.from('12345678901234567890'));

describe('TOTP (RFC 6238, HMAC-SHA1, 30 s, 6 digits)', () => {
  it('matches the RFC test vectors', () => {
    expect(SECRET).toBe('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ');
    const vectors: Array<[number, string]> = [
      [59, '287082'],
      [1111111109, '081804'],
      [1111111111, '050471'],
      [1234567890, '005924'],
      [2000000000, '279037'],
      [20000000000, '353130'],
    ];
    for (const [seconds, code] of vectors) expect(totp(SECRET, seconds * 1000)).toBe(code);
  });

  it('matches RFC 4226 HOTP values for counters 0 and 1', () => {
    expect(hotp(SECRET, 0)).toBe('755224');
    expect(hotp(SECRET, 1)).toBe('287082');
  });

  it('round-trips base32 and makes 32-character secrets', () => {
    const secret = newTotpSecret();
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(base32Encode(base32Decode(secret))).toBe(secret);
  });

  it('accepts one step of drift, refuses two, and never a step at or before the last used', () => {
    const now = 1_700_000_000_000;
    const step = Math.floor(now / 30_000);
    expect(verifyTotp(SECRET, hotp(SECRET, step), now)).toBe(step);
    expect(verifyTotp(SECRET, hotp(SECRET, step - 1), now)).toBe(step - 1);
    expect(verifyTotp(SECRET, hotp(SECRET, step + 1), now)).toBe(step + 1);
    expect(verifyTotp(SECRET, hotp(SECRET, step - 2), now)).toBeNull();
    expect(verifyTotp(SECRET, hotp(SECRET, step), now, step)).toBeNull();
    expect(verifyTotp(SECRET, hotp(SECRET, step + 1), now, step)).toBe(step + 1);
    expect(verifyTotp(SECRET, 'abcdef', now)).toBeNull();
  });

  it('makes five distinct backup codes of 8 lower-case base32 characters', () => {
    const codes = newBackupCodes();
    expect(new Set(codes).size).toBe(5);
    for (const code of codes) expect(code).toMatch(/^[a-z2-7]{8}$/);
  });
});
