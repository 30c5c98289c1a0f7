// Plan, review, apply: `bulk-delete --dry-run --plan-out plan.json` writes what a run would do,
// fully resolved (the host, the projects, the person UUIDs of each, the flags, the identifiers by
// their salted hash), and `--plan plan.json` does exactly that and nothing else, with no lookup
// of its own. In between, a second person can review the file, and a CI pipeline can require
// their approval.
//
// The file ends with the SHA-256 of everything before it, as written. Applying it refuses a file
// that differs by one byte from what hogctl wrote (its text is checked against how hogctl writes
// that content, and the hash against the content), and one meant for another profile, host or
// projects.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Context } from '../context.js';
import { VERSION } from '../context.js';
import { UsageError } from '../errors.js';
import { fileError, writeSecretFile } from '../config/secret-file.js';
import { findings } from './finish.js';
import { identifierKey } from './identifiers.js';
import { listedInput, type Input } from './input.js';
import { JournalState, type DeleteFlags, type SelectionSpec } from './journal.js';
import type { Prepared } from './prepare.js';
import { hasSelection } from './selection.js';
import { takeSnapshot } from './snapshot.js';
import type { CaseTargets, ProjectTargets } from './targets.js';
import type { IdKind } from './validate.js';

export const PLAN_FORMAT = 1;

export interface PlanProject {
  project: string;
  name: string | null;
  /** Why it could not be searched when the plan was made; such a project gets nothing. */
  unreachable: string | null;
  person_uuids: string[];
  /** Per person, the distinct ids read when the plan was made (e-mail-like ones by salted hash). */
  distinct_ids: Record<string, string[]>;
}

export interface PlanBody {
  plan_format: number;
  command: string;
  hogctl_version: string;
  created_at: string;
  profile: string | null;
  host: string;
  projects: PlanProject[];
  flags: DeleteFlags;
  input: {
    file: string;
    id_kind: IdKind;
    ids: number;
    id_list_sha256: string;
    identifier_keys: string[];
    selection: SelectionSpec | null;
  };
  identifiers: {
    salt: string | null;
    matched: number;
    matching_several: number;
    in_several_projects: number;
    persons: number;
    unmatched_keys: string[];
  } | null;
}

export interface PlanFile extends PlanBody {
  sha256: string;
}

const bodyText = (body: PlanBody) => JSON.stringify(body, null, 2);
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The file's text: the body as hogctl writes it, then the SHA-256 of that text. */
export function planFileText(body: PlanBody): string {
  const text = bodyText(body);
  return `${text.slice(0, -2)},\n  "sha256": "${sha256(text)}"\n}\n`;
}

export function writePlanFile(path: string, body: PlanBody): void {
  writeSecretFile(path, planFileText(body));
}

/** Reads a plan, refusing one that was changed after hogctl wrote it. */
export async function readPlanFile(path: string): Promise<PlanFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw fileError(err, path, 'read');
  }
  const changed = (why: string) =>
    new UsageError(
      `the plan ${path} was changed after it was written (${why}); nothing was sent`,
      'make a new plan with --dry-run --plan-out',
    );
  let parsed: PlanFile;
  try {
    parsed = JSON.parse(text) as PlanFile;
  } catch {
    throw changed('it is not JSON');
  }
  if (parsed === null || typeof parsed !== 'object' || typeof parsed.sha256 !== 'string') throw changed('it has no sha256');
  if (parsed.plan_format !== PLAN_FORMAT) {
    throw new UsageError(
      `${path} is a plan of format ${String(parsed.plan_format)}, which this hogctl does not read`,
      'make a new plan with this hogctl',
    );
  }
  const { sha256: stated, ...body } = parsed;
  if (sha256(bodyText(body)) !== stated) throw changed('its content does not match its sha256');
  if (planFileText(body) !== text) throw changed('its text is not as hogctl wrote it');
  return parsed;
}

