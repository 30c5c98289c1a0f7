// What the user and project endpoints answer with: PostHog's UserSerializer
// (posthog/api/user.py), with the organisation and team serialisers it nests, and
// ProjectBackwardCompatBasicSerializer (posthog/api/project.py). Used by routes/users.ts,
// routes/user-security.ts and routes/projects.ts.

import type { RequestContext, Services } from './context.js';
import { SENSITIVE_ACTIONS_AGE_MS } from './user-access.js';
import { findOrganization, findProject, type Organization, type Project, type SandboxUser } from './world.js';

/** ProjectBackwardCompatBasicSerializer fields. */
export function serializeProjectBasic(project: Project) {
  return {
    id: project.id,
    uuid: project.uuid,
    organization: project.organizationId,
    api_token: project.apiToken,
    name: project.name,
    completed_snippet_onboarding: true,
    has_completed_onboarding_for: { product_analytics: true },
    ingested_event: true,
    is_demo: false,
    timezone: project.timezone,
    access_control: false,
  };
}

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

/** When a session's sign-in stops counting as recent; null for other credentials. */
function sensitiveSessionExpiresAt(ctx: RequestContext | undefined, app: Services): string | null {
  const principal = ctx?.principal;
  if (principal?.kind !== 'session') return null;
  const loginAt = app.identity.sessions.get(principal.sessionId)?.loginAt;
  return loginAt ? new Date(loginAt + SENSITIVE_ACTIONS_AGE_MS).toISOString() : null;
}

/** UserSerializer. */
export function serializeUser(user: SandboxUser, app: Services, ctx?: RequestContext) {
  const team = findProject(app.world, user.currentTeamId)!;
  const org = findOrganization(app.world, user.currentOrganizationId)!;
  const account = app.identity.accounts.get(user.id);
  return {
    date_joined: user.dateJoined,
    uuid: user.uuid,
    distinct_id: user.distinctId,
    first_name: user.firstName,
    last_name: user.lastName,
    email: user.email,
    pending_email: account?.pendingEmail ?? null,
    is_email_verified: account ? account.emailVerified : true,
    notification_settings: {},
    anonymize_data: false,
    toolbar_mode: 'toolbar',
    has_password: true,
    id: user.id,
    is_staff: user.isStaff,
    is_impersonated: false,
    is_impersonated_until: null,
    sensitive_session_expires_at: sensitiveSessionExpiresAt(ctx, app),
    team: { ...serializeProjectBasic(team), project_id: team.id },
    organization: serializeOrganization(org, app),
    organizations: user.organizationIds.map((id) => serializeOrganizationBasic(findOrganization(app.world, id)!)),
    events_column_config: { active: 'DEFAULT' },
    is_2fa_enabled: Boolean(account?.totp),
    has_social_auth: false,
    has_sso_enforcement: false,
    has_seen_product_intro_for: {},
    scene_personalisation: [],
    theme_mode: 'system',
    hedgehog_config: null,
    role_at_organization: 'engineering',
    ...(account?.extra ?? {}),
  };
}
