// The single door to the network (ARCHITECTURE.md §2): one keep-alive pool per origin, bearer auth,
// User-Agent, timeouts, retries, typed errors and a redacted debug log.
import type { Dispatcher } from 'undici';
import { codeCacheStatus, EnvHttpProxyAgent, undiciRequest } from './undici.js';
import {
  AnswerTooLargeError,
  NotPostHogApiError,
  RateLimitedError,
  TlsError,
  UnavailableError,
  UsageError,
  type CliError,
} from '../errors.js';
import { backoffDelay, DEFAULT_RETRY, isIdempotent, parseRetryAfter, retryableStatus, type RetryPolicy } from './retry.js';
import { describeHttpError } from './describe-error.js';
import { checkSuccessAnswer, redirectError } from './foreign-answer.js';
import { isLoopback } from './loopback.js';
import { ANSWER_CAPS, readCapped, tooLarge, type AnswerKind } from './answer-size.js';
import { sleep } from '../sleep.js';

export type Query = Record<string, string | number | boolean | undefined | null | string[]>;

export interface RequestOptions {
  method: string;
  /** A path under the base URL (`/api/...`) or an absolute URL such as a `next` link. */
  path: string;
  query?: Query;
  /** Serialised as JSON. */
  body?: unknown;
  /** Sent as it is instead (a gzip body); its content type and encoding go in `headers`. */
  rawBody?: Buffer;
  /** Overrides the method's idempotency, e.g. for a POST that is safe to repeat. */
  idempotent?: boolean;
  /** Retry policy for this request; bulk deletes bring their own. */
  retry?: Partial<RetryPolicy>;
  headers?: Record<string, string>;
  /** Return non-2xx answers instead of throwing (or retrying): the body decides too, e.g. PostHog's
   * own 504 for a query past its time limit, which a retry would only repeat. */
  acceptStatus?: (status: number, body: unknown) => boolean;
  /** Return 30x answers (with acceptStatus) instead of refusing them; for pages such as /logout
   * that redirect by design. API endpoints never redirect. */
  returnRedirects?: boolean;
  /** Keep the body as text (CSV exports). */
  text?: boolean;
  signal?: AbortSignal;
  /** Overrides the client's timeout for this request (bulk deletes take longer). */
  timeoutMs?: number;
  /** What the answer is, for how large it may be (src/http/answer-size.ts); 'other' by default. */
  answer?: AnswerKind;
}

export interface ApiResponse<T = unknown> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: T;
  url: string;
  /** Earlier attempts of this request whose fate is unknown (sent, but the answer was lost, timed
   * out or was a gateway's 502/504): the server may have carried them out. */
  unclearAttempts?: number;
}

/** Supplies credentials for a request to the client's own origin. */
export interface Credentials {
  headers(method: string, url: URL): Record<string, string> | Promise<Record<string, string>>;
  /** Every Set-Cookie the server sends (session sign-in keeps them). */
  onResponse?(url: URL, headers: Record<string, string | string[] | undefined>): void | Promise<void>;
  /** Values that must never appear in a log line. */
  secrets(): string[];
  /** Rewords a refused request in terms of these credentials (an expired session, say). */
  explain?(error: CliError): CliError;
}

export interface ClientOptions {
  baseUrl: string;
  credentials?: Credentials;
  userAgent: string;
  timeoutMs: number;
  allowInsecureHttp?: boolean;
  dispatcher?: Dispatcher;
  debug?: (line: string) => void;
  /** A line for the user (stderr): a retry that makes them wait longer than a second. */
  notice?: (line: string) => void;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
  now?: () => number;
  retry?: Partial<RetryPolicy>;
  /** The largest answer of each kind, in bytes; tests make them small. */
  answerCaps?: Partial<Record<AnswerKind, number>>;
}

class TimeoutError extends Error {}

export class ApiClient {
  readonly origin: string;
  private readonly base: URL;
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly sleep: NonNullable<ClientOptions['sleep']>;
  private readonly random: () => number;
  private readonly now: () => number;
  /** Whether the server has answered anything yet: before that, a refused connection or an
   * unknown host is almost certainly a wrong base URL, not a passing fault. */
  private reached = false;