/** Refuses to apply a plan somewhere else than where it was made. */
export function checkPlanPlace(path: string, plan: PlanFile, now: { profile: string | null; host: string; projects?: string[] }): void {
  const redo = 'apply it with the profile and host it was made for, or make a new plan here with --dry-run --plan-out';
  if (plan.host !== now.host) throw new UsageError(`the plan ${path} was made for ${plan.host}, not ${now.host}; nothing was sent`, redo);
  if (plan.profile !== now.profile) {
    const name = (p: string | null) => (p === null ? 'no profile' : `profile ${p}`);
    throw new UsageError(`the plan ${path} was made with ${name(plan.profile)}, not ${name(now.profile)}; nothing was sent`, redo);
  }
  const planned = plan.projects.map((p) => p.project).join(',');
  if (now.projects && now.projects.join(',') !== planned) {
    throw new UsageError(
      `the plan ${path} is for projects ${planned}, not ${now.projects.join(',')}; nothing was sent`,
      'drop --projects (the plan names its own), or make a new plan for those projects',
    );
  }
}

/** A plan file as the job's input: its identifiers (by their keys), bound to the plan's hash. */
export function planInput(path: string, plan: PlanFile): Input {
  const keys = plan.input.identifier_keys;
  return listedInput(path, { kind: plan.input.id_kind, sha256: plan.sha256, ids: keys, requested: keys.length }, { path });
}

/** The persons of a plan, as it names them: no lookup. */
export function planTargets(plan: PlanFile): CaseTargets {
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
    identifiers: plan.identifiers
      ? {
          matched: plan.identifiers.matched,
          several: plan.identifiers.matching_several,
          inSeveralProjects: plan.identifiers.in_several_projects,
          persons: plan.identifiers.persons,
          unmatched: plan.identifiers.unmatched_keys,
          unmatchedKeys: plan.identifiers.unmatched_keys,
        }
      : undefined,
    unresolved: [],
    resolvedDuplicates: 0,
    newlyResolved: new Map(),
    queries: 0,
  };
}

/**
 * --plan-out: the plan of a dry run, with the persons' distinct ids read now, so that applying it
 * needs no read before it deletes.
 */
export async function writePlan(ctx: Context, p: Prepared, path: string): Promise<void> {
  const collected = new JournalState();
  for (const record of findings(p.targets, p.policy)) collected.apply(record);
  await takeSnapshot(ctx, p.client!, p.targets.projects, collected, async (record) => collected.apply(record), {
    policy: p.policy,
    reads: p.reads,
  });
  const { list } = p.input;
  const ids = p.targets.identifiers;
  writePlanFile(path, {
    plan_format: PLAN_FORMAT,
    command: p.kind.command,
    hogctl_version: VERSION,
    created_at: p.startedAt,
    profile: p.profile,
    host: p.host,
    projects: p.targets.projects.map((t) => ({
      project: t.id,
      name: t.name,
      unreachable: t.unreachable ?? null,
      person_uuids: t.ids,
      distinct_ids: Object.fromEntries(t.ids.map((id) => [id, collected.recorded.get(t.id)?.get(id) ?? []])),
    })),
    flags: p.kind.flags,
    input: {
      file: p.input.label,
      id_kind: list.kind,
      ids: list.ids.length,
      id_list_sha256: list.sha256,
      // The identifiers by their keys (salted unless --keep-identifiers): which ones the plan covers.
      identifier_keys: list.ids.map((value) => identifierKey(value, p.policy)),
      selection: hasSelection(p.s.selection) ? p.s.selection : null,
    },
    identifiers: ids
      ? {
          salt: p.policy.salt,
          matched: ids.matched,
          matching_several: ids.several,
          in_several_projects: ids.inSeveralProjects,
          persons: ids.persons,
          unmatched_keys: ids.unmatchedKeys,
        }
      : null,
  });
  ctx.info(`plan written to ${path}: apply it with \`hogctl ${p.kind.command} --plan ${path}\``);
}
