// The sandbox's HogQL over the events table: the seeded history, aggregates, GROUP BY / HAVING,
// IN over a subquery, and the same limits and errors as the persons table.
import { beforeAll, describe, expect, it } from 'vitest';
import { loadHogQLParser, parseSelect } from '../src/hogql/posthog-grammar.js';
import { HogQLError } from '../src/hogql/types.js';
import { runSelect, type QueryResult } from '../src/hogql/execute.js';
import { EventStore } from '../src/events.js';
import { seedHistory } from '../src/event-history.js';
import { SandboxStore } from '../src/store.js';

const PERSONS = 300;
const PER_PERSON = 4;
const store = new SandboxStore({ persons: PERSONS, seed: 5 });
const events = new EventStore((into) => seedHistory(store, into, PER_PERSON, 77));

beforeAll(loadHogQLParser);

function run(query: string, values: Record<string, unknown> = {}): QueryResult {
  return runSelect({ query: parseSelect(query), values, store, events, teamId: 1 });
}

function failure(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(HogQLError);
    return (error as Error).message;
  }
  throw new Error('expected a HogQLError');
}

/** Every seeded event, read back through HogQL. */
function all(): { uuid: string; event: string; distinct_id: string; person_id: string; timestamp: string }[] {
  const res = run('SELECT uuid, event, distinct_id, person_id, timestamp FROM events LIMIT 50000');
  return res.results.map(
    ([uuid, event, distinct_id, person_id, timestamp]) => ({ uuid, event, distinct_id, person_id, timestamp }) as never,
  );
}

describe('the seeded history', () => {
  it('gives every seeded person its events, with its UUID as person_id and its own distinct ids', () => {
    const rows = all();
    expect(rows).toHaveLength(PERSONS * PER_PERSON);
    expect(new Set(rows.map((r) => r.uuid)).size).toBe(rows.length);
    for (const person of [...store].slice(0, 50)) {
      const mine = rows.filter((r) => r.person_id === person.uuid);
      expect(mine).toHaveLength(PER_PERSON);
      for (const r of mine) expect(person.distinctIds).toContain(r.distinct_id);
      for (const r of mine) expect(r.timestamp >= person.createdAt).toBe(true);
    }
  });

  it('is the same for the same seed', () => {
    const again = new EventStore((into) => seedHistory(new SandboxStore({ persons: PERSONS, seed: 5 }), into, PER_PERSON, 77));
    const first = runSelect({
      query: parseSelect('SELECT uuid, properties FROM events LIMIT 50000'),
      values: {},
      store,
      events: again,
      teamId: 1,
    });
    expect(first.results).toEqual(run('SELECT uuid, properties FROM events LIMIT 50000').results);
  });
});

describe('aggregates, GROUP BY and HAVING', () => {
  it('count(), count(DISTINCT x), min() and max()', () => {
    const rows = all();
    const res = run('SELECT count(), count(DISTINCT person_id), min(timestamp), max(timestamp) FROM events');
    const times = rows.map((r) => r.timestamp).sort();
    expect(res.results).toEqual([[rows.length, PERSONS, times[0], times[times.length - 1]]]);
    expect(res.types.map((t) => t[1])).toEqual(['UInt64', 'UInt64', "DateTime64(6, 'UTC')", "DateTime64(6, 'UTC')"]);
    expect(run("SELECT count() FROM events WHERE event = 'no such event'").results).toEqual([[0]]);
  });

  it('GROUP BY with HAVING and ORDER BY an aggregate', () => {
    const rows = all();
    const counts = new Map<string, number>();
    for (const r of rows) counts.set(r.event, (counts.get(r.event) ?? 0) + 1);
    const res = run('SELECT event, count() AS n FROM events GROUP BY event HAVING n > 1 ORDER BY n DESC, event');
    const expected = [...counts].filter(([, n]) => n > 1).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    expect(res.results).toEqual(expected);
    expect(run("SELECT lower(event) AS e, count() FROM events GROUP BY e HAVING e = '$pageview'").results).toEqual([
      ['$pageview', counts.get('$pageview')],
    ]);
  });

  it('refuses a column that is neither grouped nor aggregated', () => {
    expect(failure(() => run('SELECT event, distinct_id, count() FROM events GROUP BY event'))).toMatch(
      /Column `distinct_id` is not under an aggregate function and not in GROUP BY/,
    );
    expect(failure(() => run('SELECT event FROM events WHERE count() > 1'))).toBe('Aggregate functions are not allowed in WHERE');
  });
});

describe('IN over a subquery', () => {
  it('selects the events of the persons a persons query names', () => {
    const team = [...store].filter((p) => p.properties.plan === 'team').map((p) => p.uuid);
    const res = run("SELECT count() FROM events WHERE person_id IN (SELECT id FROM persons WHERE properties.plan = 'team')");
    expect(res.results).toEqual([[team.length * PER_PERSON]]);
    const notIn = run("SELECT count() FROM events WHERE person_id NOT IN (SELECT id FROM persons WHERE properties.plan = 'team')");
    expect(notIn.results).toEqual([[(PERSONS - team.length) * PER_PERSON]]);
  });

  it('a subquery is not cut to the default 100 rows', () => {
    expect(run('SELECT count() FROM events WHERE distinct_id IN (SELECT distinct_id FROM events)').results).toEqual([
      [PERSONS * PER_PERSON],
    ]);
  });
});

describe('limits and errors, as for persons', () => {
  it('100 rows and hasMore without a LIMIT; a LIMIT over 50,000 is lowered', () => {
    expect(run('SELECT uuid FROM events')).toMatchObject({ limit: 100, hasMore: true, offset: 0 });
    expect(run('SELECT uuid FROM events').results).toHaveLength(100);
    expect(run('SELECT uuid FROM events LIMIT 70000')).toMatchObject({ limit: null, hasMore: null });
  });

  it('names what it cannot resolve', () => {
    expect(failure(() => run('SELECT nope FROM events'))).toBe('Unable to resolve field: nope');
    expect(failure(() => run('SELECT person.properties.email FROM events'))).toBe('Unable to resolve field: person.properties.email');
    expect(failure(() => run('SELECT id FROM sessions'))).toMatch(
      /^Unknown table `sessions`. The hogctl sandbox knows the persons, person_distinct_ids and events tables only/,
    );
  });

  it('reads properties keys, $session_id and * as the server shows them', () => {
    const res = run("SELECT properties.$browser, `$session_id`, properties FROM events WHERE properties.$pathname = '/pricing' LIMIT 1");
    const [browser, session, properties] = res.results[0] as [string, string, string];
    expect(JSON.parse(properties)).toMatchObject({ $browser: browser, $session_id: session, $pathname: '/pricing' });
    expect(run('SELECT * FROM events LIMIT 1').columns).toEqual([
      'uuid',
      'event',
      'properties',
      'timestamp',
      'team_id',
      'distinct_id',
      'elements_chain',
      'created_at',
      '$session_id',
      '$window_id',
    ]);
  });
});
