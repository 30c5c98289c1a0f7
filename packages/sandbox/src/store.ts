// The persons of one sandbox project.
//
// Start-up must stay well under a second with 100,000+ persons and memory must stay modest, yet
// the data must be identical for the same seed. So a person is a pure function of (seed, id):
// start-up only lays out created_at and the sort order in two typed arrays (O(n), no sort), and a
// person object is generated whenever something reads it. Only persons that were changed are
// kept, in `overrides` (keeping every generated object made a 100k scan spend most of its time in
// the garbage collector and tripled memory). UUIDs and anonymous distinct ids embed a reversible
// scramble of the person id, so lookups by uuid or distinct id need no index either. Filtered
// scans are cached per store version, so paging through one filtered listing scans once.
//
// Deletion is O(1): a tombstone bit plus a "live order is stale" flag. The live order (sorted
// order minus tombstones) is rebuilt with one linear pass only when a read needs it, so
// 250 bulk deletes of 1000 persons interleaved with list calls stay cheap.

import { hash32, mulberry32, scramble32, unscramble32, uuidText } from './prng.js';

export interface Person {
  /** Integer primary key, 1..n. */
  id: number;
  uuid: string;
  /** ISO 8601 with microseconds, e.g. 2025-01-15T08:00:00.123456Z (DRF's rendering). */
  createdAt: string;
  /** created_at in microseconds since the epoch; what the order is computed from. */
  createdAtUs: number;
  properties: Record<string, unknown>;
  /** In storage order, which is not the order the API shows (the API puts non-anonymous first). */
  distinctIds: string[];
  isIdentified: boolean;
  lastSeenAt: string | null;
}

export interface PersonFilter {
  /** Exact match on properties.email. */
  email?: string;
  /** Exact match on any distinct id. */
  distinctId?: string;
  /** A case-insensitive part of the email property, or a whole distinct id or UUID
   * (docs/server-contract.md §6.1). */
  search?: string;
  /** Any further predicate (compiled `properties` filters). */
  match?: (person: Person) => boolean;
  /** Identifies `match` for the scan cache; a predicate without a key is never cached. */
  matchKey?: string;
}

export interface StoreOptions {
  persons: number;
  seed: number;
  /** Distinguishes the stores of different projects that share a seed. */
  salt?: number;
}

/** The newest person is created just before this instant; the rest spread over the year before.
 * A fixed anchor (not "now") keeps created_at identical across runs for the same seed. */
export const ANCHOR_MS = Date.UTC(2025, 9, 1, 12, 0, 0);
const SPAN_US = 365 * 24 * 3600 * 1e6;
/** Share of consecutive persons that share their created_at exactly, so tie-breaking on id matters. */
const DUPLICATE_CREATED_AT = 0.03;
/** The largest world whose generated persons scans keep (`readEach`): 20,000 persons are about
 * 36 MB of heap (measured), so at most some 72 MB; a world of 250,000 keeps none. */
const READ_CACHE_PERSONS = 40_000;

const FIRST_NAMES = [
  'Ada',
  'Grace',
  'Alan',
  'Linus',
  'Margaret',
  'Ken',
  'Barbara',
  'Dennis',
  'Radia',
  'Tim',
  'Frances',
  'Edsger',
  'Hedy',
  'John',
  'Katherine',
  'Guido',
  'Anita',
  'Bjarne',
  'Sophie',
  'Niklaus',
];
const LAST_NAMES = [
  'Lovelace',
  'Hopper',
  'Turing',
  'Torvalds',
  'Hamilton',
  'Thompson',
  'Liskov',
  'Ritchie',
  'Perlman',
  'Berners-Lee',
  'Allen',
  'Dijkstra',
  'Lamarr',
  'McCarthy',
  'Johnson',
  'van Rossum',
  'Borg',
  'Stroustrup',
  'Wilson',
  'Wirth',
];
const COUNTRIES = ['US', 'GB', 'DE', 'FR', 'IN', 'BR', 'CA', 'AU', 'JP', 'NL'];
const BROWSERS = ['Chrome', 'Firefox', 'Safari', 'Edge'];

