// The plan's words and numbers: the confirmation for every flag combination, and the estimate
// under the server's two delete windows.
import { describe, expect, it } from 'vitest';
import { describeEstimate, estimateMs, planText, type PlanFacts } from '../../../../src/bulk/engine/plan.js';
import { describeDeletion } from '../../../../src/bulk/kinds/delete/delete-persons.js';
import { DELETE_WINDOWS } from '../../../../src/bulk/kinds/delete/limits.js';
import { progressLogInterval, ProgressLog } from '../../../../src/io/progress.js';
import { sleep } from '../../../../src/sleep.js';

const flags = (delete_events: boolean, delete_recordings: boolean, keep_person: boolean) => ({
  delete_events,
  delete_recordings,
  keep_person,
});

describe('the confirmation', () => {
  it('names exactly what goes', () => {
    expect(describeDeletion('person_ids', 18_997, flags(true, false, false))).toBe('18,997 persons and their events');
    expect(describeDeletion('person_ids', 18_997, flags(true, true, false))).toBe('18,997 persons and their events and recordings');
    expect(describeDeletion('person_ids', 1, flags(false, false, false))).toBe('1 person (their events and recordings stay)');
    expect(describeDeletion('person_ids', 12, flags(false, true, true))).toBe(
      'the recordings of 12 persons (keeping the persons themselves)',
    );
    expect(describeDeletion('distinct_ids', 3, flags(true, false, false))).toBe('the persons behind 3 distinct ids and their events');
  });
});

describe('the estimate', () => {
  it('takes both windows and request time: 10,000 requests in about 2 h, not 21 min', () => {
    const text = describeEstimate(10_000, DELETE_WINDOWS, 4);
    // Each hour's 4,800 go out in its first 10 minutes; the last 400 at 2 h 0 min 51 s.
    expect(text).toBe('about 2h01m (at ~0.5 s a request; 480/min and 4,800/h cap it; longer if the server is slower)');
    expect(describeEstimate(4800, DELETE_WINDOWS, 4)).toBe(
      'about 10m05s (at ~0.5 s a request; 480/min caps it; longer if the server is slower)',
    );
    // Request time counts: slower answers with one request in flight take longer.
    expect(estimateMs(100, DELETE_WINDOWS, 1, 2000)).toBeGreaterThan(estimateMs(100, DELETE_WINDOWS, 1, 500));
    expect(estimateMs(100, DELETE_WINDOWS, 1, 2000)).toBe(200_000);
  });
});

describe('progress off a terminal', () => {
  it('takes its interval from HOGCTL_PROGRESS_INTERVAL (seconds), else 10 s', () => {
    expect(progressLogInterval({})).toBe(10_000);
    expect(progressLogInterval({ HOGCTL_PROGRESS_INTERVAL: '0.5' })).toBe(500);
    expect(progressLogInterval({ HOGCTL_PROGRESS_INTERVAL: 'soon' })).toBe(10_000);
  });

  it('writes done, rate and ETA on each tick, and a retry at once', async () => {
    let out = '';
    const log = new ProgressLog({
      stream: { write: (s: string) => ((out += s), true) } as never,
      total: 3000,
      unit: 'ids',
      now: () => 0,
      sleep,
      extra: () => '240 req/min',
      remainingMs: () => 90_000,
      intervalMs: 5,
    });
    log.update(1000);
    log.status('chunk 2: 503, retrying in 3 s', 3000);
    await new Promise((r) => setTimeout(r, 30));
    log.finish();
    const lines = out.trim().split('\n');
    expect(lines[0]).toBe('chunk 2: 503, retrying in 3 s');
    expect(lines[1]).toBe('progress: 1,000/3,000 ids 33% · 240 req/min · ETA 1m30s · chunk 2: 503, retrying in 3 s');
  });
});

