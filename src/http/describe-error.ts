// Turns a non-success answer into the message and hint a user sees. PostHog error bodies come in
// several shapes (docs/server-contract.md §4, §13): the standard {type, code, detail, attr}, the persons
// view's swapped code/detail, {message, detail}, {success: false, detail} and {error}.
import { ApiError, ExitCode, type ServerErrorBody } from '../errors.js';

export function readErrorBody(body: unknown): ServerErrorBody {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return {};
  const b = body as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === 'string' ? v : v === undefined || v === null ? undefined : JSON.stringify(v));
  let code = str(b.code);
  let detail = str(b.detail) ?? str(b.error);
  // update/update_property answer {"code": "This field is required.", "detail": "required"}.
  if (code && detail && /\s/.test(code) && !/\s/.test(detail)) [code, detail] = [detail, code];
  if (typeof b.message === 'string') detail = detail ? `${b.message}: ${detail}` : b.message;
  return { type: str(b.type), code, detail, attr: typeof b.attr === 'string' ? b.attr : null };
}

const SESSION_ONLY = /personal api key access/i;

/**
 * The 403 of TimeSensitiveActionPermission: `sensitive_action_required_reauth` on newest servers;
 * older ones sent `permission_denied` with only this detail (docs/server-contract.md §11.6).
 */
export function needsRecentSignIn(server: ServerErrorBody): boolean {
  return server.code === 'sensitive_action_required_reauth' || server.detail === 'This action requires you to be recently authenticated.';
}

export function describeHttpError(method: string, url: string, status: number, body: unknown, statusText = ''): ApiError {
  const server = readErrorBody(body);
  const where = `${method} ${new URL(url).pathname}`;
  const said = server.detail ?? (typeof body === 'string' && body.trim() ? summarizeText(body) : statusText || 'no details given');
  const field = server.attr ? ` (field "${server.attr}")` : '';
  const message = `${where} failed with ${status}${server.code ? ` ${server.code}` : ''}: ${said}${field}`;

  if (status === 401 || status === 403) {
    let hint: string;
    if (server.detail && SESSION_ONLY.test(server.detail)) {
      // Say first what is needed; the server's words follow for the record.
      const needsSession = `this command needs a signed-in session: the server refuses personal API keys for ${where} (${status}${server.code ? ` ${server.code}` : ''}: ${said})`;
      return new ApiError(needsSession, status, server, 'sign in with `hogctl auth login`, then run the command again', ExitCode.auth);
    } else if (server.code === 'not_authenticated') {
      hint = 'no valid credentials were sent: run `hogctl profile add <name>` or set HOGCTL_API_KEY';
    } else if (server.code === 'authentication_failed') {
      hint = 'the API key was refused: check it with `hogctl profile show`, or create a new personal API key in PostHog';
    } else if (server.detail?.startsWith('API key missing required scope')) {
      hint = 'give the personal API key that scope in PostHog (Settings → Personal API keys), or use another key';
    } else if (needsRecentSignIn(server)) {
      hint = 'this action needs a recent sign-in: run `hogctl auth login` again';
    } else {
      hint = 'check that the key may access this project (--project) with `hogctl projects list`';
    }
    return new ApiError(message, status, server, hint, ExitCode.auth);
  }
  if (status === 404) return new ApiError(message, status, server, 'check the id, the project (--project) and the base URL (--base-url)');
  if (status === 429)
    return new ApiError(message, status, server, 'wait a while and run the command again; the server limits requests per API key');
  if (status >= 500 || status === 0)
    return new ApiError(
      message,
      status,
      server,
      'the server or a proxy in front of it failed; try again later, or run with --debug to see each request',
    );
  return new ApiError(message, status, server);
}

/** An HTML page from a proxy says little beyond its title; show that, not the markup. */
function summarizeText(text: string): string {
  const title = /<title>([^<]*)<\/title>/i.exec(text)?.[1]?.trim();
  if (title) return `${title} (an HTML page, probably from a proxy)`;
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 200 ? `${flat.slice(0, 200)}…` : flat;
}
