// What a refused sign-in step says. A 429 during the second factor or the e-mailed code step
// (TwoFactorThrottle, 6 per 20 minutes; docs/server-contract.md §11.2) means "wait", never "wrong code".
import { describe, expect, it } from 'vitest';
import { explainLoginError } from '../../../../../src/commands/auth/shared/login-errors.js';
import { describeHttpError } from '../../../../../src/http/describe-error.js';
import { AuthError, RateLimitedError } from '../../../../../src/errors.js';

const throttled = (seconds: number) =>
  describeHttpError('POST', 'https://eu.posthog.com/api/login/token/', 429, {
    type: 'throttled_error',
    code: 'throttled',
    detail: `Request was throttled. Expected available in ${seconds} seconds.`,
    attr: null,
  });

describe('explainLoginError', () => {
  it('a 429 on the 2FA or code step says how many minutes to wait (exit 6), rounded up', () => {
    for (const [seconds, words] of [
      [540, 'wait 9 minutes'],
      [61, 'wait 2 minutes'],
      [20, 'wait 1 minute'],
    ] as const) {
      const err = explainLoginError(throttled(seconds)) as RateLimitedError;
      expect(err).toBeInstanceOf(RateLimitedError);
      expect(err.message).toBe(`too many attempts: ${words} before trying again`);
      expect(err.message).not.toMatch(/code|invalid/i);
    }
  });

  it('the same after the client gave up on a long Retry-After', () => {
    const err = explainLoginError(
      new RateLimitedError(
        'POST /api/login/code-based-verification/ failed with 429 throttled: Request was throttled. Expected available in 1200 seconds.',
      ),
    );
    expect((err as Error).message).toBe('too many attempts: wait 20 minutes before trying again');
  });

  it('a wrong e-mailed code and a cancelled sign-in are authentication failures (exit 4)', () => {
    const wrong = explainLoginError(
      describeHttpError('POST', 'https://eu.posthog.com/api/login/code-based-verification/', 400, {
        type: 'validation_error',
        code: 'invalid_code',
        detail: 'x',
        attr: null,
      }),
    );
    expect(wrong).toBeInstanceOf(AuthError);
    expect((wrong as Error).message).toMatch(/^the e-mailed code was not accepted/);
    const cancelled = explainLoginError(
      describeHttpError('POST', 'https://eu.posthog.com/api/login/code-based-verification/', 400, {
        type: 'validation_error',
        code: 'too_many_attempts',
        detail: 'x',
        attr: null,
      }),
    );
    expect((cancelled as Error).message).toBe('too many wrong codes: PostHog cancelled this sign-in');
  });
});
