// The insight-backed persons commands and the HogQL client against a fake server: what they
// print when the server answers (the sandbox only answers them with a session), the older and
// odder answer shapes, and the async query polling.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../../src/main.js';
import { runHogQL } from '../../../src/api/query.js';
import { Collector, FakeApi, KEY, ORIGIN, makeClient, rejection } from '../helpers.js';

let api: FakeApi;
let dir: string;

beforeEach(() => {
  api = new FakeApi();
  dir = mkdtempSync(join(tmpdir(), 'hogctl-unit-'));
});
afterEach(async () => {
  await api.close();
  rmSync(dir, { recursive: true, force: true });
});

async function hogctl(args: string[], stdin = '') {
  const stdout = new Collector();
  const stderr = new Collector();
  const code = await main(args, {
    io: { stdout, stderr, stdin: Readable.from([stdin]) as unknown as NodeJS.ReadStream },
    env: { HOGCTL_CONFIG_DIR: dir, HOGCTL_BASE_URL: ORIGIN, HOGCTL_PROJECT_ID: '7', HOGCTL_API_KEY: KEY },
    now: () => 0,
    dispatcher: api.agent,
    sleep: async () => {},
  });
  return { code, stdout: stdout.text, stderr: stderr.text };
}

const person = (n: number) => ({
  type: 'person',
  id: `0190000${n}-aaaa-7bbb-8ccc-000000000001`,
  uuid: `0190000${n}-aaaa-7bbb-8ccc-000000000001`,
  name: `user${n}@example.com`,
  distinct_ids: [`user-${n}`],
  properties: { email: `user${n}@example.com` },
  created_at: '2025-01-01T00:00:00Z',
});

