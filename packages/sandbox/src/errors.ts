// Error bodies exactly as PostHog sends them (docs/server-contract.md §4): DRF exceptions rendered by
// drf-exceptions-hog as {type, code, detail, attr}. Handlers throw ErrorResponse; the dispatcher turns
// it into a response, so every error path produces the same shape and content type.

export type ErrorType = 'authentication_error' | 'invalid_request' | 'server_error' | 'throttled_error' | 'validation_error';

export interface ErrorBody {
  type: ErrorType;
  code: string;
  detail: string;
  attr: string | null;
  extra?: Record<string, unknown>;
}

export class ErrorResponse extends Error {
  readonly status: number;
  /** The JSON body to send; normally an ErrorBody, but some PostHog handlers build their own. */
  readonly body: unknown;
  readonly headers: Record<string, string>;

  constructor(status: number, body: unknown, headers: Record<string, string> = {}) {
    super(typeof body === 'object' && body && 'detail' in body ? String((body as { detail: unknown }).detail) : `HTTP ${status}`);
    this.status = status;
    this.body = body;
    this.headers = headers;
  }
}

function err(
  status: number,
  type: ErrorType,
  code: string,
  detail: string,
  attr: string | null = null,
  headers?: Record<string, string>,
): ErrorResponse {
  return new ErrorResponse(status, { type, code, detail, attr } satisfies ErrorBody, headers);
}

/** 400 from `ValidationError("text")`: DRF's `invalid` code is renamed `invalid_input`. */
export function validationError(detail: string, code = 'invalid_input', attr: string | null = null): ErrorResponse {
  return err(400, 'validation_error', code, detail, attr);
}

/** 400 from a serializer field, e.g. fieldError('email', 'required', 'This field is required.'). */
export function fieldError(attr: string, code: string, detail: string): ErrorResponse {
  return err(400, 'validation_error', code, detail, attr);
}

/**
 * person.py builds some 400s by hand with `code` and `detail` swapped (docs/server-contract.md §4); copied on purpose so
 * the CLI is tested against the real quirk.
 */
export function swappedRequiredError(attr: string): ErrorResponse {
  return new ErrorResponse(400, { attr, code: 'This field is required.', detail: 'required', type: 'validation_error' });
}

/** A non-standard error body (cohorts/lifecycle `{message, detail}`, delete_property `{success, detail}`, ...). */
export function rawError(status: number, body: unknown, headers?: Record<string, string>): ErrorResponse {
  return new ErrorResponse(status, body, headers);
}

export function parseError(reason: string): ErrorResponse {
  return err(400, 'invalid_request', 'parse_error', `JSON parse error - ${reason}`);
}

/** The 401s carry WWW-Authenticate; newest servers point it at the OAuth resource metadata. */
export function wwwAuthenticate(siteUrl: string): Record<string, string> {
  return { 'WWW-Authenticate': `Bearer resource_metadata="${siteUrl}/.well-known/oauth-protected-resource"` };
}

export function notAuthenticated(siteUrl: string): ErrorResponse {
  return err(
    401,
    'authentication_error',
    'not_authenticated',
    'Authentication credentials were not provided.',
    null,
    wwwAuthenticate(siteUrl),
  );
}

export type KeySource = 'Authorization header' | 'body' | 'query string';

export function invalidPersonalApiKey(source: KeySource, siteUrl: string): ErrorResponse {
  return err(
    401,
    'authentication_error',
    'authentication_failed',
    `Personal API key found in request ${source} is invalid.`,
    null,
    wwwAuthenticate(siteUrl),
  );
}

export function permissionDenied(detail = 'You do not have permission to perform this action.', code = 'permission_denied'): ErrorResponse {
  return err(403, 'authentication_error', code, detail);
}

export const UNSUPPORTED_KEY_ACTION = 'This action does not support personal API key access';

export function notFound(detail = 'Not found.'): ErrorResponse {
  return err(404, 'invalid_request', 'not_found', detail);
}

export function methodNotAllowed(method: string, detail?: string, allow?: string[]): ErrorResponse {
  return err(
    405,
    'invalid_request',
    'method_not_allowed',
    detail ?? `Method "${method}" not allowed.`,
    null,
    allow ? { Allow: allow.join(', ') } : undefined,
  );
}

export function notAcceptable(): ErrorResponse {
  return err(406, 'invalid_request', 'not_acceptable', 'Could not satisfy the request Accept header.');
}

export function unsupportedMediaType(contentType: string): ErrorResponse {
  return err(415, 'invalid_request', 'unsupported_media_type', `Unsupported media type "${contentType}" in request.`);
}

/** DRF's Throttled: the wait is rounded up, singular "second" when it is exactly 1. */
export function throttled(waitSeconds: number | null): ErrorResponse {
  if (waitSeconds === null) return err(429, 'throttled_error', 'throttled', 'Request was throttled.');
  const wait = Math.ceil(waitSeconds);
  return err(
    429,
    'throttled_error',
    'throttled',
    `Request was throttled. Expected available in ${wait} ${wait === 1 ? 'second' : 'seconds'}.`,
    null,
    {
      'Retry-After': String(wait),
    },
  );
}

export function serverError(): ErrorResponse {
  return err(500, 'server_error', 'error', 'A server error occurred.');
}

export function databaseUnavailable(): ErrorResponse {
  return err(503, 'server_error', 'database_unavailable', "We couldn't reach the database just now. Please try again in a moment.", null, {
    'Retry-After': '1',
  });
}

/**
 * The single DELETE of a person the server could not delete (PostHog/posthog#103144): 503, code
 * `person_deletion_failed`, a detail that names the failed step. The exact wording of the detail
 * is not in the sources read [an assumption]; clients match the code.
 */
export function personDeletionFailed(step: string): ErrorResponse {
  return err(503, 'server_error', 'person_deletion_failed', `The person could not be deleted (step: ${step}). Please try again.`);
}

/** The HTML page a load balancer answers with when the app behind it is down (502/504). */
export function proxyErrorPage(status: 502 | 503 | 504): string {
  const title = status === 502 ? '502 Bad Gateway' : status === 503 ? '503 Service Temporarily Unavailable' : '504 Gateway Time-out';
  return `<html>\r\n<head><title>${title}</title></head>\r\n<body>\r\n<center><h1>${title}</h1></center>\r\n</body>\r\n</html>\r\n`;
}
