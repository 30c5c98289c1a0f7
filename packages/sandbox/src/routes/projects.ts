// Projects (docs/server-contract.md §8): the root list with DRF limit/offset paging and `?search=`, and a
// project by id or `@current`.

import { lastParam, type Handler, type RequestContext, type Services } from '../context.js';
import { notFound } from '../errors.js';
import { drfLimitOffsetPage } from '../paging.js';
import { render } from '../render.js';
import type { Router } from '../router.js';
import { serializeProjectBasic } from '../user-format.js';
import { isMember, type Project } from '../world.js';

function serializeProjectDetail(project: Project) {
  return {
    ...serializeProjectBasic(project),
    created_at: project.createdAt,
    effective_membership_level: 8,
    person_display_name_properties: null,
    product_description: null,
    // TeamSerializer (posthog/api/team.py) serves the team's setting; null on teams that never set it.
    person_processing_opt_out: project.personProcessingOptOut,
    // TEAM_CONFIG_FIELDS (posthog/api/team.py) and ProjectBackwardCompatSerializer
    // (posthog/api/project.py) both serve it. GeoIP is a hog function, not a team field: not here.
    anonymize_ips: project.anonymizeIps,
  };
}

const listProjects: Handler = (ctx: RequestContext, app: Services) => {
  const user = ctx.principal!.user;
  const search = (lastParam(ctx.query, 'search') ?? '').toLowerCase();
  const visible = app.world.projects
    .filter((p) => isMember(user, p))
    .filter((p) => !search || p.name.toLowerCase().includes(search))
    .map(serializeProjectBasic);
  return render(ctx, 200, drfLimitOffsetPage(ctx, visible));
};

const retrieveProject: Handler = (ctx) => {
  if (!ctx.project) throw notFound('Project not found.');
  return render(ctx, 200, serializeProjectDetail(ctx.project));
};

export function registerProjectRoutes(router: Router): void {
  router.add({
    pattern: '/api/projects',
    scopeObject: 'project',
    detail: false,
    throttle: () => 'default',
    methods: { GET: { action: 'list', handler: listProjects } },
  });
  router.add({
    pattern: '/api/projects/:projectId',
    scopeObject: 'project',
    detail: true,
    projectParam: 'projectId',
    throttle: () => 'default',
    methods: { GET: { action: 'retrieve', handler: retrieveProject } },
  });
}
