// One-time passwords as django-otp computes them (docs/server-contract.md §12): TOTP per RFC 6238 with
// HMAC-SHA1, 30-second steps from T0 = 0 and 6 digits, one step of drift either way, and a step
// that was used once is never accepted again. Backup codes are django-otp static tokens.
//
// node:crypto's HMAC-SHA1 is all RFC 4226 needs, so the sandbox carries no OTP dependency; the
// CLI never computes codes (people type them), and tests use these same functions.

import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const TOTP_STEP_SECONDS = 30;
export const TOTP_DIGITS = 6;
/** django-otp's TOTPDevice.tolerance default. */
export const TOTP_TOLERANCE = 1;

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 base32 without padding, as authenticator apps expect in otpauth:// URIs. */
export function base32Encode(bytes: Uint8Array): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

export function base32Decode(text: string): Buffer {
  const clean = text.replace(/[\s=]/g, '').toUpperCase();
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const char of clean) {
    const index = BASE32.indexOf(char);
    if (index === -1) throw new Error(`invalid base32 character "${char}"`);
    value = (value << 5) | index;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** A new TOTP key: 20 random bytes (django-otp's default), base32-encoded. */
export function newTotpSecret(): string {
  return base32Encode(randomBytes(20));
}

/** RFC 4226 HOTP with dynamic truncation. */
export function hotp(secret: string, counter: number, digits = TOTP_DIGITS): string {
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac('sha1', base32Decode(secret)).update(message).digest();
  const offset = mac[mac.length - 1] & 0x0f;
  const binary = ((mac[offset] & 0x7f) << 24) | (mac[offset + 1] << 16) | (mac[offset + 2] << 8) | mac[offset + 3];
  return String(binary % 10 ** digits).padStart(digits, '0');
}

/** The step number of a moment (ms since the epoch). */
export function totpStep(nowMs: number): number {
  return Math.floor(nowMs / 1000 / TOTP_STEP_SECONDS);
}

/** The code an authenticator app shows at `nowMs`. */
export function totp(secret: string, nowMs: number): string {
  return hotp(secret, totpStep(nowMs));
}

function sameCode(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * The step a token matches within the tolerance, or null. Steps at or before `lastStep` are
 * refused, so a code cannot be replayed (django-otp's `last_t`).
 */
export function verifyTotp(secret: string, token: string, nowMs: number, lastStep = -1): number | null {
  if (!/^\d{6}$/.test(token)) return null;
  const current = totpStep(nowMs);
  for (let drift = -TOTP_TOLERANCE; drift <= TOTP_TOLERANCE; drift++) {
    const step = current + drift;
    if (step <= lastStep) continue;
    if (sameCode(hotp(secret, step), token)) return step;
  }
  return null;
}

/** django-otp's StaticToken.random_token: 5 random bytes as 8 lower-case base32 characters. */
export function newBackupCode(): string {
  return base32Encode(randomBytes(5)).toLowerCase();
}

/** PostHog makes five backup codes per set. */
export function newBackupCodes(count = 5): string[] {
  const codes = new Set<string>();
  while (codes.size < count) codes.add(newBackupCode());
  return [...codes];
}
