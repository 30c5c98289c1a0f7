// Self-service event deletion requests (`data_deletion_requests`), as PostHog/posthog PR #104278
// keeps them: posthog/models/data_deletion_request.py (`DataDeletionRequest`, `RequestStatus`),
// posthog/data_deletion.py (`create_event_deletion_request`, `ACTIVE_REQUEST_STATUSES`,
// `MAX_ACTIVE_REQUESTS_PER_TEAM`) and posthog/dags/data_deletion_requests.py (pickup, queue,
// verify). The routes are routes/data-deletion-requests.ts; the query checks
// data-deletion-query.ts.
//
// A request is created `pending`. On PostHog, staff approve it in Django admin, a Dagster sensor
// picks it up (`approved` → `in_progress`), runs the stored query once and inserts the selected
// UUIDs into `adhoc_events_deletion` (`queued`); the weekly deletes job removes those events and
// a verifier marks the request `completed`. The sandbox does the approval and the pickup in one
// step through `/_sandbox/` (`approve`), so the event set is fixed at that moment, as PostHog's
// is at queue time, and `runWeekly` plays the deletes job and the verifier.

import { formatTimestampUs } from './store.js';

export type RequestStatus = 'draft' | 'pending' | 'approved' | 'in_progress' | 'queued' | 'completed' | 'failed';

/** `ACTIVE_REQUEST_STATUSES`: what counts towards the five active requests. */
const ACTIVE_STATUSES: ReadonlySet<RequestStatus> = new Set(['pending', 'approved', 'in_progress', 'queued']);

export const MAX_ACTIVE_REQUESTS_PER_TEAM = 5;

export interface DataDeletionRequest {
  id: string;
  teamId: number;
  status: RequestStatus;
  query: string;
  variables: Record<string, unknown>;
  submissionId: string;
  count: number | null;
  createdById: number;
  createdByStaff: boolean;
  createdAtMs: number;
  updatedAtMs: number;
  approvedAtMs: number | null;
  statsCalculatedAtMs: number | null;
  /** The event UUIDs queued at pickup (`adhoc_events_deletion`); null before. */
  queued: Set<string> | null;
}

export interface NewRequest {
  teamId: number;
  query: string;
  variables: Record<string, unknown>;
  submissionId: string;
  createdById: number;
  createdByStaff: boolean;
}

/** A UUIDv7 (time-ordered, as PostHog's UUIDT ids are) from the clock and a counter. */
function timeOrderedUuid(ms: number, counter: number): string {
  const time = Math.floor(ms).toString(16).padStart(12, '0').slice(-12);
  const rand = counter.toString(16).padStart(15, '0').slice(-15);
  const variant = (8 + (counter % 4)).toString(16);
  return `${time.slice(0, 8)}-${time.slice(8)}-7${rand.slice(0, 3)}-${variant}${rand.slice(3, 6)}-${rand.slice(6).padStart(12, '0')}`;
}

export class DataDeletionRequests {
  private readonly rows: DataDeletionRequest[] = [];
  private counter = 0;

  constructor(private readonly now: () => number) {}

  /** The project's requests, newest first (`Meta.ordering = ["-created_at"]`). */
  list(teamId: number): DataDeletionRequest[] {
    return this.rows.filter((r) => r.teamId === teamId).reverse();
  }

  get(teamId: number, id: string): DataDeletionRequest | undefined {
    return this.rows.find((r) => r.teamId === teamId && r.id === id.toLowerCase());
  }

  /** A request of any project, for `/_sandbox/`. */
  byId(id: string): DataDeletionRequest | undefined {
    return this.rows.find((r) => r.id === id.toLowerCase());
  }

  bySubmission(teamId: number, submissionId: string): DataDeletionRequest | undefined {
    return this.rows.find((r) => r.teamId === teamId && r.submissionId === submissionId);
  }

  activeCount(teamId: number): number {
    return this.rows.filter((r) => r.teamId === teamId && ACTIVE_STATUSES.has(r.status)).length;
  }

  /** `create_event_deletion_request`: pending, approval required, deferred execution. */
  add(request: NewRequest): DataDeletionRequest {
    const now = this.now();
    const row: DataDeletionRequest = {
      ...request,
      id: timeOrderedUuid(now, ++this.counter),
      status: 'pending',
      count: null,
      createdAtMs: now,
      updatedAtMs: now,
      approvedAtMs: null,
      statsCalculatedAtMs: null,
      queued: null,
    };
    this.rows.push(row);
    return row;
  }

  /**
   * Approval and pickup: `select` runs the stored query now and gives the event UUIDs to queue,
   * or throws when it no longer compiles (the job's failure hook: `failed`). Only a pending
   * request moves; returns whether this one did.
   */
  approve(row: DataDeletionRequest, select: (row: DataDeletionRequest) => string[]): boolean {
    if (row.status !== 'pending') return false;
    const now = this.now();
    row.approvedAtMs = now;
    row.updatedAtMs = now;
    try {
      row.queued = new Set(select(row));
      row.status = 'queued';
    } catch {
      row.status = 'failed';
    }
    return true;
  }

  /** Every pending request of a project (or of all), approved as `approve` does; returns how many. */
  approveAll(teamId: number | undefined, select: (row: DataDeletionRequest) => string[]): number {
    return this.rows.filter((r) => teamId === undefined || r.teamId === teamId).filter((r) => this.approve(r, select)).length;
  }

  /**
   * The weekly deletes job's adhoc arm and `verify_queued_deletion_requests`: the queued UUIDs of
   * each team are deleted (`remove`), then the requests are `completed`. Returns how many.
   */
  runWeekly(teamId: number | undefined, remove: (teamId: number, uuids: ReadonlySet<string>) => void): number {
    const queued = this.rows.filter((r) => r.status === 'queued' && (teamId === undefined || r.teamId === teamId));
    for (const row of queued) {
      remove(row.teamId, row.queued!);
      row.status = 'completed';
      row.updatedAtMs = this.now();
    }
    return queued.length;
  }
}

/** DRF's DateTimeField: microseconds and a Z, as every other timestamp the API renders. */
function isoOrNull(ms: number | null): string | null {
  return ms === null ? null : formatTimestampUs(ms * 1000);
}

/** `DataDeletionRequestSerializer`: the stored query and variables, every field read-only. */
export function serializeRequest(row: DataDeletionRequest) {
  return {
    id: row.id,
    status: row.status,
    query: row.query,
    variables: row.variables,
    submission_id: row.submissionId,
    count: row.count,
    created_by_id: row.createdById,
    created_by_staff: row.createdByStaff,
    created_at: isoOrNull(row.createdAtMs),
    updated_at: isoOrNull(row.updatedAtMs),
    approved_at: isoOrNull(row.approvedAtMs),
    stats_calculated_at: isoOrNull(row.statsCalculatedAtMs),
  };
}
