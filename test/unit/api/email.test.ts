// The code in PostHog's verification e-mail, and the link older servers mail (docs/server-contract.md §10):
// the code as the server normalizes it; uuid and token from the link's last
// two path segments, with or without ?next=, under a path prefix, or rejected with a clear word.
import { describe, expect, it } from 'vitest';
import { checkVerificationCode, parseVerificationLink } from '../../../src/api/email.js';
import { thrown } from '../helpers.js';

const UUID = '0190c0de-aaaa-7bbb-8ccc-000000000001';

describe('parseVerificationLink', () => {
  it('reads the site, the uuid and the token', () => {
    expect(parseVerificationLink(`https://us.posthog.com/verify_email/${UUID}/c5x2ab-3f9e0a1b2c3d`)).toEqual({
      origin: 'https://us.posthog.com',
      uuid: UUID,
      token: 'c5x2ab-3f9e0a1b2c3d',
    });
  });

  it('keeps ?next=, accepts a trailing slash, a path prefix, and spaces around a pasted link', () => {
    expect(parseVerificationLink(`  http://localhost:8010/posthog/verify_email/${UUID}/tok-1/?next=/project/1  \n`)).toEqual({
      origin: 'http://localhost:8010',
      uuid: UUID,
      token: 'tok-1',
      next: '/project/1',
    });
  });

  it('rejects what is not a verification link', () => {
    expect(thrown(() => parseVerificationLink('not a url')).message).toContain('not a verification link');
    expect(thrown(() => parseVerificationLink(`https://us.posthog.com/verify/${UUID}/tok`)).message).toContain(
      'has no /verify_email/<uuid>/<token>',
    );
    expect(thrown(() => parseVerificationLink('https://us.posthog.com/verify_email/not-a-uuid/tok')).message).toBe(
      'invalid user uuid "not-a-uuid"',
    );
    expect(thrown(() => parseVerificationLink(`ftp://us.posthog.com/verify_email/${UUID}/tok`)).exitCode).toBe(2);
  });
});

describe('checkVerificationCode', () => {
  it('reads the code as PostHog does: spaces, invisible characters and grouping hyphens go, other digits fold', () => {
    expect(checkVerificationCode('123456')).toBe('123456');
    expect(checkVerificationCode(' 123 456\n')).toBe('123456');
    expect(checkVerificationCode('123-456')).toBe('123456');
    expect(checkVerificationCode('123\u200b456')).toBe('123456');
    expect(checkVerificationCode('１２３４５６')).toBe('123456');
  });

  it('refuses anything but six digits with a usage error', () => {
    for (const bad of ['12345', '1234567', '12a456', '', 'https://us.posthog.com/verify_email/x/y']) {
      const err = thrown(() => checkVerificationCode(bad));
      expect(err.exitCode).toBe(2);
      expect(err.message).toContain('expected the 6 digits from the e-mail');
    }
  });
});
