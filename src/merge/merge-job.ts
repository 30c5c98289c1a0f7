// A merge of duplicate persons, from the groups to the receipt: read every person as it is now,
// plan (the person kept per group, the property rule), confirm by typing the count, journal the
// groups as they were (0600, for --undo), send the `$merge_dangerously` events through capture,
// then read back until each group is one person holding every distinct id or --verify-timeout
// passes, and write the receipt: per group merged, pending or failed.
//
// Never across projects: a group is read, planned and sent in its own project. Never a person
// created: a merge event is sent only for two distinct ids that each name a person now (a merge
// of two ids without persons would create one, `posthog-ingestion.md` B.3.5).
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Context } from '../context.js';
import { CancelledError, PartialFailureError, UsageError } from '../errors.js';
import type { ApiClient } from '../http/client.js';
import { configDir, ensurePrivateDir } from '../config/paths.js';
import { createSecretFile, writeSecretFile } from '../config/secret-file.js';
import { confirmOrRefuse } from '../cli/confirm.js';
import { lockJournal } from '../bulk/lock.js';
import { writeRecord } from '../io/output.js';
import type { CaptureEvent } from '../api/capture.js';
import { readPersons, type Candidate } from './find-duplicates.js';
import { PROPERTY_RULE, planGroups, type InputGroup, type KeepRule, type LeftOut } from './plan-groups.js';
import { PLAN_FORMAT } from './read-groups.js';
import { MERGE_JOURNAL, MergeJournal, readMergeJournal, type MergeHeader, type MergeJournalState } from './merge-journal.js';
import { EVENTS_A_REQUEST, captureClient, mergeEvent, mergedGroups, sendEvents } from './merge-events.js';
import { counted, plural } from '../io/counts.js';

export interface MergeSettings {
  keep: KeepRule;
  /** A reviewed plan: its keepers stand. */
  fromPlan: boolean;
  dryRun: boolean;
  planOut?: string;
  yes: boolean;
  resume: boolean;
  journal?: string;
  receipt?: string;
  verifyTimeoutMs: number;
  maxWaitMs: number;
  timeoutMs: number;
  /** What names the default journal: the input's text. */
  inputText: string;
}

export type GroupStatus = 'merged' | 'pending' | 'failed';

export interface MergeReceipt {
  format: 'hogctl persons merge receipt';
  journal: string;
  host: string;
  started_at: string;
  finished_at: string;
  keep: string;
  property_rule: string;
  counts: { groups: number; merged: number; pending: number; failed: number; persons_merged_away: number; left_out: number };
  groups: {
    project_id: string;
    status: GroupStatus;
    keep: string;
    merged: string[];
    distinct_ids: string[];
    reason?: string;
  }[];
  left_out: LeftOut[];
}

/** The groups as they are now on the server: each person read again, gone ones dropped. */
async function readNow(
  ctx: Context,
  client: ApiClient,
  groups: InputGroup[],
  maxWaitMs: number,
): Promise<{ groups: InputGroup[]; gone: LeftOut[] }> {
  const byProject = new Map<string, InputGroup[]>();
  for (const g of groups) byProject.set(g.project_id, [...(byProject.get(g.project_id) ?? []), g]);
  const fresh: InputGroup[] = [];
  const gone: LeftOut[] = [];
  for (const [project, list] of byProject) {
    const { persons } = await readPersons(
      ctx,
      client,
      project,
      { uuids: list.flatMap((g) => g.persons.map((p) => p.uuid)), distinctIds: [] },
      maxWaitMs,
    );
    for (const g of list) {
      const now: Candidate[] = [];
      for (const p of g.persons) {
        const current = persons.get(p.uuid);
        if (current) now.push(current);
        else gone.push({ project_id: project, uuid: p.uuid, reason: 'no longer exists (merged or deleted since it was listed)' });
      }
      fresh.push({ ...g, persons: now });
    }
  }
  return { groups: fresh, gone };
}

export function defaultJournal(ctx: Context, inputText: string): string {
  const dir = join(configDir(ctx.env), 'journals');
  const sha = createHash('sha256').update(inputText).digest('hex').slice(0, 16);
  return join(dir, `merge-${sha}.ndjson`);
}

