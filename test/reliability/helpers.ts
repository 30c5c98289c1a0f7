// Shared by the reliability tests: the faults with the exit code and words each must end in once
// retries are spent, seeds that make a fault hit a chosen request, and the checks of a failure.
import { expect } from 'vitest';
import { FaultInjector, parseFaultSpec, type FaultKind } from '@hogctl/sandbox';
import type { RunResult, World } from '../e2e/harness.js';

export interface FaultCase {
  kind: FaultKind;
  /** The entry for a fault spec at the given share (slow carries its delay). */
  entry: (share: number) => string;
  /** ARCHITECTURE.md §4: the code once retries are spent. */
  code: number;
  /** What the error line must say happened. */
  says: RegExp;
  /** The client cannot tell whether the request was carried out (429 and 503 are refusals). */
  unclear: boolean;
}

/** Every kind the sandbox injects; slow answers take 1.5 s, past a `--timeout 1`. */
export const FAULT_CASES: FaultCase[] = [
  { kind: '429', entry: (s) => `429=${s}`, code: 6, says: /429/, unclear: false },
  { kind: '429-no-retry', entry: (s) => `429-no-retry=${s}`, code: 6, says: /429/, unclear: false },
  { kind: '500', entry: (s) => `500=${s}`, code: 7, says: /500/, unclear: true },
  { kind: '502', entry: (s) => `502=${s}`, code: 7, says: /502.*502 Bad Gateway \(an HTML page/, unclear: true },
  { kind: '503', entry: (s) => `503=${s}`, code: 7, says: /503/, unclear: false },
  { kind: 'drop', entry: (s) => `drop=${s}`, code: 7, says: /connection was closed/, unclear: true },
  { kind: 'slow', entry: (s) => `slow=${s}@1500`, code: 7, says: /timed out after 1s/, unclear: true },
  { kind: 'truncate', entry: (s) => `truncate=${s}`, code: 7, says: /cut off/, unclear: true },
  { kind: 'html', entry: (s) => `html=${s}`, code: 7, says: /502.*Bad gateway \| sandbox edge \(an HTML page/, unclear: true },
];

/**
 * The smallest seed with which `spec` gives its first `n` eligible requests the fault `kind`, so
 * that a test exercises the fault for sure and the rest of the run is still left to the dice.
 */
export function seedHittingFirst(spec: string, kind: FaultKind, method: string, path: string, n = 1): number {
  for (let seed = 1; seed < 10_000; seed++) {
    const injector = new FaultInjector(parseFaultSpec(`${spec},seed=${seed}`, 0));
    let hits = 0;
    while (hits < n && injector.decide(method, path)?.kind === kind) hits++;
    if (hits === n) return seed;
  }
  throw new Error(`no seed makes "${spec}" hit the first ${n} requests with ${kind}`);
}

/** What the checks below read of a world and of a run: the built binary's, or an in-process one
 * on virtual time (test/cli/virtual-harness.ts). */
type Served = Pick<World, 'sandbox'>;
type Printed = Pick<RunResult, 'stdout' | 'stderr'>;

/** A failure as a user must see it: an `error:` line, no stack trace, never the key. */
export function expectCleanFailure(world: Served, res: Printed): void {
  expect(res.stderr).toMatch(/^error: /m);
  expect(res.stderr).not.toMatch(/\n\s+at .+:\d+:\d+/);
  expect(res.stderr).not.toMatch(/unexpected failure|this is a bug/);
  expectNoKey(world, res);
}

export function expectNoKey(world: Served, res: Printed): void {
  expect(res.stderr).not.toContain(world.sandbox.defaultKey);
  expect(res.stdout).not.toContain(world.sandbox.defaultKey);
}

/** The first `error:` line. */
export function errorLine(res: Printed): string {
  return /^error: .*$/m.exec(res.stderr)?.[0] ?? '';
}

/** Waits for the sandbox to apply an accepted (202) write; fails the test if it never does. */
export async function eventually(check: () => boolean, what: string, ms = 3000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`never happened: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
