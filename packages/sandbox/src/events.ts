// The events of one sandbox project: what ClickHouse's `events` table holds after ingestion
// (docs/server-contract.md §14), read through HogQL's `events` table.
//
// A million events must fit in well under 1 GiB, so the store is columnar: typed arrays for the
// uuid (four 32-bit words), the timestamp and the ingestion time (microseconds), and indexes into
// interned tables for the event name, the distinct id, the stored person_id and `$session_id`;
// properties stay the JSON text they arrived as and are parsed only when a query reads them.
// Seeded events share their properties: each keeps the index of a shared JSON text that ends
// before `$session_id`, and the text is completed with the event's session id when read.
//
// `person_id` is stored as ingestion wrote it; a merge or a person's deletion writes an override
// (distinct id → person UUID), which HogQL's `person_id` reads through, as PostHog's
// `person_id_override_properties_on_events` mode does (posthog/hogql/database/database.py,
// `_use_person_id_from_person_overrides`). Only the weekly squash rewrites the stored person_id
// (`squashOverrides`), and the weekly deletion then deletes rows by STORED person_id
// (posthog/dags/deletes.py), so events of distinct ids that were never the person's stay.

import { uuidText } from './prng.js';
import { isUuid } from './store.js';

/** Strings kept once, each with a small integer index. */
export class Interned {
  readonly values: string[] = [];
  private readonly index = new Map<string, number>();

  of(value: string): number {
    let i = this.index.get(value);
    if (i === undefined) {
      i = this.values.length;
      this.values.push(value);
      this.index.set(value, i);
    }
    return i;
  }

  find(value: string): number | undefined {
    return this.index.get(value);
  }
}

export interface NewEvent {
  /** A canonical UUID, or its four 32-bit words (seeding makes them without the text). */
  uuid: string | readonly [number, number, number, number];
  event: string;
  distinctId: string;
  personId: string;
  /** Event time, microseconds since the epoch. */
  timestampUs: number;
  /** Ingestion time, microseconds since the epoch. */
  createdAtUs: number;
  /** The properties as JSON text; or, for seeded events, a shared text that `{"$session_id":…}`
   * completes (see `shared`). */
  properties: string | { shared: string };
  sessionId: string | null;
}

export class EventStore {
  private capacity = 0;
  private count = 0;
  private liveCount = 0;
  private uuidWords = new Uint32Array(0);
  private timestampUs = new Float64Array(0);
  private createdAtUs = new Float64Array(0);
  private eventIndex = new Int32Array(0);
  private distinctIdIndex = new Int32Array(0);
  private personIndex = new Int32Array(0);
  private sessionIndex = new Int32Array(0);
  private deleted = new Uint8Array(0);
  private properties: (string | undefined)[] = [];
  /** Per row: the index of its shared properties text, or -1. */
  private sharedIndex = new Int32Array(0);
  private readonly sharedProperties = new Interned();
  readonly eventNames = new Interned();
  readonly distinctIds = new Interned();
  readonly personIds = new Interned();
  readonly sessionIds = new Interned();
  /** Distinct id index → person UUID index, written by merges and deletions, until squashed. */
  private readonly overridesByIndex = new Map<number, number>();
  /** Overrides written since the map was last read, as (distinct id, person UUID) pairs in
   * order: a bulk delete of 250,000 persons writes one for each of their distinct ids, and
   * interning them at once cost about a third of the sandbox's CPU in a test that never reads
   * an event. The map takes them, in order, when it is read. */
  private pendingOverrides: string[] = [];
  /** Bumped on every change; query caches compare against it. */
  version = 0;
  /** Called once before the first read or write, to lay down the seeded history. */
  private seed: ((store: EventStore) => void) | null;

  constructor(seed?: (store: EventStore) => void) {
    this.seed = seed ?? null;
  }

  private ready(): void {
    if (this.seed) {
      const seed = this.seed;
      this.seed = null;
      seed(this);
    }
  }

