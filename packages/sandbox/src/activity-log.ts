// The activity log (posthog/models/activity_logging): entries written by the mutating person
// endpoints and read back by `/persons/activity/` and `/persons/{id}/activity/`, newest first,
// paged by `page` as `activity_page_response` does.

import { randomUUID } from 'node:crypto';
import type { SandboxUser } from './world.js';
import { formatTimestampUs } from './store.js';

export interface Change {
  type: string;
  action: string;
  field?: string | null;
  before?: unknown;
  after?: unknown;
}

export interface Detail {
  changes?: Change[] | null;
  name?: string | null;
  trigger?: unknown;
  type?: string | null;
  short_id?: string | null;
}

export interface ActivityEntry {
  id: string;
  teamId: number;
  scope: string;
  itemId: string;
  activity: string;
  user: { first_name: string; email: string } | null;
  detail: Detail;
  createdAtUs: number;
}

export interface LogInput {
  teamId: number;
  scope?: string;
  itemId: string | number;
  activity: string;
  user?: SandboxUser | null;
  detail?: Detail;
}

/** Change(type, action, field=None, before=None, after=None) as the serializer renders it. */
function serializeChange(change: Change) {
  return {
    type: change.type,
    action: change.action,
    field: change.field ?? null,
    before: change.before ?? null,
    after: change.after ?? null,
  };
}

export function serializeEntry(entry: ActivityEntry) {
  return {
    id: entry.id,
    user: entry.user,
    activity: entry.activity,
    scope: entry.scope,
    item_id: entry.itemId,
    detail: {
      id: null,
      changes: entry.detail.changes ? entry.detail.changes.map(serializeChange) : null,
      merge: null,
      trigger: entry.detail.trigger ?? null,
      name: entry.detail.name ?? null,
      short_id: entry.detail.short_id ?? null,
      type: entry.detail.type ?? null,
    },
    created_at: formatTimestampUs(entry.createdAtUs),
  };
}

/** An entry whose random id is drawn when first read: a bulk delete of 250,000 persons writes as
 * many entries, and drawing their ids as they were written cost about a tenth of the sandbox's
 * CPU in it (randomUUID() builds its text from sixteen pieces), for ids only the activity
 * endpoints show. */
class LoggedEntry implements ActivityEntry {
  private drawnId: string | undefined;

  constructor(
    readonly teamId: number,
    readonly scope: string,
    readonly itemId: string,
    readonly activity: string,
    readonly user: ActivityEntry['user'],
    readonly detail: Detail,
    readonly createdAtUs: number,
  ) {}

  get id(): string {
    this.drawnId ??= randomUUID();
    return this.drawnId;
  }
}

export class ActivityLog {
  private readonly entries: ActivityEntry[] = [];

  constructor(private readonly now: () => number) {}

  /** log_activity(...) */
  log(input: LogInput): ActivityEntry {
    const entry = new LoggedEntry(
      input.teamId,
      input.scope ?? 'Person',
      String(input.itemId),
      input.activity,
      input.user ? { first_name: input.user.firstName, email: input.user.email } : null,
      input.detail ?? {},
      Math.round(this.now() * 1000),
    );
    this.entries.push(entry);
    return entry;
  }

  /** load_activity(scope, team_id, item_ids): newest first (ties: latest written first). */
  find(teamId: number, scope: string, itemIds?: string[]): ActivityEntry[] {
    const out: ActivityEntry[] = [];
    for (let i = this.entries.length - 1; i >= 0; i--) {
      const e = this.entries[i];
      if (e.teamId === teamId && e.scope === scope && (!itemIds || itemIds.includes(e.itemId))) out.push(e);
    }
    return out.sort((a, b) => b.createdAtUs - a.createdAtUs);
  }

  /** Every entry, oldest first; for tests. */
  all(): readonly ActivityEntry[] {
    return this.entries;
  }
}
