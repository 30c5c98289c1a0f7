// What a journal says, rebuilt record by record (journal-format.ts names the records): read from
// the file when a run is resumed (journal-read.ts), and kept up to date while a run appends.
import { IdSet } from '../input/id-set.js';
import { PackedIds } from '../input/packed-ids.js';
import type { ChunkRecord, JournalHeader, JournalRecord, RunRecord, SendAgain } from './journal-format.js';

/** Everything a journal says, rebuilt line by line; kept up to date while a run appends. */
export class JournalState {
  header?: JournalHeader;
  readonly runs: RunRecord[] = [];
  readonly resolved = new Map<string, string | null>();
  /** Per project: the persons each identifier (by its key) matched. */
  readonly matched = new Map<string, Map<string, string[]>>();
  /** Per project: the persons a selection chose, and whether the list is whole. */
  readonly selected = new Map<string, { ids: string[]; complete: boolean }>();
  /** Per project: the distinct ids of the persons, recorded before they were deleted. */
  readonly recorded = new Map<string, Map<string, string[]>>();
  /** Persons whose records are in the --backup file. */
  readonly backedUp = new Set<string>();
  readonly chunks = new Map<number, ChunkRecord>();
  maxChunk = 0;
  /** The last verification: the ids it found gone, and whether it finished. */
  verification?: { gone: Set<string>; finished: boolean };

  /** `sendAgain`: how the kind's answers name ids still to do; without it, every answered id is done.
   * `list`: the input's ids, which requests are kept as places in when cut from it (packed-ids.ts). */
  constructor(
    private readonly sendAgain?: SendAgain,
    private readonly list?: IdSet,
  ) {}

  /** One record, in the order the journal holds them: each kind of line updates its part. */
  apply(record: JournalRecord): void {
    switch (record.type) {
      case 'header':
        this.header = record;
        break;
      case 'run':
        this.runs.push({ run: record.run, at: record.at, resume: record.resume });
        break;
      case 'resolved':
        for (const [k, v] of Object.entries(record.ids)) this.resolved.set(k, v);
        break;
      case 'matched':
      case 'selected':
      case 'recorded':
        this.applyFinding(record);
        break;
      case 'sending':
      case 'answered':
      case 'failed':
      case 'checked':
        this.applyChunk(record);
        break;
      case 'stopped': {
        const run = this.runs.find((r) => r.run === record.run);
        if (run) run.stopped = { at: record.at, reason: record.reason };
        break;
      }
      case 'verification':
        if (record.stage === 'started') this.verification = { gone: new Set(), finished: false };
        else if (this.verification) this.verification.finished = true;
        break;
      case 'verified':
        for (const id of record.gone) this.verification?.gone.add(id);
        break;
    }
  }

  /** What was found before anything was sent: identifiers matched, persons selected, their
   * distinct ids recorded, each for its project. */
  private applyFinding(record: Extract<JournalRecord, { type: 'matched' | 'selected' | 'recorded' }>): void {
    switch (record.type) {
      case 'matched': {
        const found = mapOf(this.matched, record.project);
        for (const [k, v] of Object.entries(record.ids)) found.set(k, v);
        break;
      }
      case 'selected': {
        const sel = this.selected.get(record.project) ?? { ids: [], complete: false };
        sel.ids.push(...record.ids);
        if (record.complete) sel.complete = true;
        this.selected.set(record.project, sel);
        break;
      }
      case 'recorded': {
        const found = mapOf(this.recorded, record.project);
        for (const [k, v] of Object.entries(record.persons)) {
          found.set(k, v);
          if (record.backed_up) this.backedUp.add(k);
        }
        break;
      }
    }
  }

