// One rule for how large a query hogctl sends may be (src/hogql/query-size.ts), and the largest
// query each builder that names a list can send: under the budget, and so under ClickHouse's
// max_query_size of 262,144 bytes, which PostHog answers with 500 "Query size exceeded.".
import { describe, expect, it } from 'vitest';
import {
  assertFits,
  batchesThatFit,
  MAX_QUERY_SIZE,
  QUERY_SIZE_BUDGET,
  querySize,
  QueryTooLargeError,
} from '../../../src/hogql/query-size.js';
import { DISTINCT_ID_QUERY, EMAIL_QUERY, emailBatches, emailValues } from '../../../src/bulk/input/identifiers.js';
import { EVENTS_LEFT_QUERY } from '../../../src/bulk/kinds/delete/events-left.js';
import { LIST_QUERIES, parseKey, personsOfValuesQuery, ROWS_A_QUERY } from '../../../src/merge/find-duplicates.js';
import { eventsPageQuery } from '../../../src/hogql/events.js';

const uuid = (i: number) => `0190${String(i).padStart(4, '0')}-aaaa-7bbb-8ccc-${String(i).padStart(12, '0')}`;
/** Distinct ids as long as PostHog keeps them (200 characters), with quotes and backslashes to escape. */
const longId = (i: number) => `${i}:'\\`.padEnd(200, 'é');
const range = (n: number, f: (i: number) => string) => Array.from({ length: n }, (_, i) => f(i));
const largest = (text: string, list: string, batches: unknown[][], others: Record<string, unknown> = {}) =>
  Math.max(...batches.map((b) => querySize(text, { ...others, [list]: b })));

describe('querySize', () => {
  it('counts each value as the literal substituted for it, in bytes', () => {
    expect(querySize('a IN {ids} AND b = {b}', { ids: ['x', "y'"], b: 2 })).toBe("a IN ('x', 'y\\'') AND b = 2".length);
    expect(querySize('{s}', { s: 'é' })).toBe(4);
  });
  it('the budget leaves half the limit for the text PostHog adds', () => {
    expect(QUERY_SIZE_BUDGET * 2).toBe(MAX_QUERY_SIZE);
  });
});

describe('batchesThatFit', () => {
  it('cuts by size, count and weight, in order, losing nothing', () => {
    const ids = range(20_000, longId);
    const batches = batchesThatFit('SELECT 1 WHERE x IN {ids}', 'ids', ids, { maxItems: 5_000 });
    expect(batches.flat()).toEqual(ids);
    expect(largest('SELECT 1 WHERE x IN {ids}', 'ids', batches)).toBeLessThanOrEqual(QUERY_SIZE_BUDGET);
    expect(batchesThatFit('{ids}', 'ids', range(10, String), { maxItems: 4 }).map((b) => b.length)).toEqual([4, 4, 2]);
    expect(batchesThatFit('{ids}', 'ids', [3, 3, 5, 1], { weight: (n) => n, maxWeight: 6 })).toEqual([
      [3, 3],
      [5, 1],
    ]);
  });
  it('refuses, before sending, a query that cannot be cut (exit 5)', () => {
    expect(() => assertFits('{ids}', { ids: range(5_000, longId) }, 'reading them', 'use fewer')).toThrow(QueryTooLargeError);
    expect(() => assertFits('{ids}', { ids: range(5_000, longId) }, 'reading them', 'use fewer')).toThrow(/over the 131,072 hogctl sends/);
    expect(new QueryTooLargeError('x').exitCode).toBe(5);
  });
});

describe('the largest query each builder can send is under the budget', () => {
  it('persons duplicates: persons of shared values (the longest key, values of 200 characters)', () => {
    const key = parseKey('lower(trim(properties.`a rather long property name`))');
    const values = range(20_000, longId).map((value) => ({ value, persons: 1 }));
    const text = personsOfValuesQuery(key);
    const batches = batchesThatFit(text, 'values', values, {
      values: (b) => b.map((s) => s.value),
      weight: (s) => s.persons,
      maxWeight: ROWS_A_QUERY,
    });
    expect(
      largest(
        text,
        'values',
        batches.map((b) => b.map((s) => s.value)),
      ),
    ).toBeLessThanOrEqual(QUERY_SIZE_BUDGET);
  });
  it('persons duplicates and persons merge: persons, their distinct ids and their events', () => {
    for (const [name, { text, list }] of Object.entries(LIST_QUERIES)) {
      const items = name === 'persons' || name === 'distinctIds' ? range(20_000, uuid) : range(20_000, longId);
      const batches = batchesThatFit(text, list, items, { maxItems: ROWS_A_QUERY });
      expect(largest(text, list, batches), name).toBeLessThanOrEqual(QUERY_SIZE_BUDGET);
    }
  });
  it('erasures by e-mail: both queries of a batch of the longest addresses (254 characters)', () => {
    const emails = range(5_000, (i) => `${i}@`.padEnd(254, 'x'));
    const batches = emailBatches(emails);
    expect(batches.flat()).toEqual(emails);
    for (const text of [EMAIL_QUERY, DISTINCT_ID_QUERY]) {
      expect(largest(text, 'emails', batches.map(emailValues))).toBeLessThanOrEqual(QUERY_SIZE_BUDGET);
    }
  });
  it('erasure verification and erasure-status: events left', () => {
    const batches = batchesThatFit(EVENTS_LEFT_QUERY, 'ids', range(20_000, longId), { maxItems: 1000 });
    expect(largest(EVENTS_LEFT_QUERY, 'ids', batches)).toBeLessThanOrEqual(QUERY_SIZE_BUDGET);
  });
  it('persons export: a page of events is refused before it is sent when the distinct ids do not fit', () => {
    const fits = { distinctIds: range(300, longId), until: '2026-01-01T00:00:00Z' };
    const page = eventsPageQuery(fits, 50_000, { timestamp: '2025-01-01 00:00:00.000000', uuid: uuid(1) });
    expect(querySize(page.query, page.values)).toBeLessThanOrEqual(QUERY_SIZE_BUDGET);
    expect(() => eventsPageQuery({ ...fits, distinctIds: range(1_000, longId) }, 50_000)).toThrow(QueryTooLargeError);
  });
});
