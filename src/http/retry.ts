// When to try a request again, and how long to wait first (ARCHITECTURE.md §2).

export interface RetryPolicy {
  maxRetries: number;
  /** First backoff step; doubles each attempt, with jitter. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** A Retry-After longer than this is not waited for: the command gives up and says when to retry. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxRetries: 5, baseDelayMs: 500, maxDelayMs: 20_000, maxRetryAfterMs: 120_000 };

const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

export function isIdempotent(method: string, override?: boolean): boolean {
  return override ?? IDEMPOTENT.has(method.toUpperCase());
}

/** 429 and 503 are refusals before any work is done, so they are safe to repeat for any method. */
export function retryableStatus(status: number, idempotent: boolean): boolean {
  if (status === 429 || status === 503) return true;
  return idempotent && (status === 502 || status === 504);
}

/** Retry-After as milliseconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, now: number): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined || raw.trim() === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(raw.trim())) return Math.ceil(Number(raw) * 1000);
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Exponential backoff with "equal jitter": half the step fixed, half random, so clients spread out. */
export function backoffDelay(attempt: number, policy: RetryPolicy, random: () => number): number {
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  return Math.round(step / 2 + random() * (step / 2));
}
