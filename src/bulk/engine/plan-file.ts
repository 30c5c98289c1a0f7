// Plan, review, apply: `bulk-delete --dry-run --plan-out plan.json` writes what a run would do,
// fully resolved (the host, the projects, the person UUIDs of each, the persons each identifier
// names, the flags, the identifiers by their keyed hash, and the first that name no one sealed
// under the same key, for its reviewer to read), and `--plan plan.json` does exactly
// that and nothing else, with no lookup of its own. In between, a second person can review the
// file, and a CI pipeline can require their approval.
//
// The file ends with an HMAC-SHA256 of everything before it, as written, under the plan sub-key
// of the evidence key (src/config/evidence-key.ts), which the file names by its public id and
// never holds. Applying it refuses a file changed by anyone who does not hold that key: an
// unkeyed digest would be recomputed by whoever edits the file. It does not protect against a
// holder of the key, who can sign what they like. A signed plan must also agree with itself (its
// counts with its lists), and what is shown before it is applied is counted from the lists that
// are sent, never taken from its counts. It is refused for another profile, host or projects.
import { timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { UsageError } from '../../errors.js';
import { isUuid } from '../../api/uuid.js';
import { fileError } from '../../config/secret-file.js';
import { keyedHash, openText, requireEvidenceKey, type EvidenceKey } from '../../config/evidence-key.js';
import { CLEAR, keyedPolicy, type IdentifierPolicy } from '../input/identifiers.js';
import type { SelectionSpec } from './journal-format.js';
import { tallyIdentifiers, type CaseTargets, type IdentifierTotals, type ProjectTargets } from '../input/targets.js';
import type { IdKind } from '../input/validate.js';
import { plural } from '../../io/counts.js';

/** 2: signed with the evidence key. Plans of format 1 carried an unkeyed SHA-256. */
export const PLAN_FORMAT = 2;

export interface PlanProject {
  project: string;
  name: string | null;
  /** Why it could not be searched when the plan was made; such a project gets nothing. */
  unreachable: string | null;
  person_uuids: string[];
  /** Per person, the distinct ids read when the plan was made (e-mail-like ones by keyed hash). */
  distinct_ids: Record<string, string[]>;
  /** With identifiers: the persons each one (by its key) names here. Null for a selection. */
  matches: Record<string, string[]> | null;
}

export interface PlanBody {
  plan_format: number;
  command: string;
  hogctl_version: string;
  created_at: string;
  profile: string | null;
  host: string;
  /** The public id of the evidence key that signs the plan (and names its identifiers). */
  key_id: string;
  projects: PlanProject[];
  /** The kind's flags as it recorded them in its journal (the engine passes them through). */
  flags: Record<string, unknown>;
  input: {
    file: string;
    id_kind: IdKind;
    ids: number;
    id_list_sha256: string;
    identifier_keys: string[];
    selection: SelectionSpec | null;
  };
  identifiers: {
    /** key: HMAC-SHA256 under the evidence key; clear: as given (--keep-identifiers). */
    named_by: 'key' | 'clear';
    matched: number;
    matching_several: number;
    in_several_projects: number;
    persons: number;
    unmatched_keys: string[];
    /** The first of those (UNMATCHED_SHOWN) as given, encrypted under the evidence key (sealText),
     * so that whoever applies the plan sees the addresses, not their hashes. Absent in clear plans
     * and in plans of an earlier hogctl: those show a count. */
    unmatched_sealed?: string[];
  } | null;
}

export interface PlanFile extends PlanBody {
  hmac_sha256: string;
}

const bodyText = (body: PlanBody) => JSON.stringify(body, null, 2);

/** The file's text: the body as hogctl writes it, then its signature. */
export function planFileText(body: PlanBody, planKey: Buffer): string {
  const text = bodyText(body);
  return `${text.slice(0, -2)},\n  "hmac_sha256": "${keyedHash(planKey, text)}"\n}\n`;
}

const redo = 'make a new plan with --dry-run --plan-out, and have it reviewed';

/** Reads a plan, refusing one that was changed by anyone without its key, or disagrees with itself. */
export async function readPlanFile(path: string, env: NodeJS.ProcessEnv): Promise<PlanFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw fileError(err, path, 'read');
  }
  const changed = (why: string) => new UsageError(`the plan ${path} was changed after it was signed (${why}); nothing was sent`, redo);
  let parsed: PlanFile;
  try {
    parsed = JSON.parse(text) as PlanFile;
  } catch {
    throw changed('it is not JSON');
  }
  if (parsed === null || typeof parsed !== 'object') throw changed('it is not a plan');
  if (parsed.plan_format === 1) {
    throw new UsageError(
      `the plan ${path} is not signed: an earlier hogctl made it, with a digest anyone who edits the file can recompute; nothing was sent`,
      `${redo} again`,
    );
  }
  if (parsed.plan_format !== PLAN_FORMAT) {
    throw new UsageError(
      `${path} is a plan of format ${String(parsed.plan_format)}, which this hogctl does not read`,
      'make a new plan with this hogctl',
    );
  }
  const { hmac_sha256: stated, ...body } = parsed;
  if (typeof stated !== 'string' || typeof body.key_id !== 'string') throw changed('it has no signature');
  const key = requireEvidenceKey(env, body.key_id, `the plan ${path} was signed`);
  const expected = Buffer.from(keyedHash(key.plan, bodyText(body)), 'hex');
  const given = Buffer.from(stated, 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw changed('its signature does not match its content');
  if (planFileText(body, key.plan) !== text) throw changed('its text is not as hogctl wrote it');
  const disagreement = disagreementOf(parsed);
  if (disagreement) throw new UsageError(`the plan ${path} disagrees with itself: ${disagreement}; nothing was sent`, redo);
  return parsed;
}

