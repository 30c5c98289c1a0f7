// What `hogctl mcp` offers, from its flags: --read-only drops every tool that plans or changes,
// --allow keeps only the named families, --projects bounds the projects a tool may touch (by id or
// by name, as --project takes them: a name is looked up once, at start). A tool that is not allowed
// is not listed at all.
import { UsageError } from '../errors.js';
import { isProjectId, projectByName, type NamedProject } from '../config/project-name.js';

export const FAMILIES = ['persons', 'query', 'duplicates', 'erasure', 'merge', 'update', 'events'] as const;

export interface McpPolicy {
  readOnly: boolean;
  families: Set<string>;
  /** The projects tools may touch (ids, once resolveProjectNames ran); undefined: any the key can see. */
  projects?: string[];
}

export interface McpFlags {
  readOnly?: boolean;
  allow?: string;
  projects?: string;
}

export function parsePolicy(flags: McpFlags): McpPolicy {
  const families = flags.allow === undefined ? [...FAMILIES] : flags.allow.split(',').map((f) => f.trim());
  const unknown = families.filter((f) => !(FAMILIES as readonly string[]).includes(f));
  if (unknown.length || families.length === 0)
    throw new UsageError(
      `--allow: unknown ${unknown.length ? `kind ${unknown.join(', ')}` : 'empty list'}`,
      `the kinds are ${FAMILIES.join(', ')}`,
    );
  return {
    readOnly: Boolean(flags.readOnly),
    families: new Set(families),
    projects: flags.projects === undefined ? undefined : projectList(flags.projects),
  };
}

function projectList(raw: string): string[] {
  const given = raw.split(',').map((p) => p.trim());
  if (given.some((p) => p === ''))
    throw new UsageError(`invalid --projects "${raw}": expected project ids or names separated by commas`, 'e.g. --projects 1,Staging');
  return [...new Set(given)];
}

/** The policy with the projects named by name replaced by their ids, looked up among those the key sees. */
export async function resolveProjectNames(policy: McpPolicy, list: () => Promise<NamedProject[]>): Promise<McpPolicy> {
  if (!policy.projects || policy.projects.every(isProjectId)) return policy;
  const projects = await list();
  const ids = policy.projects.map((p) => (isProjectId(p) ? p : projectByName(p, projects, ' (in --projects)')));
  return { ...policy, projects: [...new Set(ids)] };
}

/** Refuses a project outside --projects; undefined stays the server's own project. */
export function allowedProject(policy: McpPolicy, project: string | undefined, own: string | undefined): string | undefined {
  const chosen = project ?? own;
  if (policy.projects && (chosen === undefined || !policy.projects.includes(chosen)))
    throw new UsageError(
      `project ${chosen ?? '(none)'} is not one this server may touch (--projects ${policy.projects.join(',')})`,
      'name one of those projects',
    );
  return chosen;
}
