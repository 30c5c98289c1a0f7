// One tool call runs a verb's run function in this process, as the command line would with
// `-o json`, through a Context of its own whose streams are captured: stdout is the JSON data,
// stderr the notes. Its settings are the server's, resolved once at start (`fixedSettings`), so no
// call can change the profile, host or key. Nothing of a call reaches the process's stdout, the
// protocol channel.
import { Writable, Readable } from 'node:stream';
import { Context, type Deps, type GlobalOptions } from '../context.js';
import { CliError, ExitCode } from '../errors.js';
import type { Settings } from '../config/settings.js';

/** What every call shares: the process's deps and global flags, and the settings fixed at start. */
export interface McpBase {
  deps: Deps;
  globals: GlobalOptions;
  settings: Settings;
  /** The Context's clock (ARCHITECTURE.md §1: only the Context reads the given one). */
  now: () => number;
}

class FixedContext extends Context {
  constructor(
    deps: Deps,
    globals: GlobalOptions,
    private readonly fixed: Settings,
  ) {
    super(deps, globals);
  }

  override settings(): Promise<Settings> {
    return Promise.resolve(this.fixed);
  }
}

class Sink extends Writable {
  text = '';
  isTTY = false;
  constructor(private readonly onLine?: (line: string) => void) {
    super();
  }
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, done: () => void): void {
    const text = chunk.toString();
    this.text += text;
    if (this.onLine) for (const line of text.split('\n')) if (line.trim()) this.onLine(line);
    done();
  }
}

export interface Captured {
  stdout: string;
  stderr: string;
  /** The error the verb ended with, if any. */
  error?: CliError | Error;
}

/** Runs `run` with a Context of the server's settings (in `project`, if given; each line of its
 * notes to `onNote`), `-o json`, no prompts, streams captured. */
export async function runCaptured(
  base: McpBase,
  run: (ctx: Context) => Promise<void>,
  project?: string,
  onNote?: (line: string) => void,
): Promise<Captured> {
  const stdout = new Sink();
  const stderr = new Sink(onNote);
  const stdin = Readable.from([]) as Readable & { isTTY?: boolean };
  const deps: Deps = { ...base.deps, io: { stdout, stderr, stdin }, prompter: undefined };
  // The project is in the settings (or the call's own); --project would contradict a plan's projects.
  const { fields: _f, jq: _j, template: _t, project: _p, ...kept } = base.globals;
  const ctx = new FixedContext(
    deps,
    { ...kept, output: 'json', color: false, input: false },
    {
      ...base.settings,
      projectId: project ?? base.settings.projectId,
    },
  );
  let error: CliError | Error | undefined;
  try {
    await run(ctx);
  } catch (err) {
    error = err instanceof Error ? err : new Error(String(err));
  } finally {
    await ctx.close();
  }
  return { stdout: stdout.text, stderr: stderr.text, error };
}

const MEANING: Record<number, string> = {
  [ExitCode.usage]: 'usage (exit 2): bad arguments or input; nothing was sent',
  [ExitCode.notFound]: 'not found (exit 3)',
  [ExitCode.auth]: 'authentication or permission (exit 4)',
  [ExitCode.rejected]: 'the server rejected the request (exit 5)',
  [ExitCode.rateLimited]: 'rate-limited (exit 6)',
  [ExitCode.unavailable]: 'server or network failure (exit 7)',
  [ExitCode.partial]: 'partly failed (exit 8)',
  [ExitCode.notRecorded]: 'done, but not all of it recorded (exit 9)',
  [ExitCode.cancelled]: 'cancelled (exit 130)',
};

/** An error said as the command line says it, with the meaning of its exit code. */
export function errorText(err: CliError | Error): string {
  if (!(err instanceof CliError)) return `unexpected error (exit 1): ${err.message}`;
  const meaning = MEANING[err.exitCode] ?? `exit ${err.exitCode}`;
  return `${meaning}: ${err.message}${err.hint ? `\nhint: ${err.hint}` : ''}`;
}
