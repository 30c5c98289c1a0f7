// Progress of a long job on stderr: done/total, rate and ETA, plus what it is waiting for (a
// rate window, a retry). On a terminal a one-line bar redrawn in place at most every
// `intervalMs`; off a terminal (CI logs) a plain line every `HOGCTL_PROGRESS_INTERVAL` seconds
// (default 10), so a log shows the job is alive without filling up with carriage returns.
import type { OutStream } from './streams.js';
import type { Clock } from '../sleep.js';
import { formatNumber } from './counts.js';
import { fitToTerminal } from './columns.js';

export interface ProgressOptions {
  stream: OutStream;
  total: number;
  /** e.g. "ids". */
  unit: string;
  now: () => number;
  /** Extra text after the counts, e.g. the request rate. */
  extra?: () => string;
  /** Milliseconds left, when the job can tell better than done/elapsed (rate windows). */
  remainingMs?: () => number | undefined;
  /** Whether that time is a floor only: nothing answered yet, and a request slower than assumed
   * is still out; the ETA then says "over". */
  remainingIsFloor?: () => boolean;
  /** On a terminal, redraw at least this often, so that the time and what is in flight move
   * while no answer comes (default: only when something happens). */
  tickMs?: number;
  /** What the job is waiting for now, e.g. "waiting for the hourly window until 11:52:10". */
  waiting?: () => string | undefined;
  intervalMs?: number;
  width?: number;
}

export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  // Past an hour the seconds go, rounded into the minutes (2 h 0 min 51 s is about 2h01m).
  const m = Math.round(s / 60);
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

/** A wall-clock time for "until …": HH:MM:SS in the local time zone. */
export function formatClock(ms: number): string {
  const d = new Date(ms);
  return [d.getHours(), d.getMinutes(), d.getSeconds()].map((x) => String(x).padStart(2, '0')).join(':');
}

/** The shared text of both displays: counts, rate, what it waits for, ETA. */
abstract class Progress {
  protected done = 0;
  protected readonly started: number;
  /** A passing status (a retry) and until when it holds. */
  private flash: { text: string; until: number } | undefined;

  constructor(protected readonly o: ProgressOptions) {
    this.started = o.now();
  }

  update(done: number): void {
    this.done = done;
  }

  /** Shows `text` in the progress until `until` (e.g. "chunk 19: 503, retrying in 3 s"). */
  status(text: string, until: number): void {
    this.flash = { text, until };
  }

  protected describe(now: number): { counts: string; share: number; rest: string } {
    const { total, unit } = this.o;
    const share = total > 0 ? Math.min(1, this.done / total) : 1;
    const elapsed = now - this.started;
    const left = this.o.remainingMs?.();
    const eta =
      this.done >= total
        ? 'done'
        : left !== undefined
          ? `${this.o.remainingIsFloor?.() ? 'over ' : ''}${formatDuration(left)}`
          : this.done > 0
            ? formatDuration((elapsed / this.done) * (total - this.done))
            : '…';
    const extra = this.o.extra?.();
    const flash = this.flash && this.flash.until > now ? this.flash.text : undefined;
    const waiting = this.o.waiting?.();
    // The ETA before the waits, so a narrow terminal cuts the long text, not the ETA.
    const parts = [extra, `ETA ${eta}`, flash, waiting].filter(Boolean);
    return {
      counts: `${formatNumber(this.done)}/${formatNumber(total)} ${unit} ${Math.floor(share * 100)}%`,
      share,
      rest: parts.join(' · '),
    };
  }

  abstract note(line: string): void;
  abstract finish(): void;
}

/** Cells at the end of the bar's line left for the terminal's echo of a key ("^C") and the cursor. */
const ECHO_CELLS = 3;

export class ProgressBar extends Progress {
  private lastDraw = 0;
  private drawn = false;
  private readonly ticker?: NodeJS.Timeout;

  constructor(o: ProgressOptions) {
    super(o);
    if (o.tickMs) {
      this.ticker = setInterval(() => this.drawn && this.draw(this.o.now()), o.tickMs);
      this.ticker.unref();
    }
  }

  override update(done: number): void {
    super.update(done);
    const now = this.o.now();
    if (now - this.lastDraw >= (this.o.intervalMs ?? 100) || done >= this.o.total) this.draw(now);
  }

  override status(text: string, until: number): void {
    super.status(text, until);
    this.draw(this.o.now());
  }

  /** Redraws now (e.g. when a wait begins, with no update to trigger it). */
  refresh(): void {
    this.draw(this.o.now());
  }

  /** Writes a line above the bar without garbling it. */
  note(line: string): void {
    this.clear();
    this.o.stream.write(`${fitToTerminal(this.o.stream, line)}\n`);
    if (this.drawn) this.draw(this.o.now());
  }

  /** Removes the bar (before the final summary). */
  finish(): void {
    clearInterval(this.ticker);
    this.clear();
    this.drawn = false;
  }

  private clear(): void {
    if (this.drawn) this.o.stream.write('\r\u001b[2K');
  }

  private draw(now: number): void {
    this.lastDraw = now;
    this.drawn = true;
    const { counts, share, rest } = this.describe(now);
    const words = `${counts}${rest ? ` · ${rest}` : ''}`;
    // A pseudo-terminal without a size reports 0 columns: then the width is unknown.
    const columns = this.o.stream.columns || 100;
    // The bar gives way (down to 10 cells) before the words do: the ETA must stay on screen. The
    // last cells stay free for the terminal's echo of Ctrl-C ("^C"): a full line would wrap it, and
    // the bar, one line up, could then not be cleared.
    const room = columns - ECHO_CELLS;
    const width = Math.max(10, Math.min(this.o.width ?? 24, room - 1 - words.length));
    const filled = Math.round(share * width);
    const text = `${'█'.repeat(filled)}${'░'.repeat(width - filled)} ${words}`;
    this.o.stream.write(`\r\u001b[2K${text.length > room ? text.slice(0, room) : text}`);
  }
}

/** The interval of the off-terminal progress line: HOGCTL_PROGRESS_INTERVAL seconds, or 10. */
export function progressLogInterval(env: Record<string, string | undefined>): number {
  const raw = env.HOGCTL_PROGRESS_INTERVAL;
  const s = raw === undefined ? NaN : Number(raw);
  return Number.isFinite(s) && s > 0 ? s * 1000 : 10_000;
}

/** Off a terminal: a line every `intervalMs` of the clock, so long waits show too. */
export class ProgressLog extends Progress {
  private readonly stopped = new AbortController();

  /** `sleep` is the wait between two lines: the Context's clock's. */
  constructor(o: ProgressOptions & Pick<Clock, 'sleep'>) {
    super(o);
    void this.tick(o.sleep, o.intervalMs ?? 10_000);
  }

  private async tick(sleep: Clock['sleep'], intervalMs: number): Promise<void> {
    for (;;) {
      try {
        await sleep(intervalMs, this.stopped.signal);
      } catch {
        return;
      }
      this.write();
    }
  }

  note(line: string): void {
    this.o.stream.write(`${line}\n`);
  }

  /** A retry is news in a log: its own line at once. */
  override status(text: string, until: number): void {
    super.status(text, until);
    this.o.stream.write(`${text}\n`);
  }

  finish(): void {
    this.stopped.abort();
  }

  private write(): void {
    const { counts, rest } = this.describe(this.o.now());
    this.o.stream.write(`progress: ${counts}${rest ? ` · ${rest}` : ''}\n`);
  }
}
