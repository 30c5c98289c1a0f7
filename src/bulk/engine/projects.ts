// The projects a bulk job runs in. PostHog keeps persons per project, so an erasure has to be
// repeated in each: `--projects 1,2,3` names them, `--all-projects` takes every project the key
// can see (GET /api/projects/, docs/server-contract.md §8: the user's projects in all their
// organisations, narrowed by the key's organisations; a key scoped to projects may not list and
// is taken at its word, the projects of its scope). A project that cannot be reached is kept in
// the list with the reason, so that the plan and the receipt name it instead of skipping it.
import type { Context } from '../../context.js';
import { ApiError, AuthError, UsageError, type CliError } from '../../errors.js';
import { getCurrentKey } from '../../api/personal-api-keys.js';
import { allProjects, getProject } from '../../api/projects.js';
import type { ApiClient } from '../../http/client.js';

export interface CaseProject {
  id: string;
  /** Null when not asked (a job in the one project of the settings). */
  name: string | null;
  /** Why the job cannot search or change this project (403, 404); the others go ahead. */
  unreachable?: string;
}

export interface ProjectsSettings {
  /** --projects 1,2,3 (or the journal's, on --resume). */
  projects?: string[];
  allProjects?: boolean;
}

/** --projects: ids, each once, in the order given. */
export function parseProjectList(raw: string): string[] {
  const ids = raw
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  const bad = ids.find((p) => !/^\d+$/.test(p));
  if (ids.length === 0 || bad !== undefined) {
    throw new UsageError(
      `invalid --projects "${raw}": expected project ids separated by commas, e.g. --projects 1,2,3`,
      '`hogctl projects list` shows the ids, and --all-projects takes every one',
    );
  }
  return [...new Set(ids)];
}

/** Whether the job spans projects named by --projects or --all-projects (else: the one in the settings). */
export function spansProjects(s: ProjectsSettings): boolean {
  return Boolean(s.allProjects || s.projects);
}

export async function caseProjects(ctx: Context, client: ApiClient | undefined, s: ProjectsSettings): Promise<CaseProject[]> {
  if (!spansProjects(s)) return [{ id: await ctx.projectId(), name: null }];
  if (!client) throw new Error('projects are looked up with a client');
  if (s.projects) return Promise.all(s.projects.map((id) => reach(ctx, client, id)));
  let listed: { id: number; name: string }[];
  try {
    listed = await allProjects(client);
  } catch (err) {
    // A key scoped to projects may not list them (403 "API keys with scoped projects are only
    // supported on project-based endpoints"): its scope is the list.
    if (!refused(err)) throw err;
    const found = await getCurrentKey(client).catch(() => undefined);
    const scoped = found && 'key' in found ? found.key.scoped_teams : [];
    if (scoped.length === 0) {
      throw new AuthError(
        `cannot list the projects for --all-projects: ${(err as CliError).message}`,
        'name them with --projects 1,2,3, or give the key the scope project:read',
      );
    }
    return Promise.all(scoped.map((id) => reach(ctx, client, String(id))));
  }
  if (listed.length === 0)
    throw new UsageError('--all-projects: the key can see no project', 'check the key in PostHog (Settings → Personal API keys)');
  return listed.map((p) => ({ id: String(p.id), name: p.name ?? null }));
}

/** A project named on the command line: its name, or why it cannot be reached. */
async function reach(ctx: Context, client: ApiClient, id: string): Promise<CaseProject> {
  try {
    const project = await getProject(client, id, { signal: ctx.deps.signal });
    return { id, name: typeof project.name === 'string' ? project.name : null };
  } catch (err) {
    if (refused(err)) return { id, name: null, unreachable: unreachableReason(err) };
    throw err;
  }
}

/** 403 (not a member, a key scoped elsewhere) or 404 (unknown, or invisible to the caller). */
export function refused(err: unknown): err is ApiError {
  return err instanceof ApiError && (err.status === 403 || err.status === 404);
}

/** "403: You don't have access to the project." */
export function unreachableReason(err: CliError): string {
  return err.message.replace(/^[^:]*failed with /, '');
}
