// A one-line progress bar on stderr for long jobs: done/total, rate and ETA, redrawn in place at
// most every `intervalMs`. Only for a terminal: off a terminal (CI logs) it prints nothing, since
// a log full of carriage returns helps no one.
import type { OutStream } from './streams.js';

export interface ProgressOptions {
  stream: OutStream;
  total: number;
  /** e.g. "ids". */
  unit: string;
  now: () => number;
  /** Extra text after the counts, e.g. the request rate. */
  extra?: () => string;
  intervalMs?: number;
  width?: number;
}

export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

export class ProgressBar {
  private done = 0;
  private lastDraw = 0;
  private drawn = false;
  private readonly started: number;

  constructor(private readonly o: ProgressOptions) {
    this.started = o.now();
  }

  update(done: number): void {
    this.done = done;
    const now = this.o.now();
    if (now - this.lastDraw >= (this.o.intervalMs ?? 100) || done >= this.o.total) this.draw(now);
  }

  /** Writes a line above the bar without garbling it. */
  note(line: string): void {
    this.clear();
    this.o.stream.write(`${line}\n`);
    if (this.drawn) this.draw(this.o.now());
  }

  /** Removes the bar (before the final summary). */
  finish(): void {
    this.clear();
    this.drawn = false;
  }

  private clear(): void {
    if (this.drawn) this.o.stream.write('\r\u001b[2K');
  }

  private draw(now: number): void {
    this.lastDraw = now;
    this.drawn = true;
    const { total, unit } = this.o;
    const share = total > 0 ? Math.min(1, this.done / total) : 1;
    const width = this.o.width ?? 24;
    const filled = Math.round(share * width);
    const elapsed = now - this.started;
    const eta = this.done > 0 && this.done < total ? formatDuration((elapsed / this.done) * (total - this.done)) : this.done >= total ? 'done' : '…';
    const n = (x: number) => x.toLocaleString('en-US');
    const extra = this.o.extra?.();
    const text = `${'█'.repeat(filled)}${'░'.repeat(width - filled)} ${n(this.done)}/${n(total)} ${unit} ${Math.floor(share * 100)}%${extra ? ` · ${extra}` : ''} · ETA ${eta}`;
    const columns = this.o.stream.columns ?? 100;
    this.o.stream.write(`\r\u001b[2K${text.length >= columns ? text.slice(0, columns - 1) : text}`);
  }
}
