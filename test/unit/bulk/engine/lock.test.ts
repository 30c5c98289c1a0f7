// One run per journal: the lock file is taken atomically, refused while a live run holds it, and
// taken over from a run that is gone, even when two runs find the same stale lock at once.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { UsageError } from '../../../../src/errors.js';
import { lockJournal } from '../../../../src/bulk/engine/lock.js';

// lock.ts moves a stale lock aside (rename) to remove it; a test may hold that call back to
// order two runs.
const unlinkGate = vi.hoisted(() => ({ hold: undefined as ((path: string) => Promise<void> | undefined) | undefined }));
vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs/promises')>();
  return {
    ...actual,
    unlink: async (path: string) => {
      await unlinkGate.hold?.(path);
      return actual.unlink(path);
    },
    rename: async (from: string, to: string) => {
      await unlinkGate.hold?.(from);
      return actual.rename(from, to);
    },
  };
});

const NOW = Date.parse('2030-01-02T03:04:05Z');
let dir: string;
let journal: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hogctl-lock-'));
  journal = join(dir, 'erasure.journal');
  unlinkGate.hold = undefined;
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** The pid of a process that has exited: no process has it now. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '0']);
  return child.pid;
}

const holder = () => JSON.parse(readFileSync(`${journal}.lock`, 'utf8'));
const writeHolder = (owner: object) => writeFileSync(`${journal}.lock`, `${JSON.stringify(owner)}\n`);

describe('lockJournal', () => {
  it('takes the lock with its pid, host and start time, leaves no temporary file, and releases it', async () => {
    const lock = await lockJournal(journal, () => NOW);
    expect(lock.path).toBe(`${journal}.lock`);
    expect(holder()).toEqual({ pid: process.pid, host: hostname(), started_at: '2030-01-02T03:04:05.000Z' });
    expect(readdirSync(dir)).toEqual(['erasure.journal.lock']);
    await lock.release();
    expect(existsSync(lock.path)).toBe(false);
  });

  it('refuses while a live run holds it, naming that run, and takes it once released', async () => {
    const first = await lockJournal(journal, () => NOW);
    const refusal = await lockJournal(journal, () => NOW).catch((err: unknown) => err);
    expect(refusal).toBeInstanceOf(UsageError);
    expect((refusal as UsageError).message).toBe(
      `another run is using the journal ${journal}: pid ${process.pid}, started 2030-01-02T03:04:05.000Z`,
    );
    expect((refusal as UsageError).hint).toMatch(/^wait for it to finish/);
    await first.release();
    const second = await lockJournal(journal, () => NOW);
    await second.release();
  });

  it('refuses a lock held from another host, which it cannot check, and says how to remove it', async () => {
    writeHolder({ pid: deadPid(), host: `not-${hostname()}`, started_at: '2030-01-01T00:00:00.000Z' });
    const refusal = await lockJournal(journal, () => NOW).catch((err: unknown) => err);
    expect(refusal).toBeInstanceOf(UsageError);
    expect((refusal as UsageError).message).toMatch(new RegExp(`pid \\d+ on host not-${hostname()}`));
    expect((refusal as UsageError).hint).toContain(`remove ${journal}.lock`);
  });

  it('takes over the lock of a run that is gone from this host', async () => {
    writeHolder({ pid: deadPid(), host: hostname(), started_at: '2030-01-01T00:00:00.000Z' });
    const lock = await lockJournal(journal, () => NOW);
    expect(holder().pid).toBe(process.pid);
    await lock.release();
  });

  it('release leaves alone a lock that another run holds now', async () => {
    const lock = await lockJournal(journal, () => NOW);
    const other = { pid: deadPid(), host: hostname(), started_at: '2030-01-01T00:00:00.000Z' };
    writeHolder(other);
    await lock.release();
    expect(holder()).toEqual(other);
  });

  // A race in the takeover of a stale lock: a run reads the holder, finds it dead, and then
  // removes the lock. If another run has meanwhile removed the stale lock and taken its own, the
  // slow run must not remove that one (and take the lock too, two runs sharing the journal). Here
  // run B is held back right before it removes the stale lock until run A has taken the lock.
  it('two runs taking over the same stale lock: the slower one must not remove the lock the faster one took', async () => {
    writeHolder({ pid: deadPid(), host: hostname(), started_at: '2030-01-01T00:00:00.000Z' });
    let reachedUnlink!: () => void;
    const bAtUnlink = new Promise<void>((resolve) => (reachedUnlink = resolve));
    let letGo!: () => void;
    const gate = new Promise<void>((resolve) => (letGo = resolve));
    unlinkGate.hold = (path) => {
      if (path !== `${journal}.lock`) return undefined;
      unlinkGate.hold = undefined; // only B's first removal waits
      reachedUnlink();
      return gate;
    };
    const b = lockJournal(journal, () => NOW);
    await bAtUnlink;
    // B has read the stale holder and is about to remove the lock; A does the same, first.
    const a = await lockJournal(journal, () => NOW);
    expect(holder().pid).toBe(process.pid);
    letGo();
    const outcome = await b.then(
      () => 'B holds the lock as well',
      (err: unknown) => err,
    );
    await a.release();
    expect(outcome).toBeInstanceOf(UsageError);
  });
});
