// The groups a merge takes: what `hogctl persons duplicates -o json` (an array of groups) or
// `-o ndjson` (a group a line) printed, or a plan written by `persons merge --plan-out` (an object
// with its groups, each naming the person it keeps). Every group is checked before anything is
// sent; a mistake names the line (or group) and what was wrong. A file can come from anywhere (an
// edit, a script, an older hogctl), so its shape is held to what a merge can do safely: a person
// in one group only (a person in two would join both groups into one person), two persons or
// more a group, and no group larger than --max-group.
import { UsageError } from '../errors.js';
import type { Candidate } from './find-duplicates.js';
import type { InputGroup } from './plan-groups.js';
import { isUuid } from '../api/uuid.js';

export const PLAN_FORMAT = 'hogctl persons merge plan';

export interface ReadGroups {
  groups: InputGroup[];
  /** A plan file: its keepers are kept, and --keep does not apply. */
  fromPlan: boolean;
}

export function readGroups(text: string, source: string): ReadGroups {
  const read = parseGroups(text, source);
  inOneGroupOnly(read.groups);
  return read;
}

/** A person in two groups would make both one person: refused, naming both places. */
function inOneGroupOnly(groups: InputGroup[]): void {
  const seen = new Map<string, string>();
  for (const [n, g] of groups.entries())
    for (const [i, p] of g.persons.entries()) {
      const where = `${g.where ?? `group ${n + 1}`} person ${i + 1}`;
      const key = `${g.project_id}:${p.uuid}`;
      const first = seen.get(key);
      if (first !== undefined)
        throw new UsageError(
          `${where} (${p.uuid}) is also ${first}: a person can be in one group only, or the merge would make both groups one person`,
          'join the two groups into one if they are one person, or remove the person from the group it does not belong to',
        );
      seen.set(key, where);
    }
}

/** Refuses a group larger than --max-group before anything is read or sent. */
export function refuseLargeGroups(groups: InputGroup[], maxGroup: number): void {
  const large = groups.map((g, n) => ({ g, where: g.where ?? `group ${n + 1}` })).filter(({ g }) => g.persons.length > maxGroup);
  if (large.length === 0) return;
  throw new UsageError(
    `${large.map(({ g, where }) => `${where} has ${g.persons.length} persons`).join('; ')}: more than --max-group ${maxGroup}; nothing was sent`,
    'that many persons are rarely one person: review the group, or give --max-group <n> to merge groups that large',
  );
}

function parseGroups(text: string, source: string): ReadGroups {
  const trimmed = text.trim();
  // `persons duplicates -o ndjson` prints nothing when it finds nothing: nothing to merge.
  if (trimmed === '') return { groups: [], fromPlan: false };
  if (trimmed.startsWith('[') || trimmed.startsWith('{')) {
    let value: unknown;
    try {
      value = JSON.parse(trimmed);
    } catch {
      // Not one JSON value: NDJSON, a group a line.
      return { groups: ndjson(trimmed, source), fromPlan: false };
    }
    if (Array.isArray(value)) return { groups: value.map((g, i) => group(g, `${source} group ${i + 1}`)), fromPlan: false };
    const plan = value as Record<string, unknown>;
    if (plan.format === PLAN_FORMAT && Array.isArray(plan.groups))
      return { groups: plan.groups.map((g, i) => group(g, `${source} group ${i + 1}`, true)), fromPlan: true };
    return { groups: [group(value, `${source} line 1`)], fromPlan: false };
  }
  throw new UsageError(
    `${source} is not JSON: expected what \`hogctl persons duplicates -o json\` or -o ndjson prints`,
    'e.g. hogctl persons duplicates -o ndjson | hogctl persons merge --groups -',
  );
}

function ndjson(text: string, source: string): InputGroup[] {
  return text
    .split('\n')
    .map((line, i) => [line.trim(), i + 1] as const)
    .filter(([line]) => line !== '')
    .map(([line, n]) => group(parse(line, `${source} line ${n}`), `${source} line ${n}`));
}

function parse(line: string, where: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    throw new UsageError(`${where} is not JSON`, 'give the output of `hogctl persons duplicates -o json` or -o ndjson, unchanged');
  }
}

function group(value: unknown, where: string, planned = false): InputGroup {
  const bad = (what: string) =>
    new UsageError(
      `${where}: ${what}`,
      'give the output of `hogctl persons duplicates -o json` or -o ndjson, or a plan written by --plan-out',
    );
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw bad('not a group object');
  const g = value as Record<string, unknown>;
  const project = typeof g.project_id === 'number' ? String(g.project_id) : g.project_id;
  if (typeof project !== 'string' || !/^\d+$/.test(project)) throw bad('no project_id');
  if (!Array.isArray(g.persons) || g.persons.length < 2) throw bad('a group needs "persons", two or more');
  const persons = g.persons.map((p, i) => person(p, `${where} person ${i + 1}`));
  const uuids = new Set(persons.map((p) => p.uuid));
  const twice = persons.find((p, i) => persons.findIndex((q) => q.uuid === p.uuid) !== i);
  if (twice) throw bad(`a person is listed twice (${twice.uuid})`);
  let keep: string | undefined;
  if (planned) {
    if (typeof g.keep !== 'string' || !uuids.has(g.keep.toLowerCase())) throw bad('"keep" does not name one of its persons');
    keep = g.keep.toLowerCase();
  }
  return { project_id: project, persons, keep, where, ...keyOf(g.key) };
}

/** The values the group's persons share, as `persons duplicates` printed them (text only). */
function keyOf(value: unknown): { key?: Record<string, string> } {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return {};
  const entries = Object.entries(value).filter((e): e is [string, string] => typeof e[1] === 'string');
  return entries.length > 0 ? { key: Object.fromEntries(entries) } : {};
}

function person(value: unknown, where: string): Candidate {
  const bad = (what: string) => new UsageError(`${where}: ${what}`, 'give the output of `hogctl persons duplicates`, unchanged');
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw bad('not a person object');
  const p = value as Record<string, unknown>;
  if (typeof p.uuid !== 'string' || !isUuid(p.uuid)) throw bad('no "uuid" (the person\'s UUID)');
  if (!Array.isArray(p.distinct_ids) || !p.distinct_ids.every((d) => typeof d === 'string')) throw bad('no "distinct_ids" list');
  return {
    uuid: p.uuid.toLowerCase(),
    distinct_ids: p.distinct_ids as string[],
    created_at: typeof p.created_at === 'string' ? p.created_at : '',
    last_seen: typeof p.last_seen === 'string' ? p.last_seen : null,
    event_count: typeof p.event_count === 'number' ? p.event_count : 0,
    is_identified: p.is_identified === true,
    properties: p.properties !== null && typeof p.properties === 'object' ? (p.properties as Record<string, unknown>) : {},
  };
}
