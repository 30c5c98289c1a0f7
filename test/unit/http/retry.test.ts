import { describe, expect, it } from 'vitest';
import { backoffDelay, DEFAULT_RETRY, isIdempotent, parseRetryAfter, retryableStatus } from '../../../src/http/retry.js';

describe('isIdempotent', () => {
  it('treats GET, HEAD, OPTIONS, PUT and DELETE as safe to repeat, POST and PATCH not', () => {
    expect(['GET', 'head', 'OPTIONS', 'PUT', 'delete'].map((m) => isIdempotent(m))).toEqual([true, true, true, true, true]);
    expect(isIdempotent('POST')).toBe(false);
    expect(isIdempotent('PATCH')).toBe(false);
  });

  it('lets the caller override either way', () => {
    expect(isIdempotent('POST', true)).toBe(true);
    expect(isIdempotent('GET', false)).toBe(false);
  });
});

describe('retryableStatus', () => {
  it('retries 429 and 503 for any method', () => {
    expect(retryableStatus(429, false)).toBe(true);
    expect(retryableStatus(503, false)).toBe(true);
  });

  it('retries 502 and 504 only for idempotent requests', () => {
    expect(retryableStatus(502, true)).toBe(true);
    expect(retryableStatus(504, true)).toBe(true);
    expect(retryableStatus(502, false)).toBe(false);
    expect(retryableStatus(504, false)).toBe(false);
  });

  it('never retries 500 or client errors', () => {
    for (const status of [400, 401, 403, 404, 409, 500]) expect(retryableStatus(status, true)).toBe(false);
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2025-01-01T00:00:00Z');

  it('reads delta-seconds as milliseconds, rounding up', () => {
    expect(parseRetryAfter('7', now)).toBe(7000);
    expect(parseRetryAfter(' 12 ', now)).toBe(12000);
    expect(parseRetryAfter('0.25', now)).toBe(250);
    expect(parseRetryAfter(['3', '9'], now)).toBe(3000);
  });

  it('reads an HTTP date relative to now, never negative', () => {
    expect(parseRetryAfter('Wed, 01 Jan 2025 00:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Tue, 31 Dec 2024 23:59:00 GMT', now)).toBe(0);
  });

  it('is undefined when absent or unreadable', () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter('', now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
  });
});

describe('backoffDelay', () => {
  const policy = { ...DEFAULT_RETRY, baseDelayMs: 500, maxDelayMs: 4000 };

  it('is half the step plus a random half, the step doubling each attempt', () => {
    expect(backoffDelay(0, policy, () => 0)).toBe(250);
    expect(backoffDelay(0, policy, () => 1)).toBe(500);
    expect(backoffDelay(1, policy, () => 0.5)).toBe(750);
    expect(backoffDelay(2, policy, () => 0)).toBe(1000);
    expect(backoffDelay(2, policy, () => 1)).toBe(2000);
  });

  it('caps the step at maxDelayMs', () => {
    expect(backoffDelay(10, policy, () => 1)).toBe(4000);
    expect(backoffDelay(10, policy, () => 0)).toBe(2000);
  });
});
