// Answers that did not come from a PostHog API. A login page, a proxy's or a parked domain's
// HTML page, a redirect to a sign-in portal or to the https:// site: each arrives with a status
// that looks fine (200, 302) and must never be read as a success. PostHog's API answers JSON,
// or an empty body with 202/204 where an action is queued (older servers' DELETE and
// bulk_delete); it never redirects an API request.
import { NotPostHogApiError } from '../errors.js';

/** Statuses that may come with an empty body from PostHog. */
const EMPTY_OK = new Set([202, 204]);

function contentTypeOf(headers: Record<string, string | string[] | undefined>): string {
  const raw = headers['content-type'];
  return (Array.isArray(raw) ? raw[0] : raw)?.split(';')[0].trim() || 'no content type';
}

function baseUrlHint(origin: string): string {
  return `check --base-url (now ${origin}): it must be the address of your PostHog, e.g. https://us.posthog.com, https://eu.posthog.com or your self-hosted site`;
}

/**
 * Throws when a 2xx answer is not one PostHog gives: a body that is neither JSON nor CSV (nor,
 * when `text` was asked for, other text that is not HTML), or an empty body with a status other
 * than 202/204.
 */
export function checkSuccessAnswer(
  method: string,
  url: URL,
  origin: string,
  res: { status: number; headers: Record<string, string | string[] | undefined>; body: unknown },
  text?: boolean,
): void {
  const type = contentTypeOf(res.headers);
  const where = `${method} ${url.pathname}`;
  if (res.body === null) {
    // A read always has something to say; an empty 202/204 is how an action is accepted.
    if (EMPTY_OK.has(res.status) && method !== 'GET' && method !== 'HEAD') return;
    throw new NotPostHogApiError(
      `${url.host} answered ${where} with ${res.status} and an empty body: this does not look like a PostHog API`,
      baseUrlHint(origin),
    );
  }
  if (typeof res.body !== 'string') return;
  // CSV is the one text PostHog serves (persons list `format=csv`, also through `hogctl api`).
  if ((text || type === 'text/csv') && !/html/i.test(type)) return;
  const title = /<title>([^<]*)<\/title>/i.exec(res.body)?.[1]?.trim();
  throw new NotPostHogApiError(
    `${url.host} answered ${where} with ${res.status} ${type}${title ? ` ("${title}")` : ''}: this does not look like a PostHog API`,
    baseUrlHint(origin),
  );
}

/** The error for a redirect: where it points and what to change. */
export function redirectError(method: string, url: URL, origin: string, status: number, location: string | undefined): NotPostHogApiError {
  const where = `${method} ${url.pathname}`;
  let target: URL | undefined;
  try {
    target = location ? new URL(location, url) : undefined;
  } catch {
    target = undefined;
  }
  const message = `${url.host} redirected ${where} (${status}) ${target ? `to ${target.href}` : 'without saying where'}: PostHog's API does not redirect`;
  if (target && target.hostname === url.hostname && url.protocol === 'http:' && target.protocol === 'https:') {
    return new NotPostHogApiError(
      message,
      `the site wants https: use --base-url ${target.origin} (or update the profile with \`hogctl profile add\`)`,
    );
  }
  if (target && target.origin !== url.origin && target.pathname.replace(/\/+$/, '') === url.pathname.replace(/\/+$/, '')) {
    return new NotPostHogApiError(message, `the API moved: use --base-url ${target.origin} if that is your PostHog`);
  }
  return new NotPostHogApiError(message, `a sign-in page or proxy answers instead of PostHog; ${baseUrlHint(origin)}`);
}

/** What PostHog answers where an action is accepted for later: an empty body (202 or 204). */
export const EMPTY = (body: unknown) => body === null;
/** A JSON object holding `key` as a string: a person (`uuid`), a user (`uuid`). */
export const OBJECT_WITH = (key: string) => (body: unknown) =>
  body !== null && typeof body === 'object' && !Array.isArray(body) && typeof (body as Record<string, unknown>)[key] === 'string';
/** `{"success": true}`. */
export const SUCCESS = (body: unknown) => body !== null && typeof body === 'object' && (body as { success?: unknown }).success === true;

/**
 * Throws when a successful answer is not in the shape its endpoint documents: JSON of another
 * shape (`{}` from a mock, a proxy or another API) is no more a PostHog answer than an HTML page,
 * and reading it as success would claim what did not happen.
 */
export function expectShape(
  res: { status: number; url: string; body: unknown },
  method: string,
  what: string,
  ok: (body: unknown) => boolean,
): void {
  if (ok(res.body)) return;
  const url = new URL(res.url);
  const got = res.body === null ? 'an empty body' : `JSON that is not ${what}`;
  throw new NotPostHogApiError(
    `${url.host} answered ${method} ${url.pathname} with ${res.status} and ${got}: this does not look like a PostHog API`,
    baseUrlHint(url.origin),
  );
}