export async function runMerge(ctx: Context, s: MergeSettings, input: () => Promise<InputGroup[]>): Promise<void> {
  const client = await ctx.api();
  const settings = await ctx.settings();
  const journalPath = s.journal ?? defaultJournal(ctx, s.inputText);
  if (s.journal === undefined) ensurePrivateDir(join(configDir(ctx.env), 'journals'));

  let state: MergeJournalState | undefined;
  let leftOut: LeftOut[] = [];
  if (s.resume) {
    state = await readMergeJournal(journalPath);
    leftOut = state.header.left_out ?? [];
  } else {
    if (existsSync(journalPath) && !s.dryRun)
      throw new UsageError(
        `a merge of this input was started before (journal ${journalPath})`,
        'continue it with --resume, or give --journal <new path> to start another',
      );
    const { groups, gone } = await readNow(ctx, client, await input(), s.maxWaitMs);
    const plan = planGroups(groups, s.keep);
    leftOut = [...gone, ...plan.leftOut];
    const receipt = s.receipt ?? `${journalPath.replace(/\.ndjson$/, '')}.receipt.json`;
    const header: MergeHeader = {
      t: 'header',
      format: MERGE_JOURNAL,
      nonce: randomBytes(16).toString('hex'),
      timestamp: new Date(ctx.deps.now()).toISOString(),
      started_at: new Date(ctx.deps.now()).toISOString(),
      host: settings.baseUrl,
      keep: s.fromPlan ? 'as the plan says' : s.keep,
      property_rule: PROPERTY_RULE,
      receipt,
      left_out: plan.leftOut.concat(gone),
    };
    state = { header, groups: plan.planned, accepted: new Set(), merged: new Set() };
    printPlan(ctx, state, leftOut, s);
    if (s.planOut !== undefined) await writePlan(s.planOut, state, leftOut);
    if (s.dryRun) return;
    if (state.groups.length === 0) {
      ctx.info('nothing to merge');
      return;
    }
    const away = state.groups.reduce((n, g) => n + g.merge.length, 0);
    await confirmOrRefuse(ctx, {
      yes: s.yes,
      summary: `This merges ${counted(away, 'person')} into ${state.groups.length} kept ${plural(state.groups.length, 'person')} on ${settings.baseUrl}. PostHog cannot undo a merge; hogctl persons merge --undo <receipt> can, from the journal.`,
      question: `Merge ${away} persons?`,
      typeToConfirm: String(away),
    });
  }

  const lock = await lockJournal(journalPath, ctx.deps.now);
  let journal: MergeJournal | undefined;
  try {
    if (s.resume) journal = await MergeJournal.append(journalPath);
    else {
      journal = await MergeJournal.create(journalPath);
      // The groups as they were, before anything is sent: what --undo gives back.
      await journal.write(state.header, ...state.groups.map((group, n) => ({ t: 'group' as const, n, group })));
    }
    let failed: Map<number, string>;
    try {
      failed = await send(ctx, client, s, state, journal);
    } catch (err) {
      // Stopped while sending (Ctrl-C, capture refusing, the network): the receipt says what was
      // sent and what was not, without reading back; --resume continues from the journal.
      await writeReceipt(
        state.header.receipt,
        await verify(ctx, client, { ...s, verifyTimeoutMs: 0 }, state, journal, new Map(), leftOut, false),
      );
      throw err;
    }
    const receipt = await verify(ctx, client, s, state, journal, failed, leftOut);
    await writeReceipt(state.header.receipt, receipt);
    if (ctx.deps.signal?.aborted)
      throw new CancelledError(
        `stopped while reading back: ${receipt.counts.merged} of ${receipt.counts.groups} groups merged so far; receipt ${state.header.receipt}`,
        'every group was sent; run the same command with --resume to read back again',
      );
    await writeRecord(
      await ctx.output(),
      { ...receipt.counts, receipt: state.header.receipt, journal: journalPath },
      { columns: [...Object.keys(receipt.counts), 'receipt', 'journal'] },
    );
    const c = receipt.counts;
    const line = `${c.merged} of ${c.groups} groups merged (${c.persons_merged_away} persons merged away), ${c.pending} pending, ${c.failed} failed; receipt ${state.header.receipt}`;
    if (c.pending > 0 || c.failed > 0)
      throw new PartialFailureError(
        line,
        `check later with the same command and --resume: it reads back again; the journal is ${journalPath}`,
      );
    ctx.info(`✔ ${line}`);
  } finally {
    await journal?.close();
    await lock.release();
  }
}

