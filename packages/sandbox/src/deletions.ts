// Queued deletions of a person's data (docs/server-contract.md §6.5, §6.6). Event deletions are
// AsyncDeletion rows, unique per (team, person uuid) (`bulk_create(..., ignore_conflicts=True)`),
// pending until the weekly batch verifies them; `/persons/deletion_status/` lists them. Recording
// deletions start a workflow on the real server and are only remembered here, for tests.

import type { SandboxUser } from './world.js';

export interface AsyncDeletion {
  teamId: number;
  /** The person UUID. */
  key: string;
  createdAtMs: number;
  /** Set when the batch job has run; null while pending. */
  deleteVerifiedAtMs: number | null;
  createdBy: number | null;
}

export interface RecordingDeletion {
  teamId: number;
  personUuid: string;
  distinctIds: string[];
  startedAtMs: number;
}

export class DeletionQueue {
  private readonly events = new Map<string, AsyncDeletion>();
  readonly recordings: RecordingDeletion[] = [];

  constructor(
    private readonly now: () => number,
    /** What the job does with the deletions it completes, one team's at a time (the sandbox
     * removes their events in one pass over the team's events, as PostHog's job does in one
     * mutation for the batch: posthog/models/async_deletion/delete_events.py). */
    private readonly onComplete: (teamId: number, rows: AsyncDeletion[]) => void = () => {},
  ) {}

  /** queue_person_event_deletion; an existing row for the person is kept as it is. */
  queueEvents(teamId: number, personUuid: string, actor?: SandboxUser | null): AsyncDeletion {
    const id = `${teamId}:${personUuid}`;
    let row = this.events.get(id);
    if (!row) {
      row = { teamId, key: personUuid, createdAtMs: this.now(), deleteVerifiedAtMs: null, createdBy: actor?.id ?? null };
      this.events.set(id, row);
    }
    return row;
  }

  /** queue_person_recording_deletion */
  queueRecordings(teamId: number, personUuid: string, distinctIds: string[]): void {
    this.recordings.push({ teamId, personUuid, distinctIds: [...distinctIds], startedAtMs: this.now() });
  }

  /** The team's event deletions, newest first (`order_by("-created_at")`). */
  eventDeletions(teamId: number): AsyncDeletion[] {
    return [...this.events.values()]
      .filter((d) => d.teamId === teamId)
      .reverse()
      .sort((a, b) => b.createdAtMs - a.createdAtMs);
  }

  /** What the weekly batch does (Saturday 22:00 UTC): deletes the events of every pending deletion (by stored
   * person_id, `onComplete`) and marks it verified. Returns how many. */
  runBatch(teamId?: number): number {
    const byTeam = new Map<number, AsyncDeletion[]>();
    for (const row of this.events.values()) {
      if (row.deleteVerifiedAtMs === null && (teamId === undefined || row.teamId === teamId)) {
        const rows = byTeam.get(row.teamId) ?? [];
        rows.push(row);
        byTeam.set(row.teamId, rows);
      }
    }
    let done = 0;
    for (const [team, rows] of byTeam) {
      this.onComplete(team, rows);
      for (const row of rows) row.deleteVerifiedAtMs = this.now();
      done += rows.length;
    }
    return done;
  }
}
