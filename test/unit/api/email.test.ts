// The link in PostHog's verification e-mail (docs/server-contract.md §10): uuid and token from the last
// two path segments, with or without ?next=, under a path prefix, or rejected with a clear word.
import { describe, expect, it } from 'vitest';
import { parseVerificationLink } from '../../../src/api/email.js';
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
