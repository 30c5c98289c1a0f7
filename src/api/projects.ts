// GET /api/projects/ (docs/server-contract.md §8).
import type { ApiClient } from '../http/client.js';
import { paginate } from '../http/paginate.js';

export interface Project {
  id: number;
  uuid?: string;
  name: string;
  organization?: string;
  timezone?: string;
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

export async function allProjects(client: ApiClient): Promise<Project[]> {
  const projects: Project[] = [];
  for await (const page of listProjects(client)) projects.push(...page);
  return projects;
}