const sameSet = (a: string[], b: Set<string>) => a.length === b.size && a.every((x) => b.has(x));

/** The identifiers' totals, counted from the persons each key names in each project. Those that
 * name no one are shown as given when the plan keeps them (clear, or sealed and `key` given),
 * else only counted: a hash says nothing to its reader and fills a screen. */
function planTotals(plan: PlanBody, key?: EvidenceKey): IdentifierTotals {
  const keys = plan.input.identifier_keys;
  const t = tallyIdentifiers(
    keys,
    keys,
    plan.projects.map((p) => new Map(Object.entries(p.matches ?? {}))),
  );
  if (plan.identifiers?.named_by === 'key') t.unmatchedFirst = key ? openedUnmatched(plan, key) : [];
  return t;
}

/** The sealed addresses that named no one, opened; one that does not open to its own key is left
 * out (the signature already refuses a changed plan: this is its own check of what it shows). */
function openedUnmatched(plan: PlanBody, key: EvidenceKey): string[] {
  const sealed = plan.identifiers?.unmatched_sealed ?? [];
  const keys = plan.identifiers?.unmatched_keys ?? [];
  const opened = sealed.map((s) => openText(key.seal, s));
  return opened.every((text, i) => text !== undefined && keyedHash(key.identifiers, text) === keys[i]) ? (opened as string[]) : [];
}

