// GET /api/projects/{id}/cohorts/ and /cohorts/{id}/ (PostHog/posthog posthog/api/cohort.py,
// CohortViewSet): the seeded cohorts of each project (cohorts.ts). The list leaves out deleted
// cohorts; a retrieve still finds one, with `deleted: true` [I: CohortViewSet filters deleted
// cohorts for the list action only]. A cohort of another project is a 404.
import type { Handler } from '../context.js';
import { cohortCount, cohortsOf, type Cohort } from '../cohorts.js';
import { notFound } from '../errors.js';
import { drfLimitOffsetPage } from '../paging.js';
import { render } from '../render.js';
import type { ThrottleClass } from '../rate-limit.js';
import type { Router } from '../router.js';
import type { SandboxStore } from '../store.js';
import { storeFor } from '../person-viewset.js';

function serializeCohort(cohort: Cohort, store: SandboxStore) {
  return {
    id: cohort.id,
    name: cohort.name,
    description: '',
    deleted: cohort.deleted,
    is_static: false,
    is_calculating: false,
    count: cohortCount(store, cohort),
    created_at: '2024-09-01T09:00:00.000000Z',
    errors_calculating: 0,
  };
}

const listCohorts: Handler = (ctx, app) => {
  const store = storeFor(ctx, app);
  const rows = cohortsOf(ctx.project!.id)
    .filter((c) => !c.deleted)
    .map((c) => serializeCohort(c, store));
  return render(ctx, 200, drfLimitOffsetPage(ctx, rows, 100));
};

const retrieveCohort: Handler = (ctx, app) => {
  const store = storeFor(ctx, app);
  const id = Number(ctx.params.id);
  const cohort = cohortsOf(ctx.project!.id).find((c) => c.id === id);
  if (!cohort) throw notFound();
  return render(ctx, 200, serializeCohort(cohort, store));
};

export function registerCohortRoutes(router: Router): void {
  const common = {
    scopeObject: 'cohort',
    projectParam: 'projectId',
    throttle: (): ThrottleClass => 'default',
    environmentsAlias: true,
  } as const;
  router.add({
    ...common,
    pattern: '/api/projects/:projectId/cohorts',
    detail: false,
    methods: { GET: { action: 'list', handler: listCohorts } },
  });
  router.add({
    ...common,
    pattern: '/api/projects/:projectId/cohorts/:id',
    detail: true,
    methods: { GET: { action: 'retrieve', handler: retrieveCohort } },
  });
}
