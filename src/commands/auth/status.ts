import { Command } from 'commander';
import type { Context } from '../../context.js';
import { ApiError, AuthError } from '../../errors.js';
import { withContext } from '../../cli/with-context.js';
import { examples } from '../../cli/help-text.js';
import { mark, writeSummary } from '../../io/summary.js';
import { maskKey } from '../../config/settings.js';
import { describeCurrentKey, keyInWords } from '../../api/personal-api-keys.js';
import { getUser } from '../../api/users.js';
import type { OutputSettings } from '../../io/output.js';

export function authStatusCommand(): Command {
  return new Command('status')
    .summary('show who is signed in, where, and whether the session still works')
    .description(
      'Show the signed-in session of the profile: the site, the user, when it signed in, and whether the server still accepts it (checked with GET /api/users/@me/), ' +
        "plus the API key the profile has (masked) and its user, with a warning when that is not the signed-in user (the users and email commands act as the session's user). Exits 4 when there is no working session.",
    )
    .addHelpText('after', examples('hogctl auth status', 'hogctl auth status --profile prod -o json'))
    .action(withContext(authStatusRun));
}

export async function authStatusRun(ctx: Context): Promise<void> {
  const settings = await ctx.settings();
  const output = await ctx.output();
  const jar = await ctx.sessionJar();

  // Plain values for scripts: `active` a boolean, `session` one word, the reason in `session_note`.
  let session: string = jar.state === 'active' ? 'unchecked' : jar.state;
  let note: string | null = null;
  let user = jar.user?.email ?? null;
  if (jar.foreignOrigin) note = `the saved session is for ${jar.foreignOrigin}`;
  if (jar.state === 'awaiting_code')
    note = `waiting for the code e-mailed to ${jar.pendingCode?.email}: \`hogctl auth login --email-code <code>\``;
  if (jar.state === 'active') {
    try {
      const me = await getUser(await ctx.api({ auth: 'session' }), '@me');
      user = me.email;
      session = 'active';
      note = 'accepted by the server';
    } catch (err) {
      if (!(err instanceof ApiError) || (err.status !== 401 && err.status !== 403)) throw err;
      session = 'expired';
      note = `the server answered ${err.status}`;
    }
  }
  const active = session === 'active';
  const record = {
    profile: settings.profileName ?? null,
    site: jar.origin,
    active,
    session,
    session_note: note,
    user,
    signed_in_at: jar.state === 'none' ? null : (jar.signedInAt ?? null),
    session_file: jar.exists ? jar.file : null,
    api_key: settings.apiKey ? maskKey(settings.apiKey) : null,
    api_key_source: settings.apiKey ? (settings.sources.apiKey ?? null) : null,
    ...(settings.apiKey ? await describeCurrentKey(await ctx.api(), (line) => ctx.info(line)) : {}),
    api_key_user: settings.apiKey ? await keyUser(ctx) : null,
  };
  const where = `${new URL(jar.origin).host}${settings.profileName ? ` (profile "${settings.profileName}")` : ''}`;
  const summary = [
    where,
    `  ${
      active
        ? mark(
            output,
            true,
            `Signed in as ${user}${record.signed_in_at ? ` since ${String(record.signed_in_at).slice(0, 16).replace('T', ' ')}` : ''}, and the server accepts the session`,
          )
        : mark(
            output,
            false,
            `Not signed in${session === 'none' ? '' : ` (session ${session.replace('_', ' ')}${note ? `: ${note}` : ''})`}`,
          )
    }`,
    `  ${
      settings.apiKey
        ? mark(
            output,
            true,
            `API key ${record.api_key} (from ${record.api_key_source === 'env' ? 'HOGCTL_API_KEY' : 'the profile'})${keyInWords(record)}`,
          )
        : mark(output, false, 'No API key: `hogctl profile add` saves one')
    }`,
    ...twoUsers(output, active ? user : null, record.api_key_user),
  ];
  await writeSummary(output, summary, record, { columns: Object.keys(record), fields: Object.keys(record) });
  if (!active) {
    const label = ctx.sessionLabel(settings);
    throw new AuthError(
      `not signed in to ${jar.origin} (${label}): run \`hogctl auth login\``,
      settings.apiKey ? 'commands that accept personal API keys still use the key' : undefined,
    );
  }
}

/** The e-mail of the key's user, or null when the key may not read it (no user:read scope) or
 * the server cannot say: like the key's scopes, a description that never fails the command. */
async function keyUser(ctx: Context): Promise<string | null> {
  try {
    return (await getUser(await ctx.api(), '@me')).email;
  } catch {
    return null;
  }
}

/**
 * A session of one user with the key of another is easy to set up by mistake (a colleague's key in
 * the profile) and changes who a command acts as: say which commands go as whom.
 */
function twoUsers(output: OutputSettings, sessionUser: string | null, keyUser: string | null): string[] {
  if (!sessionUser || !keyUser || sessionUser.toLowerCase() === keyUser.toLowerCase()) return [];
  return [
    `  ${mark(
      output,
      false,
      `The API key is ${keyUser}'s, not ${sessionUser}'s: users and email commands act as ${sessionUser} (the session), the others as ${keyUser} (the key)`,
    )}`,
  ];
}
