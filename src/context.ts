// Everything a command needs from the world, behind one object. Each part is created on first
// use. The heavy ones (the HTTP client, inquirer) are lazy imports, so a command loads only what
// it uses; reading settings and profiles is small and always loaded.
import type { Dispatcher } from 'undici';
import { AuthError, UsageError } from './errors.js';
import { colorEnabled, type Io } from './io/streams.js';
import { fitToTerminal } from './io/columns.js';
import type { ApiClient, Credentials } from './http/client.js';
import { ProfileStore } from './config/profiles.js';
import { configDir } from './config/paths.js';
import { checkKeyDestination, fromEnv, resolveSettings, type Settings } from './config/settings.js';
import { isProjectId, projectByName } from './config/project-name.js';
import { parseFormat, parseFields, type Format, type OutputSettings } from './io/output.js';
import { checkFilter, type OutputFilter } from './io/filter.js';
import type { SessionJar } from './config/session-jar.js';
import type { Prompter } from './prompts/prompter.js';
import type { Invocation } from './cli/rerun.js';
import { MAX_TIMER_MS, sleep, type Clock } from './sleep.js';

declare const HOGCTL_VERSION: string;
export const VERSION: string = typeof HOGCTL_VERSION === 'string' ? HOGCTL_VERSION : '0.0.0-dev';

/** What main() is given: the process's streams and environment in real use, fakes in tests. */
export interface Deps {
  io: Io;
  env: NodeJS.ProcessEnv;
  /** The clock and the one wait; the Context fills in the real ones (`ctx.clock`). */
  now?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
  /** Replaces the network (tests use undici's MockAgent). */
  dispatcher?: Dispatcher;
  prompter?: Prompter;
  /** Aborted on Ctrl-C or SIGTERM. */
  signal?: AbortSignal;
  /** Aborted on a second Ctrl-C (or SIGTERM), when a command said it handles one. */
  quit?: AbortSignal;
  /** Says that the running command handles a second Ctrl-C itself (a bulk run writes up what
   * it knows); otherwise the process ends at once. */
  handlesQuit?: () => void;
  /** How the bin compiled the bundle (through its shipped V8 code cache, node's compile cache,
   * or from source, and why): `--debug` says it with the first request. */
  codeCacheStatus?: string;
}

/** The flags every command takes (ARCHITECTURE.md §1), as commander hands them over. */
export interface GlobalOptions {
  profile?: string;
  baseUrl?: string;
  project?: string;
  output?: string;
  fields?: string;
  jq?: string;
  template?: string;
  wide?: boolean;
  quiet?: boolean;
  color?: boolean;
  input?: boolean;
  debug?: boolean;
  timeout?: string;
}

export class Context {
  private profileStore?: ProfileStore;
  private settingsPromise?: Promise<Settings>;
  private projectIdByName?: Promise<string>;
  /** Whether the default site was named on stderr (once a run). */
  private defaultSiteSaid = false;
  private readonly clients: ApiClient[] = [];
  private readonly closers: (() => Promise<void> | void)[] = [];
  private outputAsked = false;
  /** The progress bar on the terminal, while one is drawn: lines written meanwhile go above it. */
  private bar?: { note(line: string): void };
  /** The time and the one wait (src/sleep.ts) every part of a command reads and waits through:
   * the real ones unless main() was given others (tests run on virtual time). */
  readonly clock: Clock;

  constructor(
    readonly deps: Deps,
    readonly globals: GlobalOptions,
    /** The command line as typed, for a command that prints how to run it again. */
    readonly invocation: Invocation = { path: [], args: [], flags: [] },
  ) {
    this.clock = { now: deps.now ?? Date.now, sleep: deps.sleep ?? sleep };
  }

  get io(): Io {
    return this.deps.io;
  }

  get env(): NodeJS.ProcessEnv {
    return this.deps.env;
  }

  /** A person can answer questions: a terminal on both ends, and no --no-input. */
  get interactive(): boolean {
    return this.globals.input !== false && Boolean(this.io.stdin.isTTY) && Boolean(this.io.stderr.isTTY);
  }

  colorOn(stream: 'stdout' | 'stderr' = 'stderr'): boolean {
    return colorEnabled(this.io[stream], this.env, this.globals.color);
  }

  /** Progress and notes go to stderr and are silenced by --quiet; data never goes here. */
  info(message: string): void {
    if (!this.globals.quiet) this.line(message);
  }

  warn(message: string): void {
    this.line(`${this.colorOn() ? '\u001b[33mwarning:\u001b[39m' : 'warning:'} ${message}`);
  }

