// Users (posthog-api.md §9). For now only reading the caller; later work adds PATCH, 2FA and the
// e-mail actions here.

import type { Handler, Services } from '../context.js';
import { permissionDenied } from '../errors.js';
import { render } from '../render.js';
import type { Router } from '../router.js';
import { findOrganization, findProject, type Organization, type SandboxUser } from '../world.js';
import { serializeProjectBasic } from './projects.js';

function serializeOrganizationBasic(org: Organization) {
  return { id: org.id, name: org.name, slug: org.slug, logo_media_id: null, membership_level: 15, members_can_use_personal_api_keys: true };
}

function serializeOrganization(org: Organization, app: Services) {
  const projects = app.world.projects.filter((p) => p.organizationId === org.id);
  return {
    id: org.id,
    name: org.name,
    slug: org.slug,
    logo_media_id: null,
    created_at: org.createdAt,
    updated_at: org.createdAt,
    membership_level: 15,
    plugins_access_level: 9,
    teams: projects.map((p) => ({ ...serializeProjectBasic(p), project_id: p.id })),
    projects: projects.map((p) => ({ id: p.id, name: p.name, organization_id: org.id })),
    available_product_features: [],
    is_member_join_email_enabled: true,
    metadata: {},
    customer_id: null,
    enforce_2fa: null,
    members_can_invite: true,
    members_can_use_personal_api_keys: true,
    allow_publicly_shared_resources: true,
    member_count: 1,
    is_ai_data_processing_approved: null,
    default_experiment_stats_method: 'bayesian',
    default_role_id: null,
  };
}

/** UserSerializer for the caller. `is_2fa_enabled` and friends become real with later work. */
export function serializeUser(user: SandboxUser, app: Services) {
  const team = findProject(app.world, user.currentTeamId)!;
  const org = findOrganization(app.world, user.currentOrganizationId)!;
  return {
    date_joined: user.dateJoined,
    uuid: user.uuid,
    distinct_id: user.distinctId,
    first_name: user.firstName,
    last_name: user.lastName,
    email: user.email,
    pending_email: null,
    is_email_verified: true,
    notification_settings: {},
    anonymize_data: false,
    toolbar_mode: 'toolbar',
    has_password: true,
    id: user.id,
    is_staff: user.isStaff,
    is_impersonated: false,
    is_impersonated_until: null,
    sensitive_session_expires_at: null,
    team: { ...serializeProjectBasic(team), project_id: team.id },
    organization: serializeOrganization(org, app),
    organizations: user.organizationIds.map((id) => serializeOrganizationBasic(findOrganization(app.world, id)!)),
    events_column_config: { active: 'DEFAULT' },
    is_2fa_enabled: false,
    has_social_auth: false,
    has_sso_enforcement: false,
    has_seen_product_intro_for: {},
    scene_personalisation: [],
    theme_mode: 'system',
    hedgehog_config: null,
    role_at_organization: 'engineering',
  };
}

const retrieveUser: Handler = (ctx, app) => {
  const caller = ctx.principal!.user;
  const wanted = ctx.params.uuid;
  if (wanted !== '@me' && wanted !== caller.uuid && !caller.isStaff) {
    throw permissionDenied("As a non-staff user you're only allowed to access the `@me` user instance.");
  }
  return render(ctx, 200, serializeUser(caller, app));
};

export function registerUserRoutes(router: Router): void {
  router.add({
    pattern: '/api/users/:uuid',
    scopeObject: 'user',
    detail: true,
    throttle: () => null,
    methods: { GET: { action: 'retrieve', handler: retrieveUser } },
  });
}
