// The fixed organisations, projects and the one user the sandbox pretends to have. Project ids
// follow the brief that tests rely on: 1 is the user's current project, 2 is a second project in
// the same organisation, 3 lives in an organisation the user does not belong to (so it exists
// but is forbidden, which must be told apart from unknown projects).

import { base62, hash32, hex, mulberry32 } from './prng.js';

export interface Organization {
  id: string;
  name: string;
  slug: string;
  createdAt: string;
}

export interface Project {
  id: number;
  uuid: string;
  organizationId: string;
  apiToken: string;
  name: string;
  timezone: string;
  createdAt: string;
  /** The team's `person_processing_opt_out` (false unless a test or `/_sandbox/` turns it on):
   * ingestion then makes every event personless, so `$set`, `$set_once` and `$unset` change no
   * one (PostHog/posthog nodejs/src/worker/ingestion/event-pipeline/processPersonlessStep.ts,
   * `team.person_processing_opt_out`). */
  personProcessingOptOut: boolean;
  /** Whether the project runs the GeoIP transformation (geoip.ts). On: PostHog makes it, enabled,
   * for every new project where MMDB is enabled (the `enabled_default_hog_functions_for_new_team`
   * signal, products/cdp/backend/models/hog_functions/hog_function.py); off when a test or
   * `/_sandbox/` disables it, as a user does on the project's data pipeline page. */
  geoipEnabled: boolean;
  /** The team's `anonymize_ips` (model default false): ingestion deletes `$ip` from the stored
   * event, after GeoIP has used it (nodejs/src/ingestion/common/steps/event-processing/
   * prepare-event-step.ts). */
  anonymizeIps: boolean;
  /** The team's `drop_events_older_than` in seconds (null: keep every event; at least an hour,
   * `MinValueValidator(timedelta(hours=1))` in posthog/models/team/team.py): ingestion drops an
   * event older than that when it arrives. Set in Django admin only: no REST serializer has it,
   * so the sandbox sets it through `/_sandbox/` alone. */
  dropEventsOlderThanSeconds: number | null;
  /** Whether the feature flag `self-service-data-deletion` is on for the project: off unless a
   * test or `/_sandbox/` turns it on, as PostHog enables it per project (data-deletion.ts). */
  selfServiceDataDeletion: boolean;
}

export interface SandboxUser {
  id: number;
  uuid: string;
  distinctId: string;
  email: string;
  firstName: string;
  lastName: string;
  isStaff: boolean;
  isActive: boolean;
  currentTeamId: number;
  currentOrganizationId: string;
  dateJoined: string;
  /** Organisations the user is a member of. */
  organizationIds: string[];
}

export interface World {
  organizations: Organization[];
  projects: Project[];
  user: SandboxUser;
}

function uuid4(rand: () => number): string {
  let h = '';
  for (let i = 0; i < 4; i++) h += hex(Math.floor(rand() * 0x100000000), 8);
  const variant = '89ab'[Math.floor(rand() * 4)];
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * `extraProjects`: ids of further projects in the user's organisation (4, 5, ...), for an erasure
 * that has to be repeated in every project of an organisation.
 */
export function createWorld(seed: number, extraProjects: number[] = []): World {
  const rand = mulberry32(hash32(seed, 0x7e11));
  const home: Organization = { id: uuid4(rand), name: 'Sandbox Org', slug: 'sandbox-org', createdAt: '2024-09-01T09:00:00.000000Z' };
  const other: Organization = { id: uuid4(rand), name: 'Other Org', slug: 'other-org', createdAt: '2024-10-01T09:00:00.000000Z' };
  const project = (id: number, org: Organization, name: string): Project => ({
    id,
    uuid: uuid4(rand),
    organizationId: org.id,
    apiToken: `phc_${base62(rand, 43)}`,
    name,
    timezone: 'UTC',
    createdAt: '2024-09-01T09:00:00.000000Z',
    personProcessingOptOut: false,
    geoipEnabled: true,
    anonymizeIps: false,
    dropEventsOlderThanSeconds: null,
    selfServiceDataDeletion: false,
  });
  const projects = [project(1, home, 'Default project'), project(2, home, 'Staging'), project(3, other, 'Someone else’s project')];
  for (const id of extraProjects) projects.push(project(id, home, `Project ${id}`));
  const user: SandboxUser = {
    id: 1,
    uuid: uuid4(rand),
    distinctId: base62(rand, 43),
    email: 'sandbox@example.com',
    firstName: 'Sandy',
    lastName: 'Box',
    isStaff: false,
    isActive: true,
    currentTeamId: 1,
    currentOrganizationId: home.id,
    dateJoined: '2024-09-01T09:00:00.000000Z',
    organizationIds: [home.id],
  };
  return { organizations: [home, other], projects, user };
}

export function findProject(world: World, id: number): Project | undefined {
  return world.projects.find((p) => p.id === id);
}

export function findOrganization(world: World, id: string): Organization | undefined {
  return world.organizations.find((o) => o.id === id);
}

export function isMember(user: SandboxUser, project: Project): boolean {
  return user.organizationIds.includes(project.organizationId);
}