  /**
   * While a progress bar is drawn (`bar`; undefined once it is gone), info and warnings are written
   * above it: written into its line, they would be glued to it and the bar left behind.
   */
  drawingProgress(bar: { note(line: string): void } | undefined): void {
    this.bar = bar;
  }

  private line(text: string): void {
    if (this.bar) this.bar.note(text);
    else this.io.stderr.write(`${fitToTerminal(this.io.stderr, text)}\n`);
  }

  debug(line: string): void {
    if (this.globals.debug) this.io.stderr.write(`[debug] ${line}\n`);
  }

  async store(): Promise<ProfileStore> {
    this.profileStore ??= new ProfileStore(configDir(this.env), (message) => this.warn(message));
    return this.profileStore;
  }

  settings(): Promise<Settings> {
    this.settingsPromise ??= this.store().then((store) => resolveSettings(this.globals, this.env, store));
    return this.settingsPromise;
  }

  /** The project id to put in `/api/projects/{id}/`, or a usage error saying how to set one. */
  async projectId(): Promise<string> {
    const settings = await this.settings();
    if (settings.projectId) {
      if (isProjectId(settings.projectId)) return settings.projectId;
      this.projectIdByName ??= Promise.all([this.api(), import('./api/projects.js')]).then(async ([client, { allProjects }]) =>
        projectByName(
          settings.projectId!,
          await allProjects(client),
          settings.sources.projectId === 'env' ? ' (from HOGCTL_PROJECT_ID)' : '',
        ),
      );
      return this.projectIdByName;
    }
    await this.refuseIfNotSetUp(settings);
    throw new UsageError(
      'no project chosen',
      'pass --project <id>, set HOGCTL_PROJECT_ID, or save one in a profile with `hogctl profile add`; `hogctl projects list` shows the ids',
    );
  }

  /**
   * An API client for the resolved settings. `key` (the default) authenticates with the personal
   * API key; `session` with the signed-in session of `hogctl auth login` (endpoints that refuse
   * keys); `prefer-session` with the session when there is one, else the key; `prefer-key` with
   * the key when there is one, else the session; `none` sends no credentials.
   */
  async api(options: { auth?: 'key' | 'session' | 'prefer-session' | 'prefer-key' | 'none' } = {}): Promise<ApiClient> {
    // The HTTP client's code, the largest part of any request command, loads while settings
    // resolve; client() below then finds it loaded.
    const [settings] = await Promise.all([this.settings(), import('./http/client.js')]);
    let credentials: Credentials | undefined;
    const wantSession =
      options.auth === 'session' || options.auth === 'prefer-session' || (options.auth === 'prefer-key' && !settings.apiKey);
    if (wantSession) {
      const jar = await this.sessionJar();
      if (jar.state === 'active') {
        const { sessionCredentials } = await import('./http/session-credentials.js');
        credentials = sessionCredentials(jar, { autosave: true, label: this.sessionLabel(settings) });
      } else if (options.auth === 'session' || options.auth === 'prefer-key') {
        throw this.notSignedIn(jar, settings);
      }
    }
    if (!credentials && options.auth !== 'none') {
      const key = settings.apiKey;
      if (!key) {
        const profile = settings.profileName;
        const orSession = options.auth === 'prefer-session' ? '`hogctl auth login`, ' : '';
        // A variable set to nothing (HOGCTL_API_KEY=$UNSET_SECRET in CI) is not "no key" to its author.
        if (this.env.HOGCTL_API_KEY === undefined) await this.refuseIfNotSetUp(settings);
        if (this.env.HOGCTL_API_KEY !== undefined) {
          throw new AuthError(
            `HOGCTL_API_KEY is empty${profile ? `, and profile "${profile}" has no API key` : ', and no profile is set'}`,
            `set HOGCTL_API_KEY to a personal API key (phx_...), or unset it and run ${orSession}\`hogctl profile add ${profile ?? '<name>'}\``,
          );
        }
        throw new AuthError(
          profile ? `no API key for profile "${profile}"` : 'no API key and no profile',
          profile
            ? `run ${orSession}\`hogctl profile add ${profile}\` or set HOGCTL_API_KEY`
            : `run ${orSession}\`hogctl profile add <name>\` or set HOGCTL_API_KEY`,
        );
      }
      checkKeyDestination(settings);
      this.sayDefaultSite(settings);
      credentials = { headers: () => ({ authorization: `Bearer ${key}` }), secrets: () => [key] };
    }
    return this.client(settings, credentials);
  }

