// Person processing and event storage for one project: what PostHog's ingestion consumer does
// with an event after capture (docs/server-contract.md §14.2–§14.4). PostHog/posthog
// nodejs/src/worker/ingestion/persons/: person-property-service.ts, person-update.ts,
// person-create-service.ts, person-merge-service.ts; event-pipeline/processPersonlessStep.ts.
//
// - Every event with person processing on finds or creates the person of its distinct id (UUIDv5
//   of `<team>:<distinct id>`) and applies its `$set_once`, then `$set`, then `$unset` (only keys
//   that existed before the event), `$exception` and `$$heatmap` excepted.
// - `$identify` with `$anon_distinct_id`, and `$create_alias` / `$merge_dangerously` with `alias`,
//   merge the other id's person INTO the event's distinct id's person: the target's properties win,
//   the earlier created_at stays, is_identified becomes true, the other's distinct ids move and it
//   is deleted. Refused (the event still ingested) for an illegal distinct id, and when the other
//   person is already identified, unless `$merge_dangerously`.
// - `$process_person_profile: false`: no person is made; the event carries the UUIDv5 of its
//   distinct id (or the existing person's UUID); more than a minute after that person was created
//   it is processed in full (`force_upgrade`).
// - A project with `person_processing_opt_out` gets personless events only.
// - A distinct id of a deleted person gets a new person that ClickHouse hides until
//   reset_person_distinct_id (posthog/models/person/deletion.py).
// - Each event is stored with the person_id it was ingested with; merges write overrides.
// - An event older than the project's `drop_events_older_than` when it arrives (capture time minus
//   the event's timestamp, in seconds, above the threshold) is dropped with the ingestion warning
//   `event_dropped_too_old` (nodejs/src/ingestion/common/steps/event-processing/
//   drop-old-events-step.ts); a threshold of null or 0 keeps every event, a future one is kept.
// - Before any of that, an event without `$ip` gets the client's address (nodejs/src/utils/event.ts
//   `sanitizeEvent`), and the project's transformations run: GeoIP (geoip.ts) when the project has
//   it on, so the `$set`/`$set_once` it adds are applied with the event's own. `anonymize_ips`
//   deletes `$ip` from the stored event afterwards (prepare-event-step.ts).

import { applyGeoip } from './geoip.js';
import { valuesAsJsonb } from './jsonb.js';
import { uuidFromDistinctId } from './person-uuid.js';
import type { EventStore } from './events.js';
import type { Person, SandboxStore } from './store.js';

type Json = Record<string, unknown>;

/** An event as capture hands it over (capture.ts `readRequest`). */
export interface IngestEvent {
  uuid: string;
  event: string;
  distinctId: string;
  properties: Json;
  /** Top-level `$set` / `$set_once` of older libraries. */
  set?: Json;
  setOnce?: Json;
  timestampUs: number;
  createdAtUs: number;
  sentAt?: string;
  /** The client's address, as capture saw it. */
  ip?: string;
}

/** The project's settings that ingestion reads (world.ts `Project`). */
export interface IngestionSettings {
  /** `person_processing_opt_out`: all its events are personless. */
  personProcessingOptOut: boolean;
  geoipEnabled: boolean;
  anonymizeIps: boolean;
  dropEventsOlderThanSeconds: number | null;
}

const DEFAULT_SETTINGS: IngestionSettings = {
  personProcessingOptOut: false,
  geoipEnabled: true,
  anonymizeIps: false,
  dropEventsOlderThanSeconds: null,
};

export interface IngestionWarning {
  type: 'cannot_merge_with_illegal_distinct_id' | 'cannot_merge_already_identified' | 'event_dropped_too_old';
  eventUuid: string;
  /** The other distinct id of a refused merge. */
  sourceDistinctId?: string;
  /** The event's distinct id. */
  targetDistinctId: string;
  /** The rest of PostHog's warning details (event_dropped_too_old: `event`, `eventTimestamp`,
   * `ageInSeconds`, `dropThresholdSeconds`). */
  details?: Record<string, unknown>;
}

export interface IngestionStats {
  events: number;
  /** Events ingested personless: `$process_person_profile: false`, or the project opted out. */
  personless: number;
  /** Of those, the events of a project with `person_processing_opt_out`. */
  optedOut: number;
  personsCreated: number;
  merges: number;
  /** Events dropped as older than the project's `drop_events_older_than`. */
  droppedTooOld: number;
}

/** person-update.ts NO_PERSON_UPDATE_EVENTS */
const NO_PERSON_UPDATE_EVENTS = new Set(['$exception', '$$heatmap']);
/** processPersonlessStep.ts: a personless event this long after its person was created is processed in full. */
const FORCE_UPGRADE_AFTER_US = 60 * 1e6;