describe('persons lifecycle / funnel / funnel-correlation', () => {
  it('lifecycle prints the people of every page with --all, following next', async () => {
    const next = `${ORIGIN}/api/projects/7/persons/lifecycle/?target_date=2025-03-01&lifecycle_type=new&offset=100`;
    api
      .on('GET', '/api/projects/7/persons/lifecycle/?target_date=2025-03-01&lifecycle_type=new', [
        { status: 200, body: { results: [{ people: [person(1), person(2)], count: 2 }], next } },
      ])
      .on('GET', '/api/projects/7/persons/lifecycle/?target_date=2025-03-01&lifecycle_type=new&offset=100', [
        { status: 200, body: { results: [{ people: [person(3)], count: 1 }], next: null } },
      ]);
    const res = await hogctl([
      'persons',
      'lifecycle',
      '--legacy',
      '--target-date',
      '2025-03-01',
      '--lifecycle-type',
      'new',
      '--all',
      '-o',
      'ndjson',
    ]);
    expect(res.code).toBe(0);
    expect(
      res.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).name),
    ).toEqual(['user1@example.com', 'user2@example.com', 'user3@example.com']);
    expect(api.requests[0].headers.authorization).toBe(`Bearer ${KEY}`);
    expect(api.pending()).toBe(0);
  });

  it("lifecycle shows the server's {message, detail} body and exits 5", async () => {
    api.on('GET', '/api/projects/7/persons/lifecycle/?target_date=2025-03-01&lifecycle_type=new', [
      { status: 400, body: { message: 'Missing parameter', detail: 'Must include lifecycle type' } },
    ]);
    const res = await hogctl(['persons', 'lifecycle', '--legacy', '--target-date', '2025-03-01', '--lifecycle-type', 'new']);
    expect(res.code).toBe(5);
    expect(res.stderr).toContain('failed with 400: Missing parameter: Must include lifecycle type');
    expect(res.stdout).toBe('');
  });

  it('funnel --post sends the parameters as a body and asks for the next page with its offset', async () => {
    const file = join(dir, 'filter.json');
    writeFileSync(file, JSON.stringify({ events: [{ id: 'a' }, { id: 'b' }], interval: 'day' }));
    api.on('POST', '/api/projects/7/persons/funnel/', [
      {
        status: 200,
        body: {
          results: [{ people: [person(1)], count: 1 }],
          next: `${ORIGIN}/api/projects/7/persons/funnel/?offset=100`,
          initial: 'x',
          missing_persons: 0,
        },
      },
      { status: 200, body: { results: [{ people: [person(2)], count: 1 }], next: null } },
    ]);
    const res = await hogctl([
      'persons',
      'funnel',
      '--legacy',
      '--post',
      '--params',
      `@${file}`,
      '--param',
      'interval=week',
      '--funnel-step',
      '-2',
      '--all',
      '-o',
      'csv',
      '--fields',
      'id,properties.email',
    ]);
    expect(res.code).toBe(0);
    expect(res.stdout).toBe(`id,properties.email\n${person(1).id},user1@example.com\n${person(2).id},user2@example.com\n`);
    expect(api.requests.map((r) => r.body)).toEqual([
      { events: [{ id: 'a' }, { id: 'b' }], interval: 'week', funnel_step: -2 },
      { events: [{ id: 'a' }, { id: 'b' }], interval: 'week', funnel_step: -2, offset: 100 },
    ]);
  });

  it('funnel says when there are more pages than it printed', async () => {
    api.on('GET', '/api/projects/7/persons/funnel/?events=%5B%7B%22id%22%3A%22a%22%7D%2C%7B%22id%22%3A%22b%22%7D%5D', [
      { status: 200, body: { results: [{ people: [person(1)], count: 1 }], next: `${ORIGIN}/api/projects/7/persons/funnel/?offset=100` } },
    ]);
    const res = await hogctl(['persons', 'funnel', '--legacy', '--events', '[{"id":"a"},{"id":"b"}]']);
    expect(res.code).toBe(0);
    expect(res.stderr).toContain('1 person shown; there are more: add --all');
  });

  it('funnel-correlation reads --params from standard input and prints the people of an older server', async () => {
    api.on('GET', '/api/projects/7/persons/funnel/correlation/?funnel_correlation_person_converted=TRUE', [
      { status: 200, body: { results: [{ people: [person(4)], count: 1 }], next: null } },
    ]);
    const res = await hogctl(
      ['persons', 'funnel-correlation', '--params', '@-', '-o', 'json'],
      '{"funnel_correlation_person_converted": "TRUE"}',
    );
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout).map((p: { id: string }) => p.id)).toEqual([person(4).id]);
  });

  it('funnel-correlation --post --all asks for the next page with funnel_correlation_person_offset, as the server pages it', async () => {
    api.on('POST', '/api/projects/7/persons/funnel/correlation/', [
      {
        status: 200,
        body: {
          results: [{ people: [person(5)], count: 1 }],
          next: `${ORIGIN}/api/projects/7/persons/funnel/correlation/?funnel_correlation_person_limit=100&funnel_correlation_person_offset=100`,
        },
      },
      { status: 200, body: { results: [{ people: [person(6)], count: 1 }], next: null } },
    ]);
    const res = await hogctl([
      'persons',
      'funnel-correlation',
      '--post',
      '--param',
      'funnel_correlation_person_converted=TRUE',
      '--all',
      '-o',
      'json',
    ]);
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout).map((p: { id: string }) => p.id)).toEqual([person(5).id, person(6).id]);
    expect(api.requests.map((r) => r.body)).toEqual([
      { funnel_correlation_person_converted: 'TRUE' },
      { funnel_correlation_person_converted: 'TRUE', funnel_correlation_person_offset: 100 },
    ]);
  });

  it("funnel-correlation keeps a missing project's own 404", async () => {
    api.on('GET', '/api/projects/7/persons/funnel/correlation/', [
      { status: 404, body: { type: 'invalid_request', code: 'not_found', detail: 'Project not found.', attr: null } },
    ]);
    const res = await hogctl(['persons', 'funnel-correlation']);
    expect(res.code).toBe(3);
    expect(res.stderr).toContain('Project not found.');
    expect(res.stderr).not.toContain('no longer offers');
  });
});

describe('persons timeline and cohorts', () => {
  it('timeline prints the points and notes the range and the crucial keys', async () => {
    api.on('GET', '/api/projects/7/persons/42/properties_timeline/?breakdown=plan', [
      {
        status: 200,
        body: {
          points: [
            { timestamp: '2025-01-01T00:00:00Z', properties: { plan: 'free' }, relevant_event_count: 3 },
            { timestamp: '2025-02-01T00:00:00Z', properties: { plan: 'team' }, relevant_event_count: 9 },
          ],
          crucial_property_keys: ['plan'],
          effective_date_from: '2025-01-01T00:00:00Z',
          effective_date_to: '2025-03-01T00:00:00Z',
        },
      },
    ]);
    const res = await hogctl(['persons', 'timeline', '42', '--breakdown', 'plan', '-o', 'csv']);
    expect(res.code).toBe(0);
    expect(res.stdout).toBe('timestamp,relevant_event_count,properties.plan\n2025-01-01T00:00:00Z,3,free\n2025-02-01T00:00:00Z,9,team\n');
    expect(res.stderr).toContain('2 points from 2025-01-01T00:00:00Z to 2025-03-01T00:00:00Z; crucial properties: plan');
  });

  it("cohorts accepts an older server's full cohort objects", async () => {
    api.on('GET', '/api/projects/7/persons/cohorts/?person_id=42', [
      { status: 200, body: { results: [{ id: 3, name: 'Paying', count: 10, filters: {}, is_static: false, description: '' }] } },
    ]);
    const res = await hogctl(['persons', 'cohorts', '42', '-o', 'ndjson']);
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ id: 3, name: 'Paying', count: 10 });
  });
});

