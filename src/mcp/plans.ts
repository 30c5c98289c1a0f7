// The plans this server wrote, by plan_id: the file, its kind, and the signature it had when
// written. A plan is applied only from this list (an agent names a plan, never a file), and only
// while its file still reads as signed with that same signature: a plan edited, replaced or
// re-signed since is refused. Each kind's file is read by the reader of its verb: an erasure's
// and a merge's as the command line reads them (plan-file.ts, signed-plan.ts), an update's and an
// event deletion's as job-plan-file.ts writes them.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { configDir, ensurePrivateDir } from '../config/paths.js';
import { fileError } from '../config/secret-file.js';
import { readPlanFile } from '../bulk/engine/plan-file.js';
import { checkPlanSignature } from '../config/signed-plan.js';
import { readJobPlan } from './job-plan-file.js';
import { UsageError } from '../errors.js';

export type PlanKind = 'erasure' | 'merge' | 'update' | 'event-deletion';

/** What a plan does, read from its file each time it is checked. */
export interface PlanView {
  signature: string;
  host: string;
  projects: string[];
  /** The number a person types to approve it: persons deleted, groups merged, persons changed, events counted. */
  count: number;
  /** What it does, with its numbers: "delete 3 persons". */
  what: string;
  sample: string[];
  /** The command a person can run in a terminal instead, where it is confirmed. */
  terminal: string;
}

export interface PlanEntry extends PlanView {
  id: string;
  kind: PlanKind;
  path: string;
  /** Where the receipt of its run is, once it was applied: a plan runs once. */
  applied?: string;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** An erasure plan, as `persons bulk-delete --plan` reads it; its count from its lists. */
async function erasureView(path: string, env: NodeJS.ProcessEnv): Promise<PlanView> {
  const plan = await readPlanFile(path, env);
  const count = plan.projects.reduce((n, p) => n + p.person_uuids.length, 0);
  return {
    signature: plan.hmac_sha256,
    host: plan.host,
    projects: plan.projects.map((p) => p.project),
    count,
    what: `delete ${plural(count, 'person', 'persons')}`,
    sample: plan.projects.flatMap((p) => p.person_uuids).slice(0, 10),
    terminal: `hogctl persons bulk-delete --plan ${path}`,
  };
}

interface MergePlanGroup {
  project_id: string;
  keep: string;
  persons: { uuid: string }[];
}

/** A merge plan, as `persons merge --groups` reads it: signed; it names no host, so it is this server's. */
function mergeView(path: string, env: NodeJS.ProcessEnv, host: string): PlanView {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw fileError(err, path, 'read');
  }
  const signature = checkPlanSignature(text, path, env);
  const groups = (JSON.parse(text) as { groups: MergePlanGroup[] }).groups;
  const away = groups.reduce((n, g) => n + g.persons.length - 1, 0);
  return {
    signature,
    host,
    projects: [...new Set(groups.map((g) => g.project_id))],
    count: groups.length,
    what: `merge ${plural(groups.length, 'group', 'groups')} of persons (${plural(away, 'person', 'persons')} merged away)`,
    sample: groups.slice(0, 10).map(
      (g) =>
        `${g.keep} ← ${g.persons
          .filter((p) => p.uuid !== g.keep)
          .map((p) => p.uuid)
          .join(', ')}`,
    ),
    terminal: `hogctl persons merge --groups ${path}`,
  };
}

function jobView(path: string, env: NodeJS.ProcessEnv): PlanView {
  const plan = readJobPlan(path, env);
  return {
    signature: plan.hmac_sha256,
    host: plan.host,
    projects: [plan.project],
    count: plan.count,
    what: plan.what,
    sample: plan.sample,
    terminal: terminalOf(plan.kind, plan.args, plan.project),
  };
}

/** The verb a person can run instead, with the plan's own arguments. */
function terminalOf(kind: 'update' | 'event-deletion', args: Record<string, unknown>, project: string): string {
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const flags = Object.entries(args).flatMap(([flag, value]) => {
    const name = `--${flag.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
    if (Array.isArray(value)) return value.map((v) => `${name} ${q(String(v))}`);
    return value === true ? [name] : [`${name} ${q(String(value))}`];
  });
  return `hogctl ${kind === 'update' ? 'persons bulk-update' : 'events delete'} --project ${project} ${flags.join(' ')}`;
}

export class PlanRegistry {
  private readonly entries = new Map<string, PlanEntry>();
  private seq = 0;

  constructor(
    private readonly env: NodeJS.ProcessEnv,
    /** The server's host: a merge plan names none. */
    private readonly host: string,
  ) {}

  /** A new file path for a plan of this kind, in <config dir>/mcp-plans. */
  nextPath(kind: PlanKind, now: number): string {
    const dir = ensurePrivateDir(join(configDir(this.env), 'mcp-plans'));
    return join(dir, `${kind}-${new Date(now).toISOString().replace(/[:.]/g, '-')}-${process.pid}-${++this.seq}.json`);
  }

  private view(kind: PlanKind, path: string): Promise<PlanView> | PlanView {
    if (kind === 'erasure') return erasureView(path, this.env);
    if (kind === 'merge') return mergeView(path, this.env, this.host);
    return jobView(path, this.env);
  }

  /** Reads a freshly written plan and lists it; its id is the start of its signature. */
  async add(kind: PlanKind, path: string): Promise<PlanEntry> {
    const view = await this.view(kind, path);
    const entry: PlanEntry = { ...view, id: `plan_${view.signature.slice(0, 20)}`, kind, path };
    this.entries.set(entry.id, entry);
    return entry;
  }

  /** The plan named, re-read and re-checked: signed, and signed as it was when listed. */
  async check(id: string): Promise<PlanEntry> {
    const entry = this.entries.get(id);
    if (!entry) throw new UsageError(`no plan ${id} was made by this server; nothing was sent`, 'make one with a *_plan tool');
    if (entry.applied)
      throw new UsageError(`the plan ${id} was applied already (receipt ${entry.applied}); nothing was sent`, 'make a new plan');
    const view = await this.view(entry.kind, entry.path);
    if (view.signature !== entry.signature)
      throw new UsageError(`the plan ${id} was replaced since it was made; nothing was sent`, 'make a new plan');
    return { ...entry, ...view, applied: undefined };
  }

  /** Marks the plan run: it is never applied again. */
  markApplied(id: string, receipt: string): void {
    const entry = this.entries.get(id);
    if (entry) entry.applied = receipt;
  }
}