  constructor(private readonly options: ClientOptions) {
    this.base = new URL(options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`);
    this.origin = this.base.origin;
    this.ownsDispatcher = !options.dispatcher;
    // undici parses HTTP with a WebAssembly module, compiled on the first connection. V8 compiles
    // it quickly (Liftoff) and then again, optimised, on a background thread that node waits for
    // at exit: ~80 ms added to every request command. The quick compile parses fast enough for a
    // command-line client. Set when a client that connects is made (before its first
    // connection), so that importing this module changes nothing process-wide. node:v8 is
    // fetched here, not imported: loading it costs a command ~1 ms that only this line needs.
    if (this.ownsDispatcher) process.getBuiltinModule('node:v8').setFlagsFromString('--liftoff-only');
    // EnvHttpProxyAgent keeps one keep-alive pool per origin and honours HTTPS_PROXY/NO_PROXY.
    this.dispatcher = options.dispatcher ?? new EnvHttpProxyAgent({ keepAliveTimeout: 10_000, connections: 16 });
    this.sleep = options.sleep ?? sleep;
    this.random = options.random ?? Math.random;
    this.now = options.now ?? Date.now;
    if (this.ownsDispatcher) options.debug?.(`undici code cache: ${codeCacheStatus}`);
    if (options.credentials && this.base.protocol === 'http:' && !isLoopback(this.base.hostname) && !options.allowInsecureHttp) {
      throw new UsageError(
        `refusing to send credentials over plain http:// to ${this.base.host}`,
        'use https://, or allow it for this profile with `hogctl profile add <name> --allow-insecure-http`',
      );
    }
  }

  url(path: string, query?: Query): URL {
    const url = /^https?:\/\//.test(path) ? new URL(path) : new URL(path.replace(/^\//, ''), this.base);
    for (const [key, value] of Object.entries(query ?? {})) {
      if (value === undefined || value === null || value === false) continue;
      url.searchParams.delete(key);
      if (Array.isArray(value)) for (const v of value) url.searchParams.append(key, v);
      else url.searchParams.set(key, value === true ? 'true' : String(value));
    }
    return url;
  }

  /**
   * A link the server handed out (`next`), to follow. PostHog builds them from the request
   * (`request.build_absolute_uri()`), so a self-hosted instance behind a TLS proxy without
   * IS_BEHIND_PROXY answers http:// links for its https:// site (docs/server-contract.md §2.2). When only the
   * scheme or port differs from the base URL, the same path and query on the base URL's origin is
   * the page meant: that is requested instead, with the credentials that belong there. A link to
   * another host is refused before anything is sent: without credentials the request could only
   * fail (after every retry, blaming the base URL), and its query (search terms, e-mail filters)
   * would go to a host the user never named.
   */
  link(href: string): string {
    const url = new URL(href, this.base);
    if (url.origin === this.origin) return url.href;
    if (url.hostname !== this.base.hostname) {
      throw new NotPostHogApiError(
        `the server's next page is at ${url.host}, not ${this.base.host}: the server handed out links to another host, so paging stops without sending anything there`,
        `check the server's SITE_URL and proxy settings (behind a proxy PostHog builds its links from the Host it is given: IS_BEHIND_PROXY=true, with the proxy passing X-Forwarded-Host ${this.base.host})`,
      );
    }
    // Set as parts, not resolved: a path starting with "//" would be read as another host.
    const on = new URL(this.origin);
    on.pathname = url.pathname;
    on.search = url.search;
    const rewritten = on.href;
    if (!this.linkNoted) {
      this.linkNoted = true;
      this.log(
        `the server's links point to ${url.origin}, not ${this.origin} (a proxy in front of PostHog?): following their path and query on ${this.origin}`,
      );
    }
    return rewritten;
  }

  private linkNoted = false;

  get<T = unknown>(path: string, query?: Query, extra: Partial<RequestOptions> = {}): Promise<ApiResponse<T>> {
    return this.request<T>({ ...extra, method: 'GET', path, query });
  }

  post<T = unknown>(path: string, body?: unknown, extra: Partial<RequestOptions> = {}): Promise<ApiResponse<T>> {
    return this.request<T>({ ...extra, method: 'POST', path, body });
  }

  async request<T = unknown>(req: RequestOptions): Promise<ApiResponse<T>> {
    const policy = { ...DEFAULT_RETRY, ...this.options.retry, ...req.retry };
    const method = req.method.toUpperCase();
    const idempotent = isIdempotent(method, req.idempotent);
    const url = this.url(req.path, req.query);
    let unclearAttempts = 0;
    for (let attempt = 0; ; attempt++) {
      const started = this.now();
      let outcome: { response: ApiResponse<unknown> } | { failure: Error };
      try {
        outcome = { response: await this.once(method, url, req) };
      } catch (err) {
        // Asking again would bring the same oversized answer.
        if (req.signal?.aborted || err instanceof AnswerTooLargeError) throw err;
        outcome = { failure: err as Error };
      }
      const elapsed = this.now() - started;

      if ('failure' in outcome) {
        const failure = outcome.failure;
        const reason =
          failure instanceof TimeoutError ? `timed out after ${(req.timeoutMs ?? this.options.timeoutMs) / 1000}s` : networkReason(failure);
        this.log(`${method} ${this.redact(url.href)} ✗ ${reason} (${elapsed}ms)`);
        // A certificate that does not verify will not verify on the next try either.
        if (isTlsFailure(failure)) throw tlsError(method, url, failure);
        // Nothing has answered yet and nothing listens (or the name does not resolve): one quick
        // second try covers a server that is just starting, then the base URL is the suspect.
        const unreachable = !this.reached && isUnreachable(failure);
        if (!isUnreachable(failure)) unclearAttempts++;
        const retries = unreachable ? Math.min(1, policy.maxRetries) : policy.maxRetries;
        if (idempotent && attempt < retries) {
          const delay = unreachable
            ? Math.min(250, backoffDelay(attempt, policy, this.random))
            : backoffDelay(attempt, policy, this.random);
          await this.wait(delay, req.signal, { attempt, of: retries, why: reason });
          continue;
        }
        const error = new UnavailableError(
          `${method} ${url.pathname} failed: ${reason}${attempt > 0 ? ` (after ${attempt + 1} attempts)` : ''}`,
          failure instanceof TimeoutError
            ? 'the server is slow or unreachable; raise --timeout or try again later'
            : `check the base URL (${this.origin}) and your network; run with --debug to see each request`,
        );
        // No attempt got as far as a connection: nothing was carried out.
        error.notSent = isUnreachable(failure) && unclearAttempts === 0;
        throw error;
      }

      this.reached = true;
      const res = outcome.response;
      if (unclearAttempts > 0) res.unclearAttempts = unclearAttempts;
      this.log(`${method} ${this.redact(url.href)} → ${res.status} (${elapsed}ms)`);
      // No 2xx counts until its body is one PostHog gives; a redirect is never followed.
      if (res.status >= 200 && res.status < 300) {
        checkSuccessAnswer(method, url, this.origin, res, req.text);
        return res as ApiResponse<T>;
      }
      if (res.status >= 300 && res.status < 400 && !req.returnRedirects) {
        const location = res.headers.location;
        throw redirectError(method, url, this.origin, res.status, Array.isArray(location) ? location[0] : location);
      }
      if (req.acceptStatus?.(res.status, res.body)) return res as ApiResponse<T>;

      if (retryableStatus(res.status, idempotent) && attempt < policy.maxRetries) {
        const retryAfter = parseRetryAfter(res.headers['retry-after'], this.now());
        if (retryAfter !== undefined && retryAfter > policy.maxRetryAfterMs) {
          throw this.giveUp(method, url, res, `the server asks to wait ${Math.ceil(retryAfter / 1000)}s`);
        }
        // A gateway's 502/504 may come after the server did the work; 429 and 503 refuse before it.
        if (res.status === 502 || res.status === 504) unclearAttempts++;
        await this.wait(retryAfter ?? backoffDelay(attempt, policy, this.random), req.signal, {
          attempt,
          of: policy.maxRetries,
          why: String(res.status),
        });
        continue;
      }
      throw this.giveUp(method, url, res, attempt > 0 ? `after ${attempt + 1} attempts` : undefined);
    }
  }

  /** Waits for requests in flight, unless `now`: then they are cut off (a second Ctrl-C). */
  async close(now = false): Promise<void> {
    if (!this.ownsDispatcher) return;
    if (now) await this.dispatcher.destroy();
    else await this.dispatcher.close();
  }

  private giveUp(method: string, url: URL, res: ApiResponse<unknown>, note?: string): CliError {
    const error = describeHttpError(method, url.href, res.status, res.body);
    if (res.status === 429) {
      const limited = new RateLimitedError(
        `${error.message}${note ? ` (${note})` : ''}`,
        'wait a while and run the command again; PostHog limits requests per API key',
      );
      limited.retryAfterMs = parseRetryAfter(res.headers['retry-after'], this.now());
      return limited;
    }
    if (note && res.status >= 500) error.message = `${error.message} (${note})`;
    return this.options.credentials?.explain?.(error) ?? error;
  }

  private async once(method: string, url: URL, req: RequestOptions): Promise<ApiResponse<unknown>> {
    const sameOrigin = url.origin === this.origin;
    const headers: Record<string, string> = {
      'user-agent': this.options.userAgent,
      accept: req.text ? 'text/csv, application/json;q=0.9' : 'application/json',
      ...req.headers,
    };
    // A `next` link pointing elsewhere must never receive the key or the session.
    if (sameOrigin && this.options.credentials) Object.assign(headers, await this.options.credentials.headers(method, url));
    else if (!sameOrigin) this.log(`${method} ${this.redact(url.href)}: other origin, sent without credentials`);
    let body: string | Buffer | undefined;
    if (req.rawBody !== undefined) body = req.rawBody;
    else if (req.body !== undefined) {
      body = JSON.stringify(req.body);
      headers['content-type'] = 'application/json';
    }

    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new TimeoutError('timeout')), req.timeoutMs ?? this.options.timeoutMs);
    const onAbort = () => controller.abort(req.signal?.reason);
    req.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const res = await undiciRequest.call(this.dispatcher, {
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: method as Dispatcher.HttpMethod,
        headers,
        body,
        signal: controller.signal,
      });
      const kind = req.answer ?? 'other';
      const cap = this.options.answerCaps?.[kind] ?? ANSWER_CAPS[kind];
      const declared = Number(res.headers['content-length']);
      if (declared > cap) {
        res.body.destroy();
        throw tooLarge(method, url, kind, cap, declared);
      }
      const text = await readCapped(res.body, cap, () => tooLarge(method, url, kind, cap));
      if (sameOrigin) await this.options.credentials?.onResponse?.(url, res.headers);
      return {
        status: res.statusCode,
        headers: res.headers,
        body: parseBody(text, res.headers['content-type'], req.text, res.statusCode),
        url: url.href,
      };
    } catch (err) {
      if (controller.signal.reason instanceof TimeoutError) throw controller.signal.reason;
      throw err;
    } finally {
      clearTimeout(timer);
      req.signal?.removeEventListener('abort', onAbort);
    }
  }

  private async wait(ms: number, signal: AbortSignal | undefined, retry: { attempt: number; of: number; why: string }): Promise<void> {
    this.log(`waiting ${(ms / 1000).toFixed(1)}s before retrying`);
    // Silence longer than a second looks like a hang: say what is happening.
    if (ms > 1000) this.options.notice?.(`retrying (${retry.attempt + 2}/${retry.of + 1}) after ${retry.why}, in ${Math.ceil(ms / 1000)}s`);
    await this.sleep(ms, signal);
  }

  private log(line: string): void {
    this.options.debug?.(this.redact(line));
  }

  /** Removes every secret the credentials know of, and any key passed in a query string. */
  redact(text: string): string {
    let out = text.replace(/(personal_api_key=)[^&\s]+/g, '$1[redacted]');
    for (const secret of this.options.credentials?.secrets() ?? []) {
      if (secret) out = out.split(secret).join('[redacted]');
    }
    return out;
  }
}

