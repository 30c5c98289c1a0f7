// DRF-style throttling (docs/server-contract.md §5). Each throttle class is one or more sliding windows
// ("scopes" in DRF terms), each counted per credential: a hash of the personal API key, or the
// user for sessions. As in DRF's `check_throttles`, every window of the class is evaluated, the
// ones that pass record the request, and when any fails the longest wait is reported (rounded
// up by the error helper). Off unless configured, because real self-hosted servers default to
// RATE_LIMIT_ENABLED=false and most tests want speed, not 429s.

import { throttled } from './errors.js';

/**
 * Which limits a request counts against. `default` = views without their own throttles
 * (projects), `delete` = persons destroy/bulk_delete/delete_events/delete_recordings, `read` =
 * every other persons action (ClickHouse burst), `query` = HogQL queries, `web` = persons via a
 * session, `password` = user changes carrying current_password, `deletion_create` and
 * `deletion_preview` = creating and previewing data deletion requests (counted per project, not
 * per caller: data-deletion.ts).
 */
export type ThrottleClass = 'default' | 'delete' | 'read' | 'query' | 'web' | 'password' | 'deletion_create' | 'deletion_preview';

export interface Rate {
  /** DRF throttle scope; windows with the same scope share a bucket across classes. */
  scope: string;
  limit: number;
  windowMs: number;
}

export type RateConfig = Map<ThrottleClass, Rate[]>;

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** PostHog Cloud's limits for personal API keys (and the web limits for sessions). */
export const CLOUD_RATES: Record<ThrottleClass, Rate[]> = {
  default: [
    { scope: 'burst', limit: 480, windowMs: MINUTE },
    { scope: 'sustained', limit: 4800, windowMs: HOUR },
  ],
  delete: [
    { scope: 'persons_delete_burst', limit: 480, windowMs: MINUTE },
    { scope: 'persons_delete_sustained', limit: 4800, windowMs: HOUR },
  ],
  read: [{ scope: 'clickhouse_burst', limit: 240, windowMs: MINUTE }],
  query: [
    { scope: 'api_queries_burst', limit: 240, windowMs: MINUTE },
    { scope: 'api_queries_sustained', limit: 2400, windowMs: HOUR },
  ],
  web: [
    { scope: 'persons_web_burst', limit: 180, windowMs: MINUTE },
    { scope: 'persons_web_sustained', limit: 1200, windowMs: HOUR },
  ],
  password: [{ scope: 'user_authentication', limit: 5, windowMs: MINUTE }],
  // posthog/api/data_deletion_request.py (PR #104278): DataDeletionCreateThrottle,
  // DataDeletionPreviewBurstThrottle, DataDeletionPreviewSustainedThrottle.
  deletion_create: [{ scope: 'data_deletion_create', limit: 10, windowMs: HOUR }],
  deletion_preview: [
    { scope: 'data_deletion_preview_burst', limit: 5, windowMs: MINUTE },
    { scope: 'data_deletion_preview_sustained', limit: 30, windowMs: HOUR },
  ],
};

const CLASS_ALIASES: Record<string, ThrottleClass> = {
  default: 'default',
  projects: 'default',
  crud: 'default',
  delete: 'delete',
  deletes: 'delete',
  read: 'read',
  persons: 'read',
  query: 'query',
  hogql: 'query',
  web: 'web',
  session: 'web',
  password: 'password',
  deletion_create: 'deletion_create',
  deletion_preview: 'deletion_preview',
};

const UNITS: Record<string, number> = {
  s: SECOND,
  sec: SECOND,
  second: SECOND,
  seconds: SECOND,
  m: MINUTE,
  min: MINUTE,
  minute: MINUTE,
  minutes: MINUTE,
  h: HOUR,
  hour: HOUR,
  hours: HOUR,
  d: DAY,
  day: DAY,
  days: DAY,
};

export const RATE_LIMIT_SYNTAX =
  `'off' | 'cloud' | N (every class N/minute, hourly limits dropped) | class=rate,... ` +
  `where class is ${Object.keys(CLOUD_RATES).join('|')}, rate is N, N/s, N/min, N/hour, N/day or a window of any ` +
  `length such as N/10s or N/5min, several joined with + or listed after the class (e.g. delete=8/1s,80/10s), or off`;