  /**
   * A key from HOGCTL_API_KEY with no site from anywhere goes to US Cloud, the default: an EU
   * key then fails as "invalid" with nothing saying where it went. Said once, on stderr.
   */
  private sayDefaultSite(settings: Settings): void {
    if (this.defaultSiteSaid || settings.sources.apiKey !== 'env' || settings.sources.baseUrl !== 'default') return;
    this.defaultSiteSaid = true;
    this.info(
      `HOGCTL_API_KEY without HOGCTL_BASE_URL (or a profile): using US Cloud, ${settings.baseUrl}; set HOGCTL_BASE_URL=https://eu.posthog.com for EU Cloud, or your own site`,
    );
  }

  /**
   * On the first run (no profile saved, no key in the environment) the one thing to do first is to
   * set hogctl up: say that, rather than the first of several missing settings.
   */
  private async refuseIfNotSetUp(settings: Settings): Promise<void> {
    if (settings.profileName || settings.apiKey || this.env.HOGCTL_API_KEY !== undefined) return;
    if ((await this.store()).names().length > 0) return;
    throw new AuthError(
      'hogctl is not set up yet: run `hogctl profile add <name>` first',
      'it asks for the PostHog site, the project and a personal API key; in CI, set HOGCTL_BASE_URL, HOGCTL_PROJECT_ID and HOGCTL_API_KEY instead. To try hogctl offline: `hogctl demo`',
    );
  }

  /** The session jar of the resolved profile and site (`hogctl auth login` fills it). */
  async sessionJar(): Promise<SessionJar> {
    const settings = await this.settings();
    const { SessionJar, sessionFilePath } = await import('./config/session-jar.js');
    const origin = new URL(settings.baseUrl).origin;
    return SessionJar.load(sessionFilePath(configDir(this.env), settings.profileName, origin), origin, this.clock.now);
  }

  /** `profile "prod"`, or the site when no profile is in use. */
  sessionLabel(settings: Settings): string {
    return settings.profileName ? `profile "${settings.profileName}"` : new URL(settings.baseUrl).host;
  }

  private notSignedIn(jar: SessionJar, settings: Settings): AuthError {
    const label = this.sessionLabel(settings);
    if (jar.state === 'expired')
      return new AuthError('session expired: run `hogctl auth login`', `the signed-in session of ${label} on ${jar.origin} has expired`);
    if (jar.state === 'awaiting_code') {
      return new AuthError(
        `the sign-in of ${label} is waiting for the code PostHog e-mailed to ${jar.pendingCode?.email ?? 'you'}`,
        'finish it with `hogctl auth login --email-code <code>` (within 10 minutes of the e-mail), or start again with `hogctl auth login`',
      );
    }
    if (jar.foreignOrigin) {
      return new AuthError(
        `not signed in to ${jar.origin}: run \`hogctl auth login\``,
        `the saved session of ${label} is for ${jar.foreignOrigin}, not ${jar.origin}`,
      );
    }
    return new AuthError(
      'not signed in: run `hogctl auth login`',
      `this command needs a signed-in session for ${jar.origin} (${label}); PostHog refuses personal API keys here`,
    );
  }

  /** A client with the given credentials (session sign-in brings its own). */
  async client(settings: Settings, credentials?: Credentials): Promise<ApiClient> {
    const { ApiClient } = await import('./http/client.js');
    if (this.clients.length === 0 && this.deps.codeCacheStatus) this.debug(`hogctl code cache: ${this.deps.codeCacheStatus}`);
    const client = new ApiClient({
      baseUrl: settings.baseUrl,
      credentials,
      userAgent: `hogctl/${VERSION} node/${process.versions.node}`,
      timeoutMs: this.timeoutMs(),
      allowInsecureHttp: settings.allowInsecureHttp,
      dispatcher: this.deps.dispatcher,
      debug: this.globals.debug ? (line) => this.debug(line) : undefined,
      notice: (line) => this.info(line),
      sleep: this.clock.sleep,
      random: this.deps.random,
      now: this.clock.now,
    });
    this.clients.push(client);
    return client;
  }

