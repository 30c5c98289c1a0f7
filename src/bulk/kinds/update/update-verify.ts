// After a bulk update, the persons are read back until every change shows: capture is applied by
// ingestion asynchronously, usually within seconds, so "accepted" is not "done". Each person is
// read with batch_by_uuids (200 a request, within the job's read budget) until its properties
// are as asked (a key set has the value, a key set once has a value, a key unset is gone) or the
// time is up; the receipt then says, per person, applied, still pending, or failed (gone, or its
// request failed).
import type { Context } from '../../../context.js';
import { FIRST_POLL_MS, nextPollDelay } from '../../../sleep.js';
import { CancelledError, CliError } from '../../../errors.js';
import { batchPersons, PERSON_BATCH_MAX } from '../../../api/persons.js';
import type { JobVerification, VerifyEnv } from '../../engine/action.js';
import { counted } from '../../../io/counts.js';
import { sameValue } from '../../engine/same-value.js';
import { withinBudget } from '../../engine/rate.js';

/** The longest wait between two rounds of reading back what is still pending (nextPollDelay: from a
 * quarter of a second, doubling). A change sent through capture usually shows within a second, so
 * a small update is not kept waiting for a round sized for a slow one; the read budget paces the
 * rounds of a large one. */
const LAST_ROUND_MS = 2_000;

export interface ExpectedChanges {
  set: Record<string, unknown>;
  /** Keys set once: they must hold a value (the person's own, if it had one). */
  setOnce: string[];
  unset: string[];
  /** Each person's own values, by project and UUID. */
  own: Map<string, Map<string, Record<string, unknown>>>;
}

export interface UpdateVerification {
  /** applied: every person shows the changes; pending: some do not yet; unavailable: cannot be read. */
  status: 'applied' | 'pending' | 'unavailable';
  at: string;
  checked: number;
  applied: number;
  pending: number;
  /** Persons gone, or whose request failed. */
  failed: number;
  applied_ids: string[];
  pending_ids: string[];
  failed_ids: string[];
}

/** Whether a person's properties show the changes. */
export function shows(properties: Record<string, unknown>, expected: ExpectedChanges, own: Record<string, unknown> | undefined): boolean {
  for (const [key, value] of Object.entries({ ...expected.set, ...own })) if (!sameValue(properties[key], value)) return false;
  for (const key of expected.setOnce) if (properties[key] === undefined) return false;
  for (const key of expected.unset) if (key in properties) return false;
  return true;
}

export async function verifyUpdate(
  ctx: Context,
  env: VerifyEnv,
  expected: ExpectedChanges,
  timeoutMs: number,
): Promise<JobVerification<UpdateVerification> | undefined> {
  if (timeoutMs <= 0) return undefined;
  const done = env.journal.answeredIds();
  const failedChunks = new Set<string>();
  for (const c of env.journal.chunks.values()) if (c.failure && !c.answer) for (const id of c.ids) if (!done.has(id)) failedChunks.add(id);
  const perProject = new Map<string, UpdateVerification>();
  const deadline = ctx.clock.now() + timeoutMs;
  for (const p of env.targets.projects.filter((t) => !t.unreachable)) {
    const sent = Array.from(p.ids).filter((id) => done.has(id));
    ctx.info(
      `verifying: reading the ${counted(sent.length, 'person')} back until the changes show (at most ${Math.round(timeoutMs / 1000)}s)…`,
    );
    const read = await readBackUntilShown(ctx, env, p.id, sent, expected, deadline);
    const failed = [...read.gone, ...Array.from(p.ids).filter((id) => failedChunks.has(id))];
    perProject.set(p.id, {
      status: read.unavailable ? 'unavailable' : read.pending.size ? 'pending' : 'applied',
      at: new Date(ctx.clock.now()).toISOString(),
      checked: sent.length,
      applied: read.applied.length,
      pending: read.pending.size,
      failed: failed.length,
      applied_ids: read.applied,
      pending_ids: [...read.pending],
      failed_ids: failed,
    });
  }
  const total = totalOf([...perProject.values()], ctx.clock.now());
  if (total?.status === 'applied')
    ctx.info(`✔ verified: ${total.applied === 1 ? 'the person shows' : `all ${counted(total.applied, 'person')} show`} the changes`);
  return { total, perProject };
}

