// `GET /api/personal_api_keys/@current/` (docs/server-contract.md §3.6, PostHog/posthog#26519): the calling
// key's label, scopes and scoped projects/organisations. Servers before it answer 404; a key
// without `personal_api_key:read` is refused (403) by the view's own scope check, so that key
// cannot see its scopes either.
import type { ApiClient } from '../http/client.js';

export interface CurrentKey {
  label: string;
  mask_value: string | null;
  scopes: string[];
  scoped_teams: number[];
  scoped_organizations: string[];
}

/** The calling key, or why it could not be read (`absent`: an older server; `refused`: the key
 * may not read itself). */
export async function getCurrentKey(client: ApiClient): Promise<{ key: CurrentKey } | { unknown: 'absent' | 'refused' }> {
  const res = await client.get<Partial<CurrentKey>>('/api/personal_api_keys/@current/', undefined, {
    acceptStatus: (s) => s === 404 || s === 403,
  });
  if (res.status === 404) return { unknown: 'absent' };
  if (res.status === 403) return { unknown: 'refused' };
  const b = res.body ?? {};
  return {
    key: {
      label: typeof b.label === 'string' ? b.label : '',
      mask_value: typeof b.mask_value === 'string' ? b.mask_value : null,
      scopes: Array.isArray(b.scopes) && b.scopes.length ? b.scopes.map(String) : ['*'],
      scoped_teams: Array.isArray(b.scoped_teams) ? b.scoped_teams.map(Number) : [],
      scoped_organizations: Array.isArray(b.scoped_organizations) ? b.scoped_organizations.map(String) : [],
    },
  };
}

/** Whether the scopes grant `wanted` (`person:write`): `*`, the scope, or for a read its write. */
export function grants(scopes: string[], wanted: string): boolean {
  if (scopes.includes('*') || scopes.includes(wanted)) return true;
  const [object, action] = wanted.split(':');
  return action === 'read' && scopes.includes(`${object}:write`);
}

/**
 * What `auth status` and `profile show` print about the key in effect: its label, scopes and
 * the projects and organisations it is limited to, or nulls (with a note on stderr) where the
 * server cannot or will not say. Never fails the command: these are descriptions.
 */
export async function describeCurrentKey(client: ApiClient, note: (line: string) => void): Promise<Record<string, unknown>> {
  const none = { api_key_label: null, api_key_scopes: null, api_key_scoped_projects: null, api_key_scoped_organizations: null };
  try {
    const found = await getCurrentKey(client);
    if ('unknown' in found) {
      note(
        found.unknown === 'absent'
          ? 'note: this server cannot tell a key its scopes (no /api/personal_api_keys/@current/)'
          : 'note: the key may not read its own scopes (it lacks personal_api_key:read)',
      );
      return none;
    }
    const { key } = found;
    return {
      api_key_label: key.label,
      api_key_scopes: key.scopes,
      api_key_scoped_projects: key.scoped_teams,
      api_key_scoped_organizations: key.scoped_organizations,
    };
  } catch (err) {
    note(`note: could not ask the server about the key: ${err instanceof Error ? err.message : String(err)}`);
    return none;
  }
}

/** ', label "ci", scopes person:read, person:write; projects 1, 2': what describeCurrentKey found, in words. */
export function keyInWords(described: Record<string, unknown>): string {
  const scopes = described.api_key_scopes as string[] | null | undefined;
  if (!scopes) return '';
  const projects = described.api_key_scoped_projects as number[] | null | undefined;
  const label = typeof described.api_key_label === 'string' && described.api_key_label ? `, label "${described.api_key_label}"` : '';
  return `${label}, scopes ${scopes.includes('*') ? 'all' : scopes.join(', ')}${projects?.length ? `; projects ${projects.join(', ')}` : ''}`;
}
