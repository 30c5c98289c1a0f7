// The plans this server wrote, by plan_id: the file, and the signature it had when written. A
// plan is applied only from this list (an agent names a plan, never a file), and only while its
// file still reads as signed with that same signature (plan-file.ts): a plan edited, replaced or
// re-signed since is refused.
import { join } from 'node:path';
import { configDir, ensurePrivateDir } from '../config/paths.js';
import { readPlanFile, type PlanFile } from '../bulk/engine/plan-file.js';
import { UsageError } from '../errors.js';

export interface PlanEntry {
  id: string;
  path: string;
  signature: string;
  /** What the plan does, counted from its lists. */
  persons: number;
  projects: string[];
  /** Where the receipt of its run is, once it was applied: a plan runs once. */
  applied?: string;
}

/** The persons a plan deletes, counted from its lists (never from its stated counts). */
export const personsOf = (plan: PlanFile) => plan.projects.reduce((n, p) => n + p.person_uuids.length, 0);

export class PlanRegistry {
  private readonly entries = new Map<string, PlanEntry>();
  private seq = 0;

  constructor(private readonly env: NodeJS.ProcessEnv) {}

  /** A new file path for a plan, in <config dir>/mcp-plans. */
  nextPath(now: number): string {
    const dir = ensurePrivateDir(join(configDir(this.env), 'mcp-plans'));
    return join(dir, `erasure-${new Date(now).toISOString().replace(/[:.]/g, '-')}-${process.pid}-${++this.seq}.json`);
  }

  /** Reads a freshly written plan and lists it; its id is the start of its signature. */
  async add(path: string): Promise<{ entry: PlanEntry; plan: PlanFile }> {
    const plan = await readPlanFile(path, this.env);
    const entry: PlanEntry = {
      id: `plan_${plan.hmac_sha256.slice(0, 20)}`,
      path,
      signature: plan.hmac_sha256,
      persons: personsOf(plan),
      projects: plan.projects.map((p) => p.project),
    };
    this.entries.set(entry.id, entry);
    return { entry, plan };
  }

  /** The plan named, re-read and re-checked: signed, and signed as it was when listed. */
  async check(id: string): Promise<{ entry: PlanEntry; plan: PlanFile }> {
    const entry = this.entries.get(id);
    if (!entry) throw new UsageError(`no plan ${id} was made by this server; nothing was sent`, 'make one with erasure_plan');
    if (entry.applied)
      throw new UsageError(
        `the plan ${id} was applied already (receipt ${entry.applied}); nothing was sent`,
        'make a new plan with erasure_plan',
      );
    const plan = await readPlanFile(entry.path, this.env);
    if (plan.hmac_sha256 !== entry.signature)
      throw new UsageError(`the plan ${id} was replaced since it was made; nothing was sent`, 'make a new plan with erasure_plan');
    return { entry, plan };
  }
}