/** What reading one project's persons back found. */
interface ReadBack {
  applied: string[];
  /** Persons the server no longer has. */
  gone: string[];
  pending: Set<string>;
  /** A read failed after its retries: the rest stay pending. */
  unavailable: boolean;
}

/** Reads the persons sent back, round after round (each a little later), until every one shows
 * the changes or is gone, or the deadline comes. */
async function readBackUntilShown(
  ctx: Context,
  env: VerifyEnv,
  project: string,
  sent: string[],
  expected: ExpectedChanges,
  deadline: number,
): Promise<ReadBack> {
  const read: ReadBack = { applied: [], gone: [], pending: new Set(sent), unavailable: false };
  for (let delay = FIRST_POLL_MS; ; delay = nextPollDelay(delay, LAST_ROUND_MS)) {
    const round = [...read.pending];
    for (let i = 0; i < round.length; i += PERSON_BATCH_MAX) {
      const batch = round.slice(i, i + PERSON_BATCH_MAX);
      const found = await readBatch(ctx, env, project, batch);
      if (found === null) {
        read.unavailable = true;
        break;
      }
      for (const uuid of batch) {
        const person = found.get(uuid);
        if (!person) {
          read.gone.push(uuid);
          read.pending.delete(uuid);
        } else if (shows(person.properties ?? {}, expected, expected.own.get(project)?.get(uuid))) {
          read.applied.push(uuid);
          read.pending.delete(uuid);
        }
      }
    }
    if (read.unavailable || read.pending.size === 0 || ctx.clock.now() + delay > deadline) break;
    // Ctrl-C ends the reading back, not the run: what is known so far goes in the receipt.
    await ctx.clock.sleep(delay, ctx.deps.signal).catch(() => undefined);
    if (ctx.deps.signal?.aborted) break;
  }
  return read;
}

/** One batch of persons read within the read rate; null when the read failed after its retries. */
function readBatch(ctx: Context, env: VerifyEnv, project: string, batch: string[]) {
  return withinBudget(
    env.reads,
    ctx.deps.signal,
    async () => {
      try {
        return await batchPersons(env.client, project, 'uuids', batch, { signal: ctx.deps.signal });
      } catch (err) {
        // Everything was sent; a read that fails after its retries leaves these persons unread.
        if (!(err instanceof CliError) || ctx.deps.signal?.aborted) throw err;
        ctx.warn(`cannot read the persons back: ${err.message}; the receipt lists them as pending`);
        return null;
      }
    },
    () => new CancelledError('interrupted while reading the persons back; the changes were sent (the receipt says so)'),
  );
}

/** The projects' verifications summed (the lists cut to 10,000); undefined with no project. */
function totalOf(parts: UpdateVerification[], now: number): UpdateVerification | undefined {
  if (!parts.length) return undefined;
  const sum = (pick: (v: UpdateVerification) => number) => parts.reduce((k, v) => k + pick(v), 0);
  return {
    status: parts.some((v) => v.status === 'unavailable') ? 'unavailable' : parts.some((v) => v.pending) ? 'pending' : 'applied',
    at: new Date(now).toISOString(),
    checked: sum((v) => v.checked),
    applied: sum((v) => v.applied),
    pending: sum((v) => v.pending),
    failed: sum((v) => v.failed),
    applied_ids: [],
    pending_ids: parts.flatMap((v) => v.pending_ids).slice(0, 10_000),
    failed_ids: parts.flatMap((v) => v.failed_ids).slice(0, 10_000),
  };
}