function printPlan(ctx: Context, state: MergeJournalState, leftOut: LeftOut[], s: MergeSettings): void {
  const away = state.groups.reduce((n, g) => n + g.merge.length, 0);
  const projects = [...new Set(state.groups.map((g) => g.project_id))];
  const lines = [
    'Plan: merge duplicate persons',
    `  host:        ${state.header.host}`,
    `  projects:    ${projects.join(', ') || '(none)'}`,
    `  groups:      ${state.groups.length} (${away} persons merged away, each into its group's kept person)`,
    `  kept:        ${s.fromPlan ? 'as the plan names them' : `by --keep ${s.keep}`}`,
    `  properties:  ${PROPERTY_RULE}`,
    `  requests:    POST <capture>/batch/ ($merge_dangerously events, ${EVENTS_A_REQUEST} a request), then reads of the person store until each group is one person`,
  ];
  // A few groups as they will be merged, so the plan shows what the rule chose.
  for (const g of state.groups.slice(0, 5))
    lines.push(
      `    keep ${g.keep.uuid} (${g.keep.distinct_ids[0]}) ← ${g.merge.map((p) => `${p.uuid} (${p.distinct_ids[0]})`).join(', ')}`,
    );
  if (state.groups.length > 5) lines.push(`    … and ${state.groups.length - 5} more groups (--plan-out writes them all)`);
  if (leftOut.length > 0) lines.push(`  left out:    ${leftOut.length} persons (listed below)`);
  for (const l of leftOut.slice(0, 20)) lines.push(`    ${l.uuid} (project ${l.project_id}): ${l.reason}`);
  if (leftOut.length > 20) lines.push(`    … and ${leftOut.length - 20} more (--plan-out lists them all)`);
  ctx.info(lines.join('\n'));
}

async function writePlan(path: string, state: MergeJournalState, leftOut: LeftOut[]): Promise<void> {
  const plan = {
    format: PLAN_FORMAT,
    host: state.header.host,
    keep: state.header.keep,
    property_rule: PROPERTY_RULE,
    groups: state.groups.map((g) => ({
      project_id: g.project_id,
      keep: g.keep.uuid,
      persons: [g.keep, ...g.merge],
      expected_properties: g.expected_properties,
    })),
    left_out: leftOut,
  };
  if (!createSecretFile(path, `${JSON.stringify(plan, null, 2)}\n`))
    throw new UsageError(`${path} exists: --plan-out does not replace a file`, 'give another path, or remove it');
}

/** Sends the groups not yet accepted, whole groups a request, project by project. */
async function send(
  ctx: Context,
  client: ApiClient,
  s: MergeSettings,
  state: MergeJournalState,
  journal: MergeJournal,
): Promise<Map<number, string>> {
  const failed = new Map<number, string>();
  const projects = [...new Set(state.groups.map((g) => g.project_id))];
  for (const project of projects) {
    const todo = state.groups
      .map((g, n) => ({ g, n }))
      .filter(({ g, n }) => g.project_id === project && !state.accepted.has(n) && !state.merged.has(n));
    if (todo.length === 0) continue;
    const capture = await captureClient(ctx, client, project);
    let batch: { n: number; events: CaptureEvent[] }[] = [];
    const flush = async () => {
      if (batch.length === 0) return;
      if (ctx.deps.signal?.aborted) throw stopped(state);
      const groups = batch.map((b) => b.n);
      await journal.write({ t: 'sending', groups });
      try {
        await sendEvents(
          ctx,
          capture,
          batch.flatMap((b) => b.events),
          s.timeoutMs,
        );
      } catch (err) {
        if (ctx.deps.signal?.aborted) throw stopped(state, true);
        throw err;
      }
      await journal.write({ t: 'accepted', groups });
      for (const n of groups) state.accepted.add(n);
      batch = [];
    };
    for (const { g, n } of todo) {
      const into = g.keep.distinct_ids[0];
      const events = g.merge.map((other) => mergeEvent({ into, alias: other.distinct_ids[0], person: other.uuid }, state.header, project));
      if (batch.reduce((k, b) => k + b.events.length, 0) + events.length > EVENTS_A_REQUEST) await flush();
      batch.push({ n, events });
    }
    await flush();
    ctx.info(`project ${project}: ${todo.length} groups sent`);
  }
  return failed;
}