class TruncatedBodyError extends Error {}

function parseBody(text: string, contentType: string | string[] | undefined, wantText: boolean | undefined, status: number): unknown {
  const type = String(contentType ?? '');
  if (text === '') return null;
  if (type.includes('json') && !(wantText && status < 300)) {
    try {
      return JSON.parse(text);
    } catch {
      // A 2xx whose JSON stops halfway lost data on the way: treat it as a network failure.
      if (status < 300) throw new TruncatedBodyError(`the answer was cut off after ${text.length} bytes`);
      return text;
    }
  }
  return text;
}

function errorCode(err: Error): string | undefined {
  return (err as NodeJS.ErrnoException).code ?? (err.cause as NodeJS.ErrnoException | undefined)?.code;
}

function isUnreachable(err: Error): boolean {
  const code = errorCode(err);
  return code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN';
}

const TLS_CODES = /^(ERR_TLS_|CERT_|UNABLE_TO_(GET|VERIFY)|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|ERR_SSL_)/;

function isTlsFailure(err: Error): boolean {
  const code = errorCode(err);
  return code !== undefined && TLS_CODES.test(code);
}

/** Never retried; names the cause and the usual fixes. Nothing was sent: the request never left. */
function tlsError(method: string, url: URL, err: Error): TlsError {
  const code = errorCode(err)!;
  const cause = /SELF_SIGNED|UNABLE_TO_GET_ISSUER|UNABLE_TO_VERIFY/.test(code)
    ? 'its certificate is not signed by an authority this machine trusts'
    : code === 'ERR_TLS_CERT_ALTNAME_INVALID'
      ? `its certificate is not for ${url.hostname}`
      : /EXPIRED/.test(code)
        ? 'its certificate has expired'
        : 'the TLS connection could not be set up';
  return new TlsError(
    `${method} ${url.pathname} failed: ${url.host} could not be verified: ${cause} (${code}); nothing was sent`,
    code === 'ERR_TLS_CERT_ALTNAME_INVALID'
      ? `check the base URL's host name (${url.origin})`
      : `if your PostHog uses a private certificate authority, point NODE_EXTRA_CA_CERTS at its certificate (PEM); otherwise check the base URL (${url.origin})`,
  );
}

function networkReason(err: Error): string {
  if (err instanceof TruncatedBodyError) return err.message;
  const code = (err as NodeJS.ErrnoException).code ?? (err.cause as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host not found';
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return 'the connection was closed before an answer came';
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
      return 'timed out';
    default:
      return code ? `${err.message} (${code})` : err.message;
  }
}