  /** Each request's time limit: --timeout, else HOGCTL_TIMEOUT, else the command's default. */
  timeoutMs(defaultMs = 30_000): number {
    const raw = this.globals.timeout ?? this.env.HOGCTL_TIMEOUT;
    if (raw === undefined) return defaultMs;
    return fromEnv(this.globals.timeout === undefined ? 'HOGCTL_TIMEOUT' : undefined, raw, () => {
      const seconds = Number(raw);
      if (!Number.isFinite(seconds) || seconds <= 0) {
        throw new UsageError(`invalid timeout "${raw}": give a number of seconds greater than 0, e.g. --timeout 30`);
      }
      // A request's time limit is one timer; a longer one would fire at once, failing every request.
      const ms = Math.round(seconds * 1000);
      if (ms > MAX_TIMER_MS) {
        throw new UsageError(
          `invalid timeout "${raw}": at most ${Math.floor(MAX_TIMER_MS / 1000)} seconds (about 24 days), the longest time node can time`,
        );
      }
      return ms;
    });
  }

  async prompter(): Promise<Prompter> {
    if (this.deps.prompter) return this.deps.prompter;
    if (!this.interactive) {
      const { NonInteractivePrompter } = await import('./prompts/non-interactive.js');
      return new NonInteractivePrompter();
    }
    const { InquirerPrompter } = await import('./prompts/inquirer.js');
    return new InquirerPrompter({ input: this.io.stdin, output: this.io.stderr });
  }

  /**
   * --jq or --template, which print the JSON of `-o json` filtered (src/io/filter.ts): so -o may
   * only be json, and HOGCTL_OUTPUT, a default, gives way. Undefined when neither is given.
   */
  outputFilter(): OutputFilter | undefined {
    const { jq, template, output } = this.globals;
    if (jq !== undefined && template !== undefined)
      throw new UsageError('--jq and --template cannot be combined', 'filter with jq, or format with a template: one of the two');
    const filter: OutputFilter | undefined =
      jq !== undefined ? { kind: 'jq', expression: jq } : template !== undefined ? { kind: 'template', expression: template } : undefined;
    if (filter && output !== undefined && output !== 'json')
      throw new UsageError(`--${filter.kind} prints JSON: it cannot be combined with -o ${output}`, `drop -o ${output}, or use -o json`);
    if (filter && filter.expression.trim() === '')
      throw new UsageError(
        `--${filter.kind} is empty`,
        filter.kind === 'jq'
          ? "give an expression, e.g. --jq '.[].uuid'"
          : "give a template, e.g. --template '{{#each this}}{{uuid}}{{/each}}'",
      );
    return filter;
  }

  /** Refuses a bad --jq expression or --template before the command sends anything. */
  async checkOutputFilter(): Promise<void> {
    const filter = this.outputFilter();
    if (filter) await checkFilter(filter);
  }

  /**
   * --jq or --template given to a command that never asked for its output settings, and so
   * prints no data (`profile use`, `sandbox`): said on stderr, not silently ignored.
   */
  unusedOutputFilter(): OutputFilter | undefined {
    return this.outputAsked ? undefined : this.outputFilter();
  }

  /** The output format asked for: -o, else HOGCTL_OUTPUT, as given; undefined when neither is. */
  askedFormat(): string | undefined {
    return this.globals.output ?? this.env.HOGCTL_OUTPUT;
  }

  /**
   * The output settings: the format is -o, else HOGCTL_OUTPUT, else `remembered` (the format a
   * resumed bulk job's journal remembers), else the command's default (`table`; `api` shows JSON
   * bodies), and JSON under --jq or --template.
   */
  async output(o: { remembered?: string; defaultFormat?: Format } = {}): Promise<OutputSettings> {
    this.outputAsked = true;
    const filter = this.outputFilter();
    const fromVariable = this.globals.output === undefined && this.env.HOGCTL_OUTPUT !== undefined && !filter;
    const format: Format = filter
      ? 'json'
      : fromEnv(fromVariable ? 'HOGCTL_OUTPUT' : undefined, this.askedFormat() ?? o.remembered ?? o.defaultFormat ?? 'table', parseFormat);
    return {
      format,
      filter,
      fields: parseFields(this.globals.fields),
      chosen: filter !== undefined || this.askedFormat() !== undefined || o.remembered !== undefined,
      color: this.colorOn('stdout'),
      stdout: this.io.stdout,
      wide: Boolean(this.globals.wide),
      notice: (message) => this.info(message),
    };
  }

  /** Runs when the command ends, however it ends short of a SIGKILL (a journal lock's release). */
  onClose(fn: () => Promise<void> | void): void {
    this.closers.push(fn);
  }

  async close(): Promise<void> {
    await Promise.all(this.clients.map((c) => c.close(Boolean(this.deps.quit?.aborted))));
    for (const fn of this.closers.splice(0).reverse()) await fn();
  }
}