function parseRate(text: string, spec: string): { limit: number; windowMs: number } {
  // "80/10s": any number of units, so tests can scale an hour down to seconds.
  const m = /^(\d+)(?:\/(\d+)?([a-z]+))?$/.exec(text.trim());
  const unit = m ? (m[3] === undefined ? MINUTE : UNITS[m[3]]) : undefined;
  const times = m?.[2] === undefined ? 1 : Number(m[2]);
  if (!m || unit === undefined || Number(m[1]) <= 0 || times <= 0) {
    throw new Error(`invalid rate limit spec "${spec}": "${text}" is not a rate like 600, 10/s, 80/10s or 5000/hour`);
  }
  return { limit: Number(m[1]), windowMs: unit * times };
}

function ratesFor(cls: ThrottleClass, value: string, spec: string): Rate[] {
  if (value.trim() === 'off') return [];
  return value.split('+').map((part, i) => ({ scope: CLOUD_RATES[cls][i]?.scope ?? `${cls}_${i}`, ...parseRate(part, spec) }));
}

/** Parses the `rateLimit` option; null means throttling is off. See RATE_LIMIT_SYNTAX. */
export function parseRateLimitSpec(spec: string | undefined): RateConfig | null {
  if (spec === undefined) return null;
  const tokens = spec
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  if (tokens.length === 0 || (tokens.length === 1 && ['off', 'false', 'none'].includes(tokens[0]))) return null;
  const config: RateConfig = new Map(
    Object.entries(CLOUD_RATES).map(([cls, rates]) => [cls as ThrottleClass, rates.map((r) => ({ ...r }))]),
  );
  let last: ThrottleClass | undefined;
  tokens.forEach((token, index) => {
    const eq = token.indexOf('=');
    if (eq === -1 && last && token !== 'off') {
      // "delete=8/1s,80/10s": a rate after class=rate is another window of that class.
      const rates = config.get(last)!;
      rates.push({ scope: CLOUD_RATES[last][rates.length]?.scope ?? `${last}_${rates.length}`, ...parseRate(token, spec) });
      return;
    }
    if (eq === -1) {
      if (index !== 0)
        throw new Error(`invalid rate limit spec "${spec}": "${token}" must come first or be class=rate (${RATE_LIMIT_SYNTAX})`);
      if (token === 'cloud') return;
      // A bare rate sets the short window of every class and drops the long ones.
      for (const cls of config.keys()) config.set(cls, ratesFor(cls, token, spec).slice(0, 1));
      return;
    }
    const name = token.slice(0, eq).trim();
    const cls = CLASS_ALIASES[name];
    if (!cls) throw new Error(`invalid rate limit spec "${spec}": unknown class "${name}" (${RATE_LIMIT_SYNTAX})`);
    config.set(cls, ratesFor(cls, token.slice(eq + 1), spec));
    last = cls;
  });
  return config;
}

/** Timestamps of one bucket, oldest first; `start` skips expired entries without shifting. */
interface History {
  times: number[];
  start: number;
}

export class RateLimiter {
  private readonly buckets = new Map<string, History>();

  constructor(
    private config: RateConfig | null,
    private readonly now: () => number,
  ) {}

  get enabled(): boolean {
    return this.config !== null;
  }

  /** Replaces the limits (tests switch them at run time); keeps nothing of the old counts. */
  configure(config: RateConfig | null): void {
    this.config = config;
    this.buckets.clear();
  }

  /** Counts one request of `ident` against `cls`; throws the 429 ErrorResponse when over a limit. */
  check(cls: ThrottleClass, ident: string): void {
    const rates = this.config?.get(cls);
    if (!rates || rates.length === 0) return;
    const now = this.now();
    const waits: number[] = [];
    for (const rate of rates) {
      const key = `${rate.scope}|${rate.limit}/${rate.windowMs}|${ident}`;
      let history = this.buckets.get(key);
      if (!history) this.buckets.set(key, (history = { times: [], start: 0 }));
      while (history.start < history.times.length && history.times[history.start] <= now - rate.windowMs) history.start++;
      if (history.start > 1024 && history.start * 2 > history.times.length) {
        history.times = history.times.slice(history.start);
        history.start = 0;
      }
      const count = history.times.length - history.start;
      if (count >= rate.limit) {
        // DRF SimpleRateThrottle.wait(): time until the oldest request leaves the window, spread
        // over the requests still available (1 when exactly at the limit).
        const oldest = history.times[history.start];
        const remaining = rate.windowMs - (now - oldest);
        const available = rate.limit - count + 1;
        waits.push(available > 0 ? remaining / available : remaining);
      } else {
        history.times.push(now);
      }
    }
    if (waits.length > 0) throw throttled(Math.max(...waits) / 1000);
  }
}