// person-merge-service.ts BARE_CASE_INSENSITIVE_ILLEGAL_IDS, BARE_CASE_SENSITIVE_ILLEGAL_IDS,
// each also quoted in single and double quotes.
const quoted = (ids: string[]) => ids.flatMap((id) => [id, `'${id}'`, `"${id}"`]);
const ILLEGAL_CASE_INSENSITIVE = new Set(
  quoted(['anonymous', 'guest', 'distinctid', 'distinct_id', 'id', 'not_authenticated', 'email', 'undefined', 'true', 'false']),
);
const ILLEGAL_CASE_SENSITIVE = new Set(quoted(['[object Object]', 'NaN', 'None', 'none', 'null', '0', 'undefined']));

/** person-merge-service.ts isDistinctIdIllegal */
export function isDistinctIdIllegal(id: string): boolean {
  return id.trim() === '' || ILLEGAL_CASE_INSENSITIVE.has(id.toLowerCase()) || ILLEGAL_CASE_SENSITIVE.has(id);
}

// person-property-utils.ts eventToPersonProperties: the event properties that describe the person
// (see liftPersonProperties; not for $snapshot and $performance_event).
const EVENT_TO_PERSON_PROPERTIES = [
  '$app_build',
  '$app_name',
  '$app_namespace',
  '$app_version',
  '$browser',
  '$browser_version',
  '$device_type',
  '$current_url',
  '$pathname',
  '$os',
  '$os_version',
  '$referring_domain',
  '$referrer',
  '$screen_height',
  '$screen_width',
  '$viewport_height',
  '$viewport_width',
  '$raw_user_agent',
  'utm_source',
  'utm_medium',
  'utm_campaign',
  'utm_content',
  'utm_name',
  'utm_term',
  'gclid',
  'gad_source',
  'gclsrc',
  'dclid',
  'gbraid',
  'wbraid',
  'fbclid',
  'msclkid',
  'twclid',
  'li_fat_id',
  'mc_cid',
  'igshid',
  'ttclid',
  'rdt_cid',
  'irclid',
  '_kx',
  'epik',
  'qclid',
  'sccid',
];

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

interface PersonUpdates {
  set: Json;
  setOnce: Json;
  unset: string[];
}

/** utils/event.ts sanitizeEvent (`$ip` from the request when the event has none), then the
 * project's transformations: GeoIP, when on. */
function transform(event: IngestEvent, settings: IngestionSettings): Json {
  const properties: Json = { ...event.properties };
  if (!properties.$ip && event.ip) properties.$ip = event.ip;
  return settings.geoipEnabled ? applyGeoip(properties) : properties;
}

/** utils/event.ts normalizeEvent: top-level `$set`/`$set_once` merged into the properties' (the
 * top-level keys win), then the automatic person properties (`liftPersonProperties`). */
function normalize(event: IngestEvent): Json {
  const properties: Json = { ...event.properties };
  for (const [key, top] of [
    ['$set', event.set],
    ['$set_once', event.setOnce],
  ] as const) {
    if (top !== undefined || isObject(properties[key])) properties[key] = { ...(isObject(properties[key]) ? properties[key] : {}), ...top };
  }
  if (event.sentAt !== undefined) properties.$sent_at = event.sentAt;
  if (event.event !== '$snapshot' && event.event !== '$performance_event') liftPersonProperties(properties);
  return properties;
}

/**
 * utils/db/utils.ts personInitialAndUTMProperties (newest): each event property that describes the
 * person goes into `$set` and, when not null, as `$initial_<key>` into `$set_once`, unless the
 * client set that key itself. Server-side SDKs (`$is_server: true`, as posthog-node sends) do not
 * lift their host's `$os` / `$os_version`; `$os_name` stands in for a missing `$os`.
 */
function liftPersonProperties(properties: Json): void {
  const server = properties.$is_server === true;
  const os = properties.$os ?? properties.$os_name;
  let set: Json | undefined;
  let setOnce: Json | undefined;
  for (const key of EVENT_TO_PERSON_PROPERTIES) {
    const value = key === '$os' ? os : properties[key];
    if (value === undefined || (server && (key === '$os' || key === '$os_version'))) continue;
    set ??= isObject(properties.$set) ? { ...properties.$set } : {};
    setOnce ??= isObject(properties.$set_once) ? { ...properties.$set_once } : {};
    if (!(key in set)) set[key] = value;
    const initial = `$initial_${key.replace('$', '')}`;
    // A null never goes into $set_once: it would block the real first value for good.
    if (value !== null && !(initial in setOnce)) setOnce[initial] = value;
  }
  if (set === undefined) return;
  properties.$set = set;
  properties.$set_once = setOnce;
}

