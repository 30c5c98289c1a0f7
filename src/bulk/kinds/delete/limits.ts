// What PostHog's bulk_delete takes: ids a request, and requests a minute and an hour.
import type { RateWindow } from '../../engine/rate.js';

/** Ids one bulk_delete request carries at most (docs/server-contract.md §6.6). */
export const BULK_DELETE_CHUNK = 1000;

/** PostHog's two delete windows, the default of `--rate` for a deletion. */
export const DELETE_WINDOWS: readonly RateWindow[] = [
  { limit: 480, windowMs: 60_000 },
  { limit: 4800, windowMs: 3_600_000 },
];
