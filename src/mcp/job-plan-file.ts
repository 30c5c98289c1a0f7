// The plan file of a bulk update or an event deletion planned through `hogctl mcp`. The command
// line has no --plan-out for these two verbs, so the server writes one of its own: what the verb
// will be run with (its arguments, and for an update the exact persons, by UUID), what was counted
// when it was planned, and where; signed with the evidence key as a merge plan is
// (src/config/signed-plan.ts). plan_apply runs the verb only with a file that still reads as
// signed, with the signature the person approved.
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { UsageError } from '../errors.js';
import { createSecretFile, fileError } from '../config/secret-file.js';
import { checkPlanSignature, signedPlanText } from '../config/signed-plan.js';

export const JOB_PLAN_FORMAT = 'hogctl mcp job plan';

export interface JobPlanBody {
  format: typeof JOB_PLAN_FORMAT;
  kind: 'update' | 'event-deletion';
  created_at: string;
  host: string;
  profile: string | null;
  project: string;
  /** The verb's options, as plan_apply passes them (for an update: --file of the persons listed). */
  args: Record<string, unknown>;
  /** An update: the persons it changes, and the file of their UUIDs it is run with. */
  persons?: { file: string; sha256: string; uuids: string[] };
  /** What a person approves: the number they type, and the plan in words. */
  count: number;
  what: string;
  sample: string[];
}

export interface JobPlan extends JobPlanBody {
  hmac_sha256: string;
}

export const sha256Of = (text: string) => createHash('sha256').update(text).digest('hex');

/** Writes the plan, signed (0600, never over a file). */
export function writeJobPlan(path: string, body: JobPlanBody, env: NodeJS.ProcessEnv): void {
  if (!createSecretFile(path, signedPlanText(body as unknown as Record<string, unknown>, env)))
    throw new UsageError(`${path} exists: a plan never replaces a file`, 'make the plan again');
}

/** Reads a plan, refusing one changed since it was signed, or whose persons file changed. */
export function readJobPlan(path: string, env: NodeJS.ProcessEnv): JobPlan {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw fileError(err, path, 'read');
  }
  checkPlanSignature(text, path, env);
  const plan = JSON.parse(text) as JobPlan;
  if (plan.format !== JOB_PLAN_FORMAT) throw new UsageError(`${path} is not a plan of hogctl mcp; nothing was sent`);
  if (plan.persons) {
    let listed: string;
    try {
      listed = readFileSync(plan.persons.file, 'utf8');
    } catch (err) {
      throw fileError(err, plan.persons.file, 'read');
    }
    if (sha256Of(listed) !== plan.persons.sha256 || listed !== personsFileText(plan.persons.uuids))
      throw new UsageError(`the persons file ${plan.persons.file} of the plan ${path} was changed; nothing was sent`, 'make a new plan');
  }
  return plan;
}

/** The persons file an update runs with: a UUID a line. */
export const personsFileText = (uuids: string[]) => `${uuids.join('\n')}\n`;