function updatesOf(properties: Json): PersonUpdates {
  const rawUnset = properties.$unset;
  // A person's properties are jsonb: object values come back with their keys reordered.
  return {
    set: isObject(properties.$set) ? valuesAsJsonb(properties.$set) : {},
    setOnce: isObject(properties.$set_once) ? valuesAsJsonb(properties.$set_once) : {},
    unset: Array.isArray(rawUnset) ? rawUnset.map(String) : isObject(rawUnset) ? Object.keys(rawUnset) : [],
  };
}

/** person-update.ts computeEventPropertyUpdates + applyEventPropertyUpdates, against the
 * properties as they were before the event. */
export function applyUpdates(before: Json, updates: PersonUpdates): Json {
  const after: Json = { ...before };
  for (const [key, value] of Object.entries(updates.setOnce)) if (typeof before[key] === 'undefined') after[key] = value;
  for (const [key, value] of Object.entries(updates.set)) if (before[key] !== value) after[key] = value;
  for (const key of updates.unset) if (key in before) delete after[key];
  return after;
}

export class ProjectIngestion {
  /** posthog_personlessdistinctid: distinct ids seen in personless mode. */
  private readonly personless = new Set<string>();
  readonly warnings: IngestionWarning[] = [];
  readonly stats: IngestionStats = { events: 0, personless: 0, optedOut: 0, personsCreated: 0, merges: 0, droppedTooOld: 0 };

  constructor(
    private readonly teamId: number,
    private readonly store: SandboxStore,
    private readonly events: EventStore,
    private readonly settings: () => IngestionSettings = () => DEFAULT_SETTINGS,
  ) {}

  ingest(raw: IngestEvent): void {
    const settings = this.settings();
    if (this.tooOld(raw, settings.dropEventsOlderThanSeconds)) return;
    const properties = normalize({ ...raw, properties: transform(raw, settings) });
    const event = { ...raw, properties };
    let person: Person | undefined;
    let personUuid: string | undefined;
    const optedOut = settings.personProcessingOptOut;
    if (properties.$process_person_profile === false || optedOut) {
      const existing = this.store.getByDistinctId(event.distinctId);
      if (!existing) {
        this.personless.add(event.distinctId);
        personUuid = uuidFromDistinctId(this.teamId, event.distinctId);
      } else if (optedOut || event.timestampUs - existing.createdAtUs <= FORCE_UPGRADE_AFTER_US) personUuid = existing.uuid;
      if (personUuid !== undefined) this.stats.personless++;
      if (optedOut) this.stats.optedOut++;
    }
    if (personUuid === undefined) {
      person = this.processPerson(event);
      personUuid = person.uuid;
    }
    if (properties.$ip && settings.anonymizeIps) delete properties.$ip;
    this.events.add({
      uuid: event.uuid,
      event: event.event,
      distinctId: event.distinctId,
      personId: personUuid,
      timestampUs: event.timestampUs,
      createdAtUs: event.createdAtUs,
      properties: JSON.stringify(properties),
      sessionId: typeof properties.$session_id === 'string' && properties.$session_id !== '' ? properties.$session_id : null,
    });
    this.stats.events++;
  }

  /** person-event-processor.ts processEvent: the merge step, then the property updates. */
  private processPerson(event: IngestEvent & { properties: Json }): Person {
    const updates = NO_PERSON_UPDATE_EVENTS.has(event.event) ? { set: {}, setOnce: {}, unset: [] } : updatesOf(event.properties);
    const merged = this.handleIdentifyOrAlias(event, updates);
    let person = merged ?? this.store.getByDistinctId(event.distinctId);
    if (!person) return this.createPerson(event, [event.distinctId], false, updates);
    const properties = applyUpdates(person.properties, updates);
    if (merged || Object.keys(properties).length !== Object.keys(person.properties).length || changed(person.properties, properties)) {
      this.store.mutate(person.id, (p) => void (p.properties = properties));
      person = this.store.getById(person.id) ?? person;
    }
    return person;
  }

  /** person-merge-service.ts handleIdentifyOrAlias */
  private handleIdentifyOrAlias(event: IngestEvent & { properties: Json }, updates: PersonUpdates): Person | undefined {
    const { properties } = event;
    let other: string | undefined;
    if ((event.event === '$create_alias' || event.event === '$merge_dangerously') && properties.alias) other = String(properties.alias);
    else if (event.event === '$identify' && '$anon_distinct_id' in properties) other = String(properties.$anon_distinct_id);
    if (other === undefined) return undefined;
    const into = event.distinctId;
    if (other === into) return undefined;
    if (isDistinctIdIllegal(other) || isDistinctIdIllegal(into)) {
      this.warn('cannot_merge_with_illegal_distinct_id', event, other);
      return undefined;
    }
    return this.mergeDistinctIds(event, other, into, updates);
  }