describe('the plan', () => {
  const list = {
    kind: 'person_ids' as const,
    format: 'lines' as const,
    ids: ['a', 'b', 'c'],
    requested: 5,
    duplicates: 1,
    invalidCount: 1,
    invalid: [],
    integerCount: 2,
    sha256: 'x',
  };
  const facts: PlanFacts = {
    title: 'delete persons by person id',
    done: 'deleted',
    dryRun: false,
    profile: 'prod',
    host: 'https://eu.posthog.com',
    projects: [{ id: '42', name: null, targets: 3 }],
    spans: false,
    sample: [],
    input: { label: 'ids.txt', list },
    resolveLater: false,
    resolvedDuplicates: 0,
    unresolved: 0,
    requests: 1,
    chunkSize: 1000,
    requestWord: 'deletion',
    request: 'POST /api/projects/42/persons/bulk_delete/',
    flags: 'delete events: yes · delete recordings: no · keep person: no',
    flagsLabel: 'flags',
    windows: DELETE_WINDOWS,
    concurrency: 4,
    journal: '/j/ids.ndjson',
    receipt: '/j/ids.receipt.json',
  };

  it('states where, what, how many requests, how long, and where the journal and receipt go', () => {
    expect(planText(facts)).toBe(
      [
        'Plan: delete persons by person id',
        '  profile   prod',
        '  host      https://eu.posthog.com',
        '  project   42',
        '  input     ids.txt (lines): 5 values, 3 unique person ids, 1 duplicate dropped, 1 invalid',
        '  requests  1 of at most 1,000 ids (POST /api/projects/42/persons/bulk_delete/)',
        '  flags     delete events: yes · delete recordings: no · keep person: no',
        '  budget    480/min + 4,800/h requests, 4 in flight; estimated time about 1s (at ~0.5 s a request; longer if the server is slower)',
        '  journal   /j/ids.ndjson',
        '  receipt   /j/ids.receipt.json',
      ].join('\n'),
    );
  });

  it('counts one as one: a value, an id, a duplicate; a request of one person says so', () => {
    const one = planText({
      ...facts,
      input: { label: 'one.txt', list: { ...list, ids: ['a'], requested: 1, duplicates: 0, invalidCount: 0, integerCount: 0 } },
      chunkSize: 1,
      unit: 'persons',
    });
    expect(one).toContain('  input     one.txt (lines): 1 value, 1 unique person id, 0 duplicates dropped, 0 invalid');
    expect(one).toContain('  requests  1, one person each (POST /api/projects/42/persons/bulk_delete/)');
  });

  it('a dry run says so, names integer ids still to resolve, and has no journal; a resume counts what is left', () => {
    const dry = planText({ ...facts, dryRun: true, resolveLater: true, journal: undefined, receipt: undefined, profile: null });
    expect(dry).toMatch(
      /^Plan: delete persons by person id \(dry run: nothing will be sent\)\n  profile   \(none: settings from flags and environment\)/,
    );
    expect(dry).toContain('1 invalid (2 integer ids would be resolved to UUIDs first)');
    expect(dry).not.toMatch(/journal|receipt/);
    const resumed = planText({ ...facts, resume: { answered: 2000, left: 3 }, resolvedDuplicates: 1, unresolved: 2, requests: 0 });
    expect(resumed).toContain('  dupes     1 integer ids name a person already in the list by UUID; sent once');
    expect(resumed).toContain('  missing   2 integer ids match no person and will not be sent');
    expect(resumed).toContain('  resume    2,000 ids already answered in earlier runs (journal); 3 left');
    expect(resumed).toContain('4 in flight; nothing to send');
  });

  it("a kind's own input is named by its label, and the kind's own lines follow it", () => {
    const text = planText({
      ...facts,
      input: { label: 'groups.json', list: { ...list, ids: [], requested: 0 } },
      ownInput: true,
      kindLines: ['  groups    2 (3 persons merged away)', '  properties the kept person wins'],
    });
    expect(text).toContain('  input     groups.json\n  groups    2 (3 persons merged away)\n  properties the kept person wins\n  requests');
    expect(text).not.toContain('unique person ids');
  });
});