/** What in a plan contradicts the rest of it, or undefined: its counts are checked against its lists. */
function disagreementOf(plan: PlanBody): string | undefined {
  if (!Array.isArray(plan.projects) || !plan.input || typeof plan.flags !== 'object') return 'it lacks its projects, input or flags';
  const keys = plan.input.identifier_keys;
  if (!Array.isArray(keys) || new Set(keys).size !== keys.length) return 'its identifier keys are not a list of distinct values';
  if (plan.input.ids !== keys.length) return `it counts ${plan.input.ids} identifiers and lists ${keys.length}`;
  const known = new Set(keys);
  for (const p of plan.projects) {
    const where = `in project ${p.project}`;
    const uuids = p.person_uuids;
    if (!Array.isArray(uuids) || !uuids.every((u) => typeof u === 'string' && isUuid(u) && u === u.toLowerCase()))
      return `${where}, a person is not a UUID in lower case`;
    const persons = new Set(uuids);
    if (persons.size !== uuids.length) return `${where}, a person is listed twice`;
    if (p.unreachable && uuids.length) return `${where}, which could not be searched, persons are listed`;
    if (!sameSet(Object.keys(p.distinct_ids ?? {}), persons)) return `${where}, the distinct ids are not those of the persons listed`;
    if ((p.matches === null) !== (plan.identifiers === null))
      return `${where}, the persons each identifier names are ${p.matches === null ? 'missing' : 'listed without identifiers'}`;
    if (p.matches) {
      const named = new Set<string>();
      for (const [key, found] of Object.entries(p.matches)) {
        if (!known.has(key)) return `${where}, persons are named by an identifier the plan does not list`;
        if (!Array.isArray(found)) return `${where}, the persons an identifier names are not a list`;
        for (const uuid of found) named.add(uuid);
      }
      if (!sameSet(uuids, named)) return `${where}, ${uuids.length} persons are listed and its identifiers name ${named.size}`;
    }
  }
  const stored = plan.identifiers;
  if (stored) {
    const t = planTotals(plan);
    const counts: [string, number, number][] = [
      ['identifiers that name a person', stored.matched, t.matched],
      ['identifiers that name several persons in a project', stored.matching_several, t.several],
      ['identifiers that name persons in several projects', stored.in_several_projects, t.inSeveralProjects],
      ['persons', stored.persons, t.persons],
    ];
    for (const [what, says, counted] of counts) if (says !== counted) return `it says ${says} ${what}, and its lists make ${counted}`;
    if (!sameSet(stored.unmatched_keys, new Set(t.unmatchedKeys))) return 'its identifiers that name no one are not those its lists leave';
  }
  return undefined;
}

/** How a plan names its identifiers: by the key that signs it, or in clear. */
export function planPolicy(plan: PlanFile, env: NodeJS.ProcessEnv): IdentifierPolicy {
  return plan.identifiers?.named_by === 'key' ? keyedPolicy(requireEvidenceKey(env, plan.key_id, 'the plan was signed')) : CLEAR;
}

/** Refuses to apply a plan somewhere else than where it was made. `project`: --project, if given. */
export function checkPlanPlace(
  path: string,
  plan: PlanFile,
  now: { profile: string | null; host: string; projects?: string[]; project?: string },
): void {
  const redo = 'apply it with the profile and host it was made for, or make a new plan here with --dry-run --plan-out';
  if (plan.host !== now.host) throw new UsageError(`the plan ${path} was made for ${plan.host}, not ${now.host}; nothing was sent`, redo);
  if (plan.profile !== now.profile) {
    const name = (p: string | null) => (p === null ? 'no profile' : `profile ${p}`);
    throw new UsageError(`the plan ${path} was made with ${name(plan.profile)}, not ${name(now.profile)}; nothing was sent`, redo);
  }
  const planned = plan.projects.map((p) => p.project);
  const named = plan.projects.length === 1 ? `project ${planned[0]}` : `projects ${planned.join(',')}`;
  for (const [flag, given] of [
    ['--projects', now.projects],
    ['--project', now.project === undefined ? undefined : [now.project]],
  ] as const) {
    if (given && given.join(',') !== planned.join(',')) {
      throw new UsageError(
        `the plan ${path} is for ${named}, not ${given.join(',')}; nothing was sent`,
        `drop ${flag} (the plan names its own), or make a new plan for ${plural(given.length, 'that project', 'those projects')}`,
      );
    }
  }
}

/** The persons of a plan, as it names them: no lookup. Its totals are counted from its lists;
 * `key` opens the addresses it keeps sealed. */
export function planTargets(plan: PlanFile, key?: EvidenceKey): CaseTargets {
  return {
    projects: plan.projects.map((p): ProjectTargets => ({
      id: p.project,
      name: p.name,
      ...(p.unreachable ? { unreachable: p.unreachable } : {}),
      ids: p.person_uuids,
      matches: new Map(),
      newlyMatched: new Map(),
      // Kept as the plan recorded them (e-mail-like ones by hash already).
      distinctIds: new Map(Object.entries(p.distinct_ids)),
      distinctIdsRecorded: true,
      sample: [],
    })),
    identifiers: plan.identifiers ? planTotals(plan, key) : undefined,
    unresolved: [],
    resolvedDuplicates: 0,
    newlyResolved: new Map(),
    queries: 0,
  };
}
