// GET /api/projects/ (docs/server-contract.md §8).
import type { ApiClient } from '../http/client.js';
import { paginate } from '../http/paginate.js';

export interface Project {
  id: number;
  uuid?: string;
  name: string;
  organization?: string;
  timezone?: string;
  /** The project's detail only (posthog/api/team.py): its events are personless when true; null
   * on teams that never set it. */
  person_processing_opt_out?: boolean | null;
  [key: string]: unknown;
}

export const PROJECT_FIELDS = [
  'id',
  'uuid',
  'name',
  'organization',
  'api_token',
  'timezone',
  'is_demo',
  'completed_snippet_onboarding',
  'ingested_event',
  'access_control',
  'has_completed_onboarding_for',
];

export function listProjects(client: ApiClient, options: { search?: string; signal?: AbortSignal } = {}) {
  return paginate<Project>(client, '/api/projects/', { search: options.search }, { signal: options.signal });
}

/** GET /api/projects/{id}/: 404 unknown or invisible, 403 not a member or a key scoped elsewhere. */
export async function getProject(client: ApiClient, id: string, options: { signal?: AbortSignal } = {}): Promise<Project> {
  return (await client.get<Project>(`/api/projects/${encodeURIComponent(id)}/`, undefined, options)).body;
}

export async function allProjects(client: ApiClient): Promise<Project[]> {
  const projects: Project[] = [];
  for await (const page of listProjects(client)) projects.push(...page);
  return projects;
}