  /** Live events (deleted ones excluded). */
  get size(): number {
    this.ready();
    return this.liveCount;
  }

  /** Makes room for `more` events at once (seeding knows how many it adds). */
  reserve(more: number): void {
    const needed = this.count + more;
    if (needed <= this.capacity) return;
    const capacity = Math.max(needed, Math.ceil(this.capacity * 1.5) + 1024);
    const grow = <T extends Uint32Array | Float64Array | Int32Array | Uint8Array>(old: T, make: (n: number) => T, width = 1): T => {
      const next = make(capacity * width);
      next.set(old);
      return next;
    };
    this.uuidWords = grow(this.uuidWords, (n) => new Uint32Array(n), 4);
    this.timestampUs = grow(this.timestampUs, (n) => new Float64Array(n));
    this.createdAtUs = grow(this.createdAtUs, (n) => new Float64Array(n));
    this.eventIndex = grow(this.eventIndex, (n) => new Int32Array(n));
    this.distinctIdIndex = grow(this.distinctIdIndex, (n) => new Int32Array(n));
    this.personIndex = grow(this.personIndex, (n) => new Int32Array(n));
    this.sessionIndex = grow(this.sessionIndex, (n) => new Int32Array(n));
    this.sharedIndex = grow(this.sharedIndex, (n) => new Int32Array(n));
    this.deleted = grow(this.deleted, (n) => new Uint8Array(n));
    this.capacity = capacity;
  }

  add(event: NewEvent): number {
    this.ready();
    return this.append(event);
  }

  /** Appends without running the seed (the seed itself appends through here). */
  append(event: NewEvent): number {
    this.reserve(1);
    const row = this.count++;
    if (typeof event.uuid === 'string') {
      if (!isUuid(event.uuid, { lowerCase: true })) throw new Error(`sandbox: event uuid ${event.uuid} is not a canonical UUID`);
      const digits = event.uuid.replace(/-/g, '');
      for (let w = 0; w < 4; w++) this.uuidWords[row * 4 + w] = parseInt(digits.slice(w * 8, w * 8 + 8), 16);
    } else for (let w = 0; w < 4; w++) this.uuidWords[row * 4 + w] = event.uuid[w];
    this.timestampUs[row] = event.timestampUs;
    this.createdAtUs[row] = event.createdAtUs;
    this.eventIndex[row] = this.eventNames.of(event.event);
    this.distinctIdIndex[row] = this.distinctIds.of(event.distinctId);
    this.personIndex[row] = this.personIds.of(event.personId);
    this.sessionIndex[row] = event.sessionId === null ? -1 : this.sessionIds.of(event.sessionId);
    if (typeof event.properties === 'string') {
      this.properties[row] = event.properties;
      this.sharedIndex[row] = -1;
    } else this.sharedIndex[row] = this.sharedProperties.of(event.properties.shared);
    this.liveCount++;
    this.version++;
    return row;
  }

  /** A merge moved `distinctId` to the person `personUuid`: its past events resolve there. */
  override(distinctId: string, personUuid: string): void {
    this.pendingOverrides.push(distinctId, personUuid);
    this.version++;
  }

  /** The overrides, the pending ones taken in the order they were written (the last one wins). */
  private get overrides(): Map<number, number> {
    const pending = this.pendingOverrides;
    if (pending.length > 0) {
      this.pendingOverrides = [];
      for (let i = 0; i < pending.length; i += 2)
        this.overridesByIndex.set(this.distinctIds.of(pending[i]), this.personIds.of(pending[i + 1]));
    }
    return this.overridesByIndex;
  }

