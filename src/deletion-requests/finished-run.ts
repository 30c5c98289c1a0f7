// `events delete` run again for a selection whose requests were all made. Its journal is keyed by
// the selection (deletion-journal.ts), so the run would find every request made, confirm the
// events selected now and send nothing, and the events that arrived since would stay. PostHog
// deletes what a request's query selects when the request runs, so:
// - a request still to run covers them: the run says so and sends nothing, with no confirmation;
// - once every request has run (completed or failed), the old journal is kept under another name
//   and the run starts anew, with requests of its own.
import { renameSync } from 'node:fs';
import type { Context } from '../context.js';
import { getDeletionRequest } from '../api/data-deletion.js';
import type { DeletionJournal } from './deletion-journal.js';

const RUN = new Set(['completed', 'failed']);

/** True when a request of the journal has still to run (each request's status is brought up to
 * date); else the journal is moved aside, so that the run makes new requests. */
export async function earlierRunPending(ctx: Context, path: string, journal: DeletionJournal, project: string): Promise<boolean> {
  const client = await ctx.api({ auth: 'prefer-key' });
  for (const request of journal.requests)
    request.status = (await getDeletionRequest(client, project, request.id!, { signal: ctx.deps.signal })).status;
  const pending = journal.requests.filter((r) => !RUN.has(r.status ?? ''));
  if (pending.length > 0) {
    ctx.info(
      `this selection's ${pending.length === 1 ? 'request was' : 'requests were'} made at ${journal.created_at} and ${pending.length === 1 ? 'has' : 'have'} not run yet: PostHog deletes what the selection names when it runs, events that arrived since included; no new request is made`,
    );
    return true;
  }
  const kept = path.replace(/\.json$/, `.${journal.created_at.replace(/[:.]/g, '-')}.json`);
  renameSync(path, kept);
  ctx.info(`every request of this selection's earlier run has run (its journal is kept as ${kept}): this run makes new ones`);
  return false;
}