  /** A chunk sent, and what became of it: its answer, its failure, or the ids a check after a
   * lost answer found gone. An answer outweighs a failure whatever their order. */
  private applyChunk(record: Extract<JournalRecord, { type: 'sending' | 'answered' | 'failed' | 'checked' }>): void {
    if (record.type === 'sending') {
      this.chunks.set(record.chunk, {
        chunk: record.chunk,
        run: record.run,
        project: record.project ?? this.header?.project ?? '',
        ids: new PackedIds(record.ids, this.list),
        sentAt: record.at,
        ...(record.resend ? { resend: true } : {}),
      });
      this.maxChunk = Math.max(this.maxChunk, record.chunk);
      return;
    }
    const chunk = this.chunks.get(record.chunk);
    if (!chunk) return;
    if (record.type === 'answered') {
      const { at, status, attempts, summary, unclear } = record;
      chunk.answer = { at, status, attempts, summary, ...(unclear ? { unclear } : {}) };
      chunk.failure = undefined;
    } else if (record.type === 'failed') {
      const { at, attempts, status, error, unclear } = record;
      if (!chunk.answer) chunk.failure = { at, attempts, status, error, ...(unclear ? { unclear } : {}) };
    } else {
      chunk.gone = [...(chunk.gone ?? []), ...record.gone];
      // The check accounts for the attempts whose answers were lost, as the runner's own check
      // does within a run (runner.ts settle): the request is no longer unclear.
      if (chunk.failure?.unclear) chunk.failure = { ...chunk.failure, unclear: 0 };
    }
  }

  get lastRun(): number {
    return this.runs.length ? this.runs[this.runs.length - 1].run : 0;
  }

  /** Ids of every chunk the server answered with success, and ids found gone after a lost
   * answer: these are never sent again. */
  answeredIds(): IdSet {
    const done = new IdSet();
    this.eachAnswered((id) => done.add(id));
    return done;
  }

  /** The place in `list` of each id answeredIds() holds that is in it, once or more: by the
   * places a request keeps (packed-ids.ts) where it can, so that a resume of millions of ids makes
   * no string of each. */
  eachAnsweredIn(list: IdSet, take: (at: number) => void): void {
    const failed = this.toSendAgain();
    const byId = (id: string) => {
      if (failed.has(id)) return;
      const at = list.indexOf(id);
      if (at >= 0) take(at);
    };
    for (const chunk of this.chunks.values()) {
      if (chunk.answer)
        for (let i = 0; i < chunk.ids.length; i++) {
          const at = failed.size ? -1 : chunk.ids.placeIn(list, i);
          if (at >= 0) take(at);
          else byId(chunk.ids.at(i));
        }
      for (const id of chunk.gone ?? []) byId(id);
    }
  }

  /** Each id answeredIds() holds, once or more, without a set of them all. */
  eachAnswered(take: (id: string) => void): void {
    // Ids an answer asked to be sent again were not done: they go again (toSendAgain()).
    const failed = this.toSendAgain();
    for (const chunk of this.chunks.values()) {
      if (chunk.answer) for (const id of chunk.ids) if (!failed.has(id)) take(id);
      for (const id of chunk.gone ?? []) if (!failed.has(id)) take(id);
    }
  }

  /** Ids the kind's answers ask to be sent again and no later answer did, with their project. */
  toSendAgain(): Map<string, string> {
    return this.sendAgain ? this.sendAgain(this.chunks.values()) : new Map();
  }

  /** Ids sent in requests whose answer was lost (a run that stopped before their answer, or a
   * chunk that failed after an unclear attempt), and not settled since, each once. Checking them
   * again is harmless: ids a check found gone, or a later chunk answered, are left out. An id two
   * lost requests carried (one found present and sent again) is listed with the first: one check
   * tells the fate of both, and a second would journal it found gone twice. */
  lostAnswerIds(): { chunk: number; project: string; ids: string[] }[] {
    const lost = [...this.chunks.values()].filter((c) => (!c.answer && !c.failure) || (c.failure && (c.failure.unclear ?? 0) > 0));
    // Most runs lost no answer: then no set of every id answered is built for nothing.
    if (lost.length === 0) return [];
    const settledOrListed = this.answeredIds();
    const out: { chunk: number; project: string; ids: string[] }[] = [];
    for (const c of lost) {
      const ids = c.ids.filter((id) => settledOrListed.add(id));
      if (ids.length) out.push({ chunk: c.chunk, project: c.project, ids });
    }
    return out;
  }
}

function mapOf<V>(outer: Map<string, Map<string, V>>, key: string): Map<string, V> {
  let inner = outer.get(key);
  if (!inner) outer.set(key, (inner = new Map()));
  return inner;
}
