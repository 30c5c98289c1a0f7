// GET /api/projects/{id}/cohorts/{cohort_id}/ (PostHog/posthog posthog/api/cohort.py, CohortViewSet;
// docs/server-contract.md §6.1): a cohort's name and size, before its members are chosen as a
// selection. Scope cohort:read.
import type { ApiClient } from '../http/client.js';
import { NotFoundError } from '../errors.js';

export interface Cohort {
  id: number;
  name: string;
  deleted?: boolean;
  is_static?: boolean;
  count?: number | null;
}

export async function getCohort(client: ApiClient, projectId: string, cohortId: string, options: { signal?: AbortSignal } = {}) {
  const res = await client.get<Cohort>(
    `/api/projects/${encodeURIComponent(projectId)}/cohorts/${encodeURIComponent(cohortId)}/`,
    undefined,
    {
      ...options,
      acceptStatus: (s) => s === 404,
    },
  );
  if (res.status === 404) {
    throw new NotFoundError(
      `no cohort ${cohortId} in project ${projectId}`,
      'check the id in PostHog (People → Cohorts), and the project with --project',
    );
  }
  return res.body;
}