function stopped(state: MergeJournalState, inFlight = false): CancelledError {
  const flight = inFlight ? '; the request being sent may or may not have been taken' : '';
  return new CancelledError(
    `stopped: ${state.accepted.size} of ${state.groups.length} groups sent${flight}; receipt ${state.header.receipt}`,
    'continue with the same command and --resume (it sends what was not accepted again; a merge applied twice is applied once)',
  );
}

/** Reads back until every accepted group is one person, or --verify-timeout passes. */
async function verify(
  ctx: Context,
  client: ApiClient,
  s: MergeSettings,
  state: MergeJournalState,
  journal: MergeJournal,
  failed: Map<number, string>,
  leftOut: LeftOut[],
  readBack = true,
): Promise<MergeReceipt> {
  const sleep = ctx.deps.sleep ?? ((ms: number) => new Promise((r) => setTimeout(r, ms)));
  const started = ctx.deps.now();
  const projects = [...new Set(state.groups.map((g) => g.project_id))];
  for (let delay = 250; readBack; delay = Math.min(delay * 2, 5_000)) {
    for (const project of projects) {
      const pending = state.groups
        .map((g, n) => ({ g, n }))
        .filter(({ g, n }) => g.project_id === project && state.accepted.has(n) && !state.merged.has(n))
        .map(({ g, n }) => ({ index: n, keep: g.keep.uuid, distinctIds: [g.keep, ...g.merge].flatMap((p) => p.distinct_ids) }));
      if (pending.length === 0) continue;
      const done = await mergedGroups(ctx, client, project, pending);
      if (done === null) {
        for (const p of pending) failed.set(p.index, 'the server has no batch_by_distinct_ids to check the merge with');
        continue;
      }
      if (done.size > 0) await journal.write({ t: 'merged', groups: [...done] });
      for (const n of done) state.merged.add(n);
    }
    const waiting = state.groups.some((_, n) => state.accepted.has(n) && !state.merged.has(n) && !failed.has(n));
    if (!waiting || ctx.deps.now() - started + delay > s.verifyTimeoutMs || ctx.deps.signal?.aborted) break;
    await sleep(delay, ctx.deps.signal).catch(() => {});
  }
  const groups = state.groups.map((g, n) => {
    const status: GroupStatus = state.merged.has(n) ? 'merged' : failed.has(n) ? 'failed' : 'pending';
    return {
      project_id: g.project_id,
      status,
      keep: g.keep.uuid,
      merged: g.merge.map((p) => p.uuid),
      distinct_ids: [g.keep, ...g.merge].flatMap((p) => p.distinct_ids).sort(),
      ...(status === 'failed'
        ? { reason: failed.get(n) }
        : status === 'pending'
          ? {
              reason: state.accepted.has(n)
                ? 'sent; not yet one person when the read-back stopped (PostHog may be slow, or refused it: an ingestion warning says why)'
                : 'not sent',
            }
          : {}),
    };
  });
  const count = (st: GroupStatus) => groups.filter((g) => g.status === st).length;
  return {
    format: 'hogctl persons merge receipt',
    journal: journalPathOf(journal),
    host: state.header.host,
    started_at: state.header.started_at,
    finished_at: new Date(ctx.deps.now()).toISOString(),
    keep: state.header.keep,
    property_rule: state.header.property_rule,
    counts: {
      groups: groups.length,
      merged: count('merged'),
      pending: count('pending'),
      failed: count('failed'),
      persons_merged_away: state.groups.filter((_, n) => state.merged.has(n)).reduce((k, g) => k + g.merge.length, 0),
      left_out: leftOut.length,
    },
    groups,
    left_out: leftOut,
  };
}

function journalPathOf(journal: MergeJournal): string {
  return journal.path;
}

/** 0600, replaced atomically, never through a link (ARCHITECTURE.md §5). */
async function writeReceipt(path: string, receipt: MergeReceipt): Promise<void> {
  writeSecretFile(path, `${JSON.stringify(receipt, null, 2)}\n`);
}
