// What a receipt names in words, for whoever reads it later: the user of the API key the run used
// (by e-mail address), so that a receipt handed on names the account that made the changes, and
// each project's name where the run knew only its id. Each is one read after the run; one that
// fails leaves a null, and the receipt is written all the same.
import type { Context } from '../../context.js';
import { getUser } from '../../api/users.js';
import { getProject } from '../../api/projects.js';
import type { CaseProject } from './projects.js';

/** The key's user's e-mail (GET /api/users/@me/), or null when the key may not read it (no
 * user:read scope) or the server cannot answer. */
export async function runBy(ctx: Context): Promise<string | null> {
  try {
    return (await getUser(await ctx.api(), '@me')).email;
  } catch {
    return null;
  }
}

/** Each project's name: the one the run found, else read now (null when it cannot be). */
export async function projectNames(ctx: Context, projects: CaseProject[]): Promise<Map<string, string | null>> {
  const names = new Map<string, string | null>();
  for (const p of projects) {
    if (p.name !== null || p.unreachable) {
      names.set(p.id, p.name);
      continue;
    }
    try {
      const project = await getProject(await ctx.api(), p.id, { signal: ctx.deps.signal });
      names.set(p.id, typeof project.name === 'string' ? project.name : null);
    } catch {
      names.set(p.id, null);
    }
  }
  return names;
}