function pad2(n: number): string {
  return n < 10 ? '0' + n : String(n);
}

/** ISO 8601 UTC with microseconds. Hand-rolled (civil-from-days) because Date#toISOString was the
 * hot spot when a filtered listing generates every person. */
export function formatTimestampUs(us: number): string {
  const totalSeconds = Math.floor(us / 1e6);
  const micros = us - totalSeconds * 1e6;
  const days = Math.floor(totalSeconds / 86400);
  const secs = totalSeconds - days * 86400;
  // Howard Hinnant's days_from_civil inverse.
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  const h = Math.floor(secs / 3600);
  const mi = Math.floor((secs % 3600) / 60);
  const s = secs % 60;
  return `${y}-${pad2(m)}-${pad2(d)}T${pad2(h)}:${pad2(mi)}:${pad2(s)}.${String(micros).padStart(6, '0')}Z`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A UUID in its 8-4-4-4-12 hexadecimal form; `lowerCase`: in lower case only, as the store keeps them. */
export function isUuid(value: string, { lowerCase = false } = {}): boolean {
  return UUID.test(value) && (!lowerCase || value === value.toLowerCase());
}

/** Python's uuid.UUID() accepts braces, `urn:uuid:`, upper case and missing hyphens; so does the
 * server's lookup. Returns the canonical lower-case form, or null when it is not a UUID. */
export function canonicalUuid(value: string): string | null {
  if (isUuid(value, { lowerCase: true })) return value;
  let s = value.trim().toLowerCase();
  if (s.startsWith('urn:uuid:')) s = s.slice(9);
  if (s.startsWith('{') && s.endsWith('}')) s = s.slice(1, -1);
  s = s.replace(/-/g, '');
  if (!/^[0-9a-f]{32}$/.test(s)) return null;
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
}

export class SandboxStore {
  readonly seed: number;
  /** How many persons were generated at start-up (ids 1..generated). */
  readonly generated: number;
  /** Bumped on every mutation; read caches compare against it. */
  version = 0;

  // Not readonly: persons added after start-up (split) grow them.
  private createdAtUs: Float64Array;
  private deleted: Uint8Array;
  /** Persons changed since generation; everything else is regenerated on read. */
  private readonly overrides = new Map<number, Person>();
  /** All ids, created_at DESC, id DESC, tombstoned ones included. */
  private readonly order: Int32Array;
  private live: Int32Array | null = null;
  /** Persons to put into the live order when it is next read (insertLive). */
  private pendingLive: number[] = [];
  /** The last live order built; still ordered and a superset of the live set, because persons
   * are only ever removed. Rebuilding filters it instead of the full order. */
  private lastLive: Int32Array;
  private liveCount: number;
  private readonly uuidKey: number;
  private readonly anonKeys: [number, number];
  private readonly personSeed: number;
  private scanCache: { key: string; version: number; ids: Int32Array }[] = [];
  private readonly blockedDistinctIds = new Set<string>();
  /** Persons created after start-up (split) get ids generated+1, ...; they live in `overrides`. */
  private added = 0;
  private readonly addedUuids = new Map<string, number>();
  /** Distinct ids that changed person after start-up: distinct id → person id. */
  private readonly distinctIdOwners = new Map<string, number>();
  /**
   * Persons that exist in Postgres but lose to a deleted person's rows in ClickHouse: created by
   * an event for a deleted person's distinct id (docs/server-contract.md §14.4). The person
   * endpoints that read Postgres find them; listings and HogQL, which read ClickHouse, do not,
   * until reset_person_distinct_id.
   */
  private readonly hidden = new Set<number>();
  /** created_at of generated persons whose created_at a merge changed, as generated. */
  private readonly generatedAtUs = new Map<number, number>();
  /**
   * Generated persons as `readEach` handed them out, kept for the next scan: a HogQL query reads
   * every person, and generating them again was most of the CPU of a keyset walk over a world of
   * 20,000 or 30,000. Only for worlds of READ_CACHE_PERSONS or fewer, so that the
   * memory of the largest worlds stays what it was; only for readers that change nothing.
   */
  private readonly readCache = new Map<number, Person>();

  constructor(opts: StoreOptions) {
    const n = Math.max(0, Math.floor(opts.persons));
    this.seed = opts.seed >>> 0;
    const base = hash32(this.seed, opts.salt ?? 0);
    this.personSeed = hash32(base, 0x9e37);
    this.uuidKey = hash32(base, 0x5157);
    this.anonKeys = [hash32(base, 0xa001), hash32(base, 0xa002)];
    this.generated = n;
    this.liveCount = n;
    this.createdAtUs = new Float64Array(n + 1);
    this.deleted = new Uint8Array(n + 1);
    this.order = new Int32Array(n);
    this.lastLive = this.order;
    this.layOut(n, hash32(base, 0xc0ffee));
  }

  /**
   * Assigns created_at and the sorted order in one pass, newest first, without a sort: walk back
   * in time with random gaps (some zero, giving duplicate timestamps), give each position roughly
   * the next lower id, shuffled inside small blocks so id order is not exactly created_at order,
   * then make ids descend inside each run of equal timestamps (the server's tie-breaker).
   */
  private layOut(n: number, seed: number): void {
    const rand = mulberry32(seed);
    const avgGapUs = n > 0 ? SPAN_US / n : 0;
    const times = new Float64Array(n);
    let t = ANCHOR_MS * 1000 - Math.floor(rand() * 3600e6);
    for (let p = 0; p < n; p++) {
      if (p > 0) {
        const gap = rand() < DUPLICATE_CREATED_AT ? 0 : Math.floor(-Math.log(1 - rand()) * avgGapUs) + 1;
        t -= gap;
      }
      times[p] = t;
    }
    const order = this.order;
    for (let p = 0; p < n; p++) order[p] = n - p;
    for (let start = 0; start < n; start += 4) {
      const end = Math.min(n, start + 4);
      for (let i = end - 1; i > start; i--) {
        const j = start + Math.floor(rand() * (i - start + 1));
        const tmp = order[i];
        order[i] = order[j];
        order[j] = tmp;
      }
    }
    for (let p = 0; p < n;) {
      let q = p + 1;
      while (q < n && times[q] === times[p]) q++;
      if (q - p > 1) order.subarray(p, q).sort().reverse();
      p = q;
    }
    for (let p = 0; p < n; p++) this.createdAtUs[order[p]] = times[p];
  }

  // ---- reads -------------------------------------------------------------------------------

  /** Live persons (not deleted). */
  get size(): number {
    return this.liveCount;
  }

  get deletedCount(): number {
    return this.lastId - this.liveCount - this.hidden.size;
  }

  /** Whether a person is in Postgres but hidden from listings and HogQL (see `hidden`). */
  isHidden(id: number): boolean {
    return this.hidden.has(id);
  }

  /** By integer id; undefined when unknown or deleted. */
  getById(id: number): Person | undefined {
    if (!Number.isInteger(id) || id < 1 || id > this.lastId || this.deleted[id]) return undefined;
    return this.materialize(id);
  }

  /** The id behind a uuid without generating the person; undefined when unknown or deleted. */
  idOfUuid(uuid: string): number | undefined {
    const canonical = canonicalUuid(uuid);
    if (!canonical) return undefined;
    const added = this.addedUuids.get(canonical);
    if (added !== undefined) return this.deleted[added] ? undefined : added;
    const id = unscramble32(parseInt(canonical.slice(28), 16), this.uuidKey);
    if (id < 1 || id > this.generated || this.deleted[id] || this.uuidOf(id) !== canonical) return undefined;
    return id;
  }

  getByUuid(uuid: string): Person | undefined {
    const id = this.idOfUuid(uuid);
    return id === undefined ? undefined : this.materialize(id);
  }

  /** The server's `get_person_by_pk_or_uuid`: a UUID-shaped value is a UUID, else an integer pk. */
  getByIdOrUuid(value: string | number): Person | undefined {
    if (typeof value === 'number') return this.getById(value);
    if (canonicalUuid(value)) return this.getByUuid(value);
    const trimmed = value.trim();
    if (!/^[+-]?\d+$/.test(trimmed)) return undefined;
    return this.getById(Number(trimmed));
  }

  getByDistinctId(distinctId: string): Person | undefined {
    const owner = this.distinctIdOwners.get(distinctId);
    if (owner !== undefined) {
      const person = this.getById(owner);
      return person && person.distinctIds.includes(distinctId) ? person : undefined;
    }
    const user = /^user-(\d+)$/.exec(distinctId);
    if (user) {
      const person = this.getById(Number(user[1]));
      return person && person.distinctIds.includes(distinctId) ? person : undefined;
    }
    if (!isUuid(distinctId, { lowerCase: true })) return undefined;
    const tail = parseInt(distinctId.slice(28), 16);
    for (const key of this.anonKeys) {
      const person = this.getById(unscramble32(tail, key));
      if (person && person.distinctIds.includes(distinctId)) return person;
    }
    return undefined;
  }

  /** One page in the server's order, `created_at DESC, id DESC`. */
  list(filter: PersonFilter = {}, offset = 0, limit = 100): Person[] {
    const ids = this.matchingIds(filter);
    const out: Person[] = [];
    const end = Math.min(ids.length, offset + limit);
    for (let i = Math.max(0, offset); i < end; i++) out.push(this.materialize(ids[i]));
    return out;
  }

  /** The UUIDs of one page of the unfiltered listing, in its order, without generating the
   * persons: for tests that need every id of a large world (250,000 persons generated only to
   * read their UUIDs cost seconds of CPU and the garbage to match). */
  listUuids(offset = 0, limit = 100): string[] {
    const ids = this.liveIds();
    const out: string[] = [];
    const end = Math.min(ids.length, offset + limit);
    for (let i = Math.max(0, offset); i < end; i++) out.push(this.overrides.get(ids[i])?.uuid ?? this.uuidOf(ids[i]));
    return out;
  }

  count(filter: PersonFilter = {}): number {
    return this.matchingIds(filter).length;
  }

  /** Every live person in order; for tests and state dumps. */
  *[Symbol.iterator](): IterableIterator<Person> {
    const ids = this.liveIds();
    for (let i = 0; i < ids.length; i++) yield this.materialize(ids[i]);
  }

  /**
   * Every live person in order, as the iterator, for a reader that changes none of them (HogQL's
   * tables): a generated person may be the one the previous scan was given. Stops when `visit`
   * answers false.
   */
  readEach(visit: (person: Readonly<Person>) => boolean): void {
    const ids = this.liveIds();
    const cache = this.generated <= READ_CACHE_PERSONS ? this.readCache : undefined;
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i];
      let person = this.overrides.get(id) ?? cache?.get(id);
      if (person === undefined) {
        person = this.generate(id);
        cache?.set(id, person);
      }
      if (!visit(person)) return;
    }
  }

  // ---- writes ------------------------------------------------------------------------------

  /** Tombstones a person (one read from this store, or by uuid or integer id) and blocks its
   * distinct ids. Returns false when unknown or already gone. A person passed in is not generated
   * again: a bulk delete of 100,000 persons generated each twice, to find it and here. */
  delete(target: Person | string | number): boolean {
    const id = typeof target === 'number' ? target : typeof target === 'string' ? this.idOfUuid(target) : target.id;
    if (id === undefined || !Number.isInteger(id) || id < 1 || id > this.lastId || this.deleted[id]) return false;
    // The distinct ids the person has now, as PostHog's deletion reads them when it runs (its
    // fetch_distinct_ids step, PostHog/posthog posthog/models/person/bulk_delete.py; a queued bulk
    // delete runs after its answer, docs/server-contract.md §6.6). An override is the person as it
    // is now (it may have changed since `target` was read); without one, the person is as
    // generated, which `target` already is.
    const person = this.overrides.get(id) ?? (typeof target === 'object' ? target : this.generate(id));
    for (const distinctId of person.distinctIds) this.blockedDistinctIds.add(distinctId);
    this.deleted[id] = 1;
    this.overrides.delete(id);
    if (!this.hidden.delete(id)) this.liveCount--;
    this.live = null;
    this.readCache.delete(id);
    this.version++;
    return true;
  }

  /** A deleted person's distinct ids stay blocked until reset_person_distinct_id (docs/server-contract.md §6.5). */
  isDistinctIdBlocked(distinctId: string): boolean {
    return this.blockedDistinctIds.has(distinctId);
  }

  /**
   * reset_person_distinct_id; true when the id was blocked. A person created for the id since its
   * deletion becomes visible (posthog/models/person/deletion.py rewrites its ClickHouse rows at a
   * version above the deleted ones).
   */
  unblockDistinctId(distinctId: string): boolean {
    const owner = this.getByDistinctId(distinctId);
    if (owner && this.hidden.delete(owner.id)) {
      // Inserted before it is counted: a rebuilt live order holds liveCount persons.
      this.insertLive(owner.id);
      this.liveCount++;
      this.version++;
    }
    return this.blockedDistinctIds.delete(distinctId);
  }

  /**
   * Removes a person merged into another (its distinct ids moved first): no tombstone for its
   * distinct ids, which live on with the surviving person.
   */
  removeMerged(id: number): boolean {
    if (!Number.isInteger(id) || id < 1 || id > this.lastId || this.deleted[id]) return false;
    this.deleted[id] = 1;
    this.overrides.delete(id);
    if (!this.hidden.delete(id)) this.liveCount--;
    this.live = null;
    this.readCache.delete(id);
    this.version++;
    return true;
  }

  isDeleted(id: number): boolean {
    return id >= 1 && id <= this.lastId && this.deleted[id] === 1;
  }

  /** `$set` semantics: listed keys change, nothing else is removed. */
  setProperties(id: number, set: Record<string, unknown>): boolean {
    return this.mutate(id, (person) => Object.assign(person.properties, set));
  }

  /** `$unset` semantics. */
  unsetProperties(id: number, keys: string[]): boolean {
    return this.mutate(id, (person) => {
      for (const key of keys) delete person.properties[key];
    });
  }

  /**
   * The one way to change a person: later write endpoints (update, split, ...) go through here so
   * the change is kept and cached scans are invalidated. Objects returned by the getters are
   * copies as far as callers are concerned; changing them directly has no lasting effect.
   */
  mutate(id: number, change: (person: Person) => void): boolean {
    const person = this.getById(id);
    if (!person) return false;
    change(person);
    this.overrides.set(id, person);
    // The change is the person from now on: the generated one kept for scans is never read again.
    this.readCache.delete(id);
    this.version++;
    return true;
  }

  /**
   * A person created after start-up (split-off persons), placed in the live order by created_at.
   * Its uuid and distinct ids must not belong to a live person already.
   */
  addPerson(input: {
    uuid: string;
    createdAtUs: number;
    distinctIds: string[];
    properties?: Record<string, unknown>;
    isIdentified?: boolean;
    /** Created for a deleted person's distinct id: hidden from listings and HogQL (`hidden`). */
    hidden?: boolean;
  }): Person {
    const id = this.lastId + 1;
    if (id >= this.createdAtUs.length) {
      const createdAtUs = new Float64Array(this.createdAtUs.length * 2 + 16);
      createdAtUs.set(this.createdAtUs);
      this.createdAtUs = createdAtUs;
      const deleted = new Uint8Array(createdAtUs.length);
      deleted.set(this.deleted);
      this.deleted = deleted;
    }
    this.added++;
    this.createdAtUs[id] = input.createdAtUs;
    const person: Person = {
      id,
      uuid: input.uuid,
      createdAt: formatTimestampUs(input.createdAtUs),
      createdAtUs: input.createdAtUs,
      properties: { ...(input.properties ?? {}) },
      distinctIds: [...input.distinctIds],
      isIdentified: input.isIdentified ?? false,
      lastSeenAt: null,
    };
    this.overrides.set(id, person);
    this.addedUuids.set(input.uuid, id);
    for (const distinctId of input.distinctIds) this.distinctIdOwners.set(distinctId, id);
    if (input.hidden) this.hidden.add(id);
    else {
      this.insertLive(id);
      this.liveCount++;
    }
    this.version++;
    return person;
  }

  /** Puts a person into the live order by created_at (created_at DESC, id DESC): when the order
   * is next read, with every person added since, in one pass. Inserting each at once copied the
   * whole order a person: ingesting 4,500 new persons into a world of 20,000 took seconds. */
  private insertLive(id: number): void {
    this.pendingLive.push(id);
  }

  /** Merges the persons waiting in `pendingLive` into the live order. */
  private mergePendingLive(live: Int32Array): Int32Array {
    const at = this.createdAtUs;
    const sortsBefore = (a: number, b: number) => at[a] > at[b] || (at[a] === at[b] && a > b);
    const pending = this.pendingLive.filter((id) => !this.deleted[id] && !this.hidden.has(id)).sort((a, b) => (sortsBefore(a, b) ? -1 : 1));
    this.pendingLive = [];
    const merged = new Int32Array(live.length + pending.length);
    let [i, j, k] = [0, 0, 0];
    while (i < live.length || j < pending.length) {
      merged[k++] = j === pending.length || (i < live.length && sortsBefore(live[i], pending[j])) ? live[i++] : pending[j++];
    }
    return merged;
  }

  /**
   * Gives a live person another UUID (the documented example person, see documented.ts); lookups
   * by the new UUID find it. False when the person is unknown or the UUID is taken.
   */
  giveUuid(id: number, uuid: string): boolean {
    const canonical = canonicalUuid(uuid);
    if (!canonical || this.idOfUuid(canonical) !== undefined || !this.mutate(id, (p) => void (p.uuid = canonical))) return false;
    this.addedUuids.set(canonical, id);
    return true;
  }

  /**
   * A merge keeps the earlier created_at of the two persons: the person moves in the live order.
   * A generated person's UUID embeds its created_at, so it is registered to be found by UUID.
   */
  changeCreatedAt(id: number, createdAtUs: number): boolean {
    const person = this.getById(id);
    if (!person) return false;
    this.mutate(id, (p) => {
      p.createdAtUs = createdAtUs;
      p.createdAt = formatTimestampUs(createdAtUs);
    });
    this.addedUuids.set(person.uuid, id);
    if (id <= this.generated && !this.generatedAtUs.has(id)) this.generatedAtUs.set(id, this.createdAtUs[id]);
    const visible = !this.hidden.has(id);
    if (visible) {
      const live = this.liveIds().filter((other) => other !== id);
      this.live = live;
      this.lastLive = live;
    }
    this.createdAtUs[id] = createdAtUs;
    if (visible) this.insertLive(id);
    return true;
  }

  /** A generated person as start-up made it, whatever happened to it since (seeded history). */
  original(id: number): Person | undefined {
    return Number.isInteger(id) && id >= 1 && id <= this.generated ? this.generate(id) : undefined;
  }

  /** Moves a distinct id to another live person (split). False when that person is unknown. */
  moveDistinctId(distinctId: string, toId: number): boolean {
    if (!this.getById(toId)) return false;
    const from = this.getByDistinctId(distinctId);
    if (from && from.id !== toId) this.mutate(from.id, (p) => void (p.distinctIds = p.distinctIds.filter((d) => d !== distinctId)));
    this.mutate(toId, (p) => {
      if (!p.distinctIds.includes(distinctId)) p.distinctIds.push(distinctId);
    });
    this.distinctIdOwners.set(distinctId, toId);
    return true;
  }

  // ---- internals ---------------------------------------------------------------------------

  /** The highest person id in use: generated persons, then added ones. */
  private get lastId(): number {
    return this.generated + this.added;
  }

  private liveIds(): Int32Array {
    if (this.pendingLive.length > 0) {
      const merged = this.mergePendingLive(this.live ?? this.rebuiltLive());
      this.live = merged;
      this.lastLive = merged;
    }
    return this.live ?? this.rebuiltLive();
  }

  /** The live order again from the last one built, once persons left it. */
  private rebuiltLive(): Int32Array {
    if (this.liveCount === this.generated && this.added === 0) {
      this.live = this.order;
      return this.live;
    }
    const source = this.lastLive;
    // Sized by what is found: persons waiting to be inserted are counted live but not in `source`.
    const found = new Int32Array(source.length);
    let k = 0;
    for (let i = 0; i < source.length; i++) {
      const id = source[i];
      if (!this.deleted[id] && !this.hidden.has(id)) found[k++] = id;
    }
    const live = k === found.length ? found : found.slice(0, k);
    this.live = live;
    this.lastLive = live;
    return live;
  }

  private matchingIds(filter: PersonFilter): Int32Array {
    const hasScan = filter.email !== undefined || (filter.search !== undefined && filter.search !== '') || filter.match !== undefined;
    if (filter.distinctId !== undefined) {
      const person = this.getByDistinctId(filter.distinctId);
      if (!person || this.hidden.has(person.id) || (hasScan && !this.matches(person, filter))) return new Int32Array(0);
      return Int32Array.of(person.id);
    }
    if (!hasScan) return this.liveIds();
    const cacheable = filter.match === undefined || filter.matchKey !== undefined;
    const key = JSON.stringify([filter.email ?? null, filter.search ?? null, filter.matchKey ?? null]);
    if (cacheable) {
      const hit = this.scanCache.find((entry) => entry.key === key && entry.version === this.version);
      if (hit) return hit.ids;
    }
    const live = this.liveIds();
    const found: number[] = [];
    for (let i = 0; i < live.length; i++) {
      const person = this.materialize(live[i]);
      if (this.matches(person, filter)) found.push(person.id);
    }
    const ids = Int32Array.from(found);
    if (cacheable) {
      // A handful of entries is enough: a client pages through one filtered listing at a time.
      this.scanCache = [{ key, version: this.version, ids }, ...this.scanCache.filter((e) => e.version === this.version).slice(0, 3)];
    }
    return ids;
  }

  private matches(person: Person, filter: PersonFilter): boolean {
    if (filter.email !== undefined && person.properties.email !== filter.email) return false;
    if (filter.search !== undefined && filter.search !== '' && !searchFinds(person, filter.search)) return false;
    if (filter.match && !filter.match(person)) return false;
    return true;
  }

  private materialize(id: number): Person {
    return this.overrides.get(id) ?? this.generate(id);
  }

  private uuidV7(ms: number, tail32: number, rand: () => number): string {
    const hi = Math.floor(ms / 65536);
    const lo = ms % 65536;
    const randA = Math.floor(rand() * 0x1000);
    const variant = 0x8000 | Math.floor(rand() * 0x4000);
    const rand16 = Math.floor(rand() * 0x10000);
    // Version 7 in the third group's first digit.
    return uuidText(hi, (lo << 16) | 0x7000 | randA, (variant << 16) | rand16, tail32);
  }

  /** created_at as generated. */
  private bornAtUs(id: number): number {
    return this.generatedAtUs.get(id) ?? this.createdAtUs[id];
  }

  /** The uuid is the first thing drawn from a person's stream, so it can be computed alone. */
  private uuidOf(id: number): string {
    return this.uuidV7(Math.floor(this.bornAtUs(id) / 1000), scramble32(id, this.uuidKey), mulberry32(hash32(this.personSeed, id)));
  }

  /** Everything about person `id` except created_at, drawn from its own PRNG stream. */
  private generate(id: number): Person {
    const rand = mulberry32(hash32(this.personSeed, id));
    const createdAtUs = this.bornAtUs(id);
    const createdMs = Math.floor(createdAtUs / 1000);
    const uuid = this.uuidV7(createdMs, scramble32(id, this.uuidKey), rand);
    const kind = rand();
    const country = COUNTRIES[Math.floor(rand() * COUNTRIES.length)];
    const planRoll = rand();
    const plan = planRoll < 0.6 ? 'free' : planRoll < 0.9 ? 'team' : 'enterprise';
    const first = FIRST_NAMES[Math.floor(rand() * FIRST_NAMES.length)];
    const last = LAST_NAMES[Math.floor(rand() * LAST_NAMES.length)];
    const sessions = Math.floor(rand() * 500);
    const anonymousId = (slot: 0 | 1): string =>
      this.uuidV7(Math.max(0, createdMs - 1000 - Math.floor(rand() * 86_400_000)), scramble32(id, this.anonKeys[slot]), rand);

    let properties: Record<string, unknown>;
    let distinctIds: string[];
    let isIdentified = true;
    if (kind < 0.12) {
      // Anonymous visitor: never identified, only a device id, no e-mail.
      isIdentified = false;
      properties = { $browser: BROWSERS[Math.floor(rand() * BROWSERS.length)], country };
      distinctIds = [anonymousId(0)];
    } else {
      if (kind < 0.15) {
        properties = { username: `${first.toLowerCase()}${id}`, plan, country, sessions };
      } else if (kind < 0.17) {
        // Identified but nothing to display: the API falls back to the distinct id for `name`.
        properties = { plan, country, sessions };
      } else if (kind < 0.27) {
        properties = { email: `user${id}@example.com`, plan, country, sessions };
      } else {
        properties = { email: `user${id}@example.com`, name: `${first} ${last}`, plan, country, sessions };
      }
      const extra = rand();
      // Anonymous ids often come first in storage (the device id predates the identify call);
      // the API must still list the non-anonymous one first.
      if (extra < 0.4) distinctIds = [`user-${id}`];
      else if (extra < 0.85) distinctIds = [anonymousId(0), `user-${id}`];
      else distinctIds = [anonymousId(0), `user-${id}`, anonymousId(1)];
    }
    const seen = rand();
    const lastSeenAt =
      seen < 0.2 ? null : formatTimestampUs(createdAtUs + Math.floor(rand() * Math.max(0, ANCHOR_MS * 1000 - createdAtUs)));
    return { id, uuid, createdAt: formatTimestampUs(createdAtUs), createdAtUs, properties, distinctIds, isIdentified, lastSeenAt };
  }
}

/**
 * PostHog's `search` of the persons list (posthog/queries/person_query.py, `_get_search_clauses`;
 * docs/server-contract.md §6.1): the email property contains the text, in any case, or a distinct id
 * is the text exactly, or, when the text is a UUID, the person's UUID is it. Names and parts of
 * distinct ids are not searched.
 */
function searchFinds(person: Person, search: string): boolean {
  const email = person.properties.email;
  if (email !== undefined && email !== null && String(email).toLowerCase().includes(search.toLowerCase())) return true;
  if (person.distinctIds.includes(search)) return true;
  return isUuid(search) && person.uuid.toLowerCase() === search.toLowerCase();
}