describe('runHogQL', () => {
  it('follows an async query (202 with query_status) until it completes', async () => {
    const done = { columns: ['id'], types: [['id', 'UUID']], results: [['a'], ['b']], hasMore: null };
    api
      .on('POST', '/api/projects/7/query/', [{ status: 202, body: { cache_key: 'k', query_status: { id: 'q1', complete: false } } }])
      .on('GET', '/api/projects/7/query/q1/', [
        { status: 202, body: { query_status: { id: 'q1', complete: false } } },
        { status: 200, body: { query_status: { id: 'q1', complete: true, error: false, results: done } } },
      ]);
    const { client, sleeps } = makeClient(api);
    const res = await runHogQL(client, '7', { query: 'SELECT id FROM persons', name: 'n' }, { sleep: async (ms) => void sleeps.push(ms) });
    expect(res.results).toEqual([['a'], ['b']]);
    expect(sleeps).toEqual([250]);
    expect(api.requests[0].body).toEqual({
      query: { kind: 'HogQLQuery', query: 'SELECT id FROM persons' },
      name: 'n',
      refresh: 'blocking',
    });
  });

  it('reports a failed async query as rejected (exit 5), and gives up on one that never ends', async () => {
    api
      .on('POST', '/api/projects/7/query/', [{ status: 202, body: { query_status: { id: 'q2', complete: false } } }])
      .on('GET', '/api/projects/7/query/q2/', [
        { status: 200, body: { query_status: { id: 'q2', complete: true, error: true, error_message: 'Unable to resolve field: x' } } },
      ]);
    const { client } = makeClient(api);
    const err = await rejection(() => runHogQL(client, '7', { query: 'SELECT x FROM persons', name: 'n' }));
    expect(err.exitCode).toBe(5);
    expect(err.message).toContain('Unable to resolve field: x');

    api
      .on('POST', '/api/projects/7/query/', [{ status: 202, body: { query_status: { id: 'q3', complete: false } } }])
      .on('GET', '/api/projects/7/query/q3/', Array(20).fill({ status: 202, body: { query_status: { id: 'q3', complete: false } } }));
    let clock = 0;
    const slow = await rejection(() =>
      runHogQL(
        client,
        '7',
        { query: 'SELECT id FROM persons', name: 'n' },
        { now: () => clock, sleep: async (ms) => void (clock += ms), maxWaitMs: 10_000 },
      ),
    );
    expect(slow.exitCode).toBe(7);
    expect(slow.message).toContain('still running');
  });

  it('a failed async query answers the poll with 400 (docs/server-contract.md §7.2): its error_message is shown, exit 5; a bare 500 is a server failure, exit 7', async () => {
    api
      .on('POST', '/api/projects/7/query/', [{ status: 202, body: { query_status: { id: 'q4', complete: false } } }])
      .on('GET', '/api/projects/7/query/q4/', [
        { status: 400, body: { query_status: { id: 'q4', complete: true, error: true, error_message: 'Unknown table `person`.' } } },
      ]);
    const { client } = makeClient(api);
    const err = await rejection(() => runHogQL(client, '7', { query: 'SELECT id FROM person', name: 'n' }));
    expect(err.exitCode).toBe(5);
    expect(err.message).toBe('the query failed: Unknown table `person`.');

    api
      .on('POST', '/api/projects/7/query/', [{ status: 202, body: { query_status: { id: 'q5', complete: false } } }])
      .on('GET', '/api/projects/7/query/q5/', [
        { status: 500, body: { query_status: { id: 'q5', complete: true, error: true, error_message: null } } },
      ]);
    const bare = await rejection(() => runHogQL(client, '7', { query: 'SELECT id FROM persons', name: 'n' }));
    expect(bare.exitCode).toBe(7);
    expect(bare.message).toContain('the query failed');
  });

  it('retries the POST after a 504, since a query only reads', async () => {
    api.on('POST', '/api/projects/7/query/', [
      { status: 504, body: '<html><title>504 Gateway Time-out</title></html>' },
      { status: 200, body: { columns: ['n'], results: [[1]] } },
    ]);
    const { client, sleeps } = makeClient(api);
    const res = await runHogQL(client, '7', { query: 'SELECT count() FROM persons', name: 'n' });
    expect(res.results).toEqual([[1]]);
    expect(sleeps).toHaveLength(1);
  });
});