  /** person-merge-service.ts mergeDistinctIds */
  private mergeDistinctIds(event: IngestEvent & { properties: Json }, other: string, into: string, updates: PersonUpdates): Person {
    const otherPerson = this.store.getByDistinctId(other);
    const intoPerson = this.store.getByDistinctId(into);
    if (otherPerson && intoPerson) {
      if (otherPerson.id === intoPerson.id) return this.identified(intoPerson);
      return this.mergePeople(event, intoPerson, otherPerson, other);
    }
    if (otherPerson || intoPerson) {
      const [existing, added] = otherPerson ? [otherPerson, into] : [intoPerson!, other];
      this.personless.add(added);
      this.store.moveDistinctId(added, existing.id);
      this.events.override(added, existing.uuid);
      return this.identified(existing);
    }
    // Neither has a person: the first id names the new person. When only `other` was used
    // personless, the ids swap so that its past events need no override.
    const intoWasNew = !this.personless.has(into);
    const otherWasNew = !this.personless.has(other);
    this.personless.add(into).add(other);
    const ids = intoWasNew && !otherWasNew ? [other, into] : [into, other];
    return this.createPerson(event, ids, true, updates);
  }

  /** person-merge-service.ts mergePeople: `other` into `into`, unless refused. */
  private mergePeople(event: IngestEvent, into: Person, other: Person, otherDistinctId: string): Person {
    // isMergeAllowed: $create_alias and $identify never merge an identified person away.
    if (other.isIdentified && event.event !== '$merge_dangerously') {
      this.warn('cannot_merge_already_identified', event, otherDistinctId);
      return into;
    }
    const properties = { ...other.properties, ...into.properties };
    const createdAtUs = Math.min(into.createdAtUs, other.createdAtUs);
    for (const distinctId of [...other.distinctIds]) {
      this.store.moveDistinctId(distinctId, into.id);
      this.events.override(distinctId, into.uuid);
    }
    this.store.removeMerged(other.id);
    if (createdAtUs !== into.createdAtUs) this.store.changeCreatedAt(into.id, createdAtUs);
    this.store.mutate(into.id, (p) => {
      p.properties = properties;
      p.isIdentified = true;
    });
    this.stats.merges++;
    return this.store.getById(into.id)!;
  }

  private identified(person: Person): Person {
    if (!person.isIdentified) this.store.mutate(person.id, (p) => void (p.isIdentified = true));
    return this.store.getById(person.id) ?? person;
  }

  /** person-create-service.ts createPerson: UUIDv5 of the first distinct id. */
  private createPerson(event: IngestEvent, distinctIds: string[], isIdentified: boolean, updates: PersonUpdates): Person {
    const [primary] = distinctIds;
    const properties: Json = { ...updates.setOnce, ...updates.set, $creator_event_uuid: event.uuid };
    const hidden = distinctIds.some((d) => this.store.isDistinctIdBlocked(d));
    const person = this.store.addPerson({
      uuid: uuidFromDistinctId(this.teamId, primary),
      createdAtUs: event.timestampUs,
      distinctIds,
      properties,
      isIdentified,
      hidden,
    });
    for (const distinctId of distinctIds.slice(1)) this.events.override(distinctId, person.uuid);
    this.stats.personsCreated++;
    return person;
  }

  /** drop-old-events-step.ts: age = capture time − the event's (sent_at-corrected) timestamp. */
  private tooOld(event: IngestEvent, thresholdSeconds: number | null): boolean {
    if (!thresholdSeconds) return false;
    const ageInSeconds = (event.createdAtUs - event.timestampUs) / 1e6;
    if (ageInSeconds <= thresholdSeconds) return false;
    this.stats.droppedTooOld++;
    this.warnings.push({
      type: 'event_dropped_too_old',
      eventUuid: event.uuid,
      targetDistinctId: event.distinctId,
      details: {
        event: event.event,
        eventTimestamp: new Date(event.timestampUs / 1000).toISOString(),
        ageInSeconds: Math.floor(ageInSeconds),
        dropThresholdSeconds: thresholdSeconds,
      },
    });
    return true;
  }

  private warn(type: IngestionWarning['type'], event: IngestEvent, source: string): void {
    this.warnings.push({ type, eventUuid: event.uuid, sourceDistinctId: source, targetDistinctId: event.distinctId });
  }
}

function changed(before: Json, after: Json): boolean {
  for (const key of Object.keys(after)) if (before[key] !== after[key]) return true;
  return false;
}