  /**
   * The squash that runs before PostHog's weekly deletion (posthog/dags/person_overrides.py,
   * docs/server-contract.md §14.5): every event of a distinct id with an override gets the
   * override's person as its stored person_id, and the overrides squashed are dropped. What HogQL
   * shows does not change; what a deletion by stored person_id reaches does. Returns how many
   * events were rewritten.
   */
  squashOverrides(): number {
    this.ready();
    const overrides = this.overrides;
    if (overrides.size === 0) return 0;
    let rewritten = 0;
    for (let row = 0; row < this.count; row++) {
      const person = overrides.get(this.distinctIdIndex[row]);
      if (!this.deleted[row] && person !== undefined && person !== this.personIndex[row]) {
        this.personIndex[row] = person;
        rewritten++;
      }
    }
    overrides.clear();
    this.version++;
    return rewritten;
  }

  /**
   * The person arm of PostHog's weekly delete (posthog/dags/deletes.py, `_DELETE_PREDICATE`):
   * every event whose stored person_id is a person of `requestedAtMs` and whose timestamp is not
   * after that person's deletion request goes. Returns how many went.
   */
  deleteByStoredPersonIds(requestedAtMs: ReadonlyMap<string, number>): number {
    this.ready();
    const until = new Map<number, number>();
    for (const [uuid, atMs] of requestedAtMs) {
      const i = this.personIds.find(uuid);
      if (i !== undefined) until.set(i, atMs * 1000);
    }
    if (until.size === 0) return 0;
    return this.deleteRows((row) => {
      const bound = until.get(this.personIndex[row]);
      return bound !== undefined && this.timestampUs[row] <= bound;
    });
  }

  /**
   * The adhoc arm of PostHog's weekly delete (`dictHas(adhoc_event_deletes_dictionary, (team_id,
   * uuid))`, posthog/dags/deletes.py): every live event with one of these UUIDs goes. Returns how
   * many went.
   */
  deleteByUuids(uuids: ReadonlySet<string>): number {
    this.ready();
    if (uuids.size === 0) return 0;
    return this.deleteRows((row) => uuids.has(this.uuid(row)));
  }

  /** Deletes every live row `matches` picks; how many went. */
  private deleteRows(matches: (row: number) => boolean): number {
    let gone = 0;
    for (let row = 0; row < this.count; row++) {
      if (!this.deleted[row] && matches(row)) {
        this.deleted[row] = 1;
        this.properties[row] = undefined;
        gone++;
      }
    }
    this.liveCount -= gone;
    if (gone) this.version++;
    return gone;
  }

  // ---- row reads (for HogQL) -----------------------------------------------------------------

  /** Calls `fn` with every live row index, oldest insert first. */
  forEachRow(fn: (row: number) => void): void {
    this.ready();
    for (let row = 0; row < this.count; row++) if (!this.deleted[row]) fn(row);
  }

  uuid(row: number): string {
    const w = this.uuidWords;
    return uuidText(w[row * 4], w[row * 4 + 1], w[row * 4 + 2], w[row * 4 + 3]);
  }

  event(row: number): string {
    return this.eventNames.values[this.eventIndex[row]];
  }

  distinctId(row: number): string {
    return this.distinctIds.values[this.distinctIdIndex[row]];
  }

  /** person_id as ingestion stored it. */
  storedPersonId(row: number): string {
    return this.personIds.values[this.personIndex[row]];
  }

  /** person_id as HogQL shows it: through the override of the event's distinct id, if any. */
  personId(row: number): string {
    const override = this.overrides.get(this.distinctIdIndex[row]);
    return this.personIds.values[override ?? this.personIndex[row]];
  }

  timestamp(row: number): number {
    return this.timestampUs[row];
  }

  createdAt(row: number): number {
    return this.createdAtUs[row];
  }

  propertiesText(row: number): string {
    const shared = this.sharedIndex[row];
    if (shared < 0) return this.properties[row] ?? '{}';
    const session = this.sessionId(row);
    const text = this.sharedProperties.values[shared];
    return session === null ? `${text}}` : `${text},"$session_id":"${session}"}`;
  }

  sessionId(row: number): string | null {
    const i = this.sessionIndex[row];
    return i < 0 ? null : this.sessionIds.values[i];
  }
}
