// One run per journal. Two runs appending to the same journal (two `--resume`s started together,
// a CI retry beside a run still going) would both send the remaining ids and corrupt its counts.
// The lock is a file beside the journal, created atomically with its content (written to a
// temporary file, then hard-linked into place, which fails if the lock exists): pid, host and
// start time of the run that holds it. A lock whose process is gone from this host (a SIGKILL,
// a crash) is taken over; one held from another host cannot be checked and is refused.
//
// Taking over is the delicate part: two runs may find the same stale lock, and the slower one
// must not remove the lock the faster one has just taken in its place. So a stale lock is not
// removed by its path but moved aside under a name only this run uses, and removed only if what
// was moved is the dead run's lock; a live lock moved by mistake is put back at once.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { link, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { UsageError } from '../../errors.js';
import { journalError } from './journal-write.js';

interface LockOwner {
  pid: number;
  host: string;
  started_at: string;
}

export interface JournalLock {
  readonly path: string;
  release(): Promise<void>;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, under another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function readOwner(path: string): Promise<LockOwner | null> {
  try {
    const owner = JSON.parse(await readFile(path, 'utf8')) as LockOwner;
    return Number.isInteger(owner.pid) && typeof owner.host === 'string' ? owner : null;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

async function tryCreate(path: string, owner: LockOwner): Promise<boolean> {
  const temp = `${path}.${owner.pid}.tmp`;
  try {
    await writeFile(temp, `${JSON.stringify(owner)}\n`, { mode: 0o600 });
    await link(temp, path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    // A full disk or a read-only directory: said as for the journal itself.
    throw journalError(err, path.replace(/\.lock$/, ''), 'open');
  } finally {
    // Also when the write failed half-way: no temporary file is left behind.
    await unlink(temp).catch(() => {});
  }
}

const same = (a: LockOwner | null, b: LockOwner) => a?.pid === b.pid && a.host === b.host && a.started_at === b.started_at;

/** Removes the lock of the dead run `stale`, and nothing else. */
async function removeStale(path: string, stale: LockOwner): Promise<void> {
  const aside = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.stale`;
  try {
    await rename(path, aside);
  } catch {
    return; // gone already: another run took it over, or it was released
  }
  const moved = await readOwner(aside).catch(() => null);
  // Not the dead run's lock: another run took it over meanwhile. Put it back.
  if (!same(moved, stale)) await link(aside, path).catch(() => {});
  await unlink(aside).catch(() => {});
}

/** Takes the lock of `journalPath`, or refuses (exit 2) naming the run that holds it. */
export async function lockJournal(journalPath: string, now: () => number): Promise<JournalLock> {
  const path = `${journalPath}.lock`;
  const owner: LockOwner = { pid: process.pid, host: hostname(), started_at: new Date(now()).toISOString() };
  for (let tries = 0; tries < 3; tries++) {
    if (await tryCreate(path, owner)) {
      return {
        path,
        release: async () => {
          const current = await readOwner(path).catch(() => null);
          if (current?.pid === owner.pid && current.host === owner.host) await unlink(path).catch(() => {});
        },
      };
    }
    const holder = await readOwner(path);
    if (holder === null) continue; // released meanwhile, or unreadable: try again
    if (holder.host === owner.host && !alive(holder.pid)) {
      // The run that held it is gone: its journal is consistent up to its last fsync.
      await removeStale(path, holder);
      continue;
    }
    const where = holder.host === owner.host ? `pid ${holder.pid}` : `pid ${holder.pid} on host ${holder.host}`;
    throw new UsageError(
      `another run is using the journal ${journalPath}: ${where}, started ${holder.started_at}`,
      holder.host === owner.host
        ? 'wait for it to finish (its progress is in the journal), or stop it; then run this again'
        : `wait for it to finish; if that run is gone, remove ${path} and run this again`,
    );
  }
  throw new UsageError(
    `could not take the lock ${path}: it keeps changing`,
    'another run may be starting on the same journal; try again in a moment',
  );
}
