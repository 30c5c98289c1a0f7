// `hogctl persons split` run in this process (test/cli/harness.ts) against a
// sandbox of its own. Each test asserts the request the server received, the state afterwards,
// and its error path.
import { describe, expect, it } from 'vitest';
import { uuidFromDistinctId } from '@hogctl/sandbox';
import { PERSONS_PATH, until, usePersonsWorld } from './fixtures.js';

const { world, fresh, mark } = usePersonsWorld();
const base = PERSONS_PATH;

describe('persons split', () => {
  it('--distinct-ids POSTs distinct_ids_to_split and the ids move onto new persons', async () => {
    const person = fresh(2);
    const [keep, move] = person.distinctIds;
    const sent = mark();
    const res = await world.run(['persons', 'split', String(person.id), '--distinct-ids', move, '--yes']);
    expect(res.code).toBe(0);
    expect(res.stderr).toContain(`✔ split of person ${person.id} accepted`);
    const reqs = sent();
    expect(reqs).toHaveLength(1);
    expect(reqs[0].path).toBe(`${base}${person.id}/split/`);
    expect(JSON.parse(reqs[0].body)).toEqual({ distinct_ids_to_split: [move] });
    await until(() => world.sandbox.store.getByDistinctId(move)?.id !== person.id, 'the split');
    expect(world.sandbox.store.getByDistinctId(move)!.uuid).toBe(uuidFromDistinctId(1, move));
    expect(world.sandbox.store.getByDistinctId(keep)!.id).toBe(person.id);
  });

  it('--main-distinct-id is checked against the person first, then sent', async () => {
    const person = fresh(3);
    const main = person.distinctIds[1];
    const sent = mark();
    const bad = await world.run(['persons', 'split', String(person.id), '--main-distinct-id', 'not-hers', '-y']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('is not a distinct id of person');
    expect(sent().map((r) => r.method)).toEqual(['GET']);
    const res = await world.run(['persons', 'split', String(person.id), '--main-distinct-id', main, '-y', '-o', 'json']);
    expect(res.code).toBe(0);
    expect(JSON.parse(sent().at(-1)!.body)).toEqual({ main_distinct_id: main });
    await until(() => world.sandbox.store.getById(person.id)!.distinctIds.length === 1, 'the split');
    expect(world.sandbox.store.getById(person.id)!.distinctIds).toEqual([main]);
  });

  it('a distinct id not on the person is rejected by the server (5); bad flags (2) and no --yes (2) send nothing', async () => {
    const person = fresh(2);
    const res = await world.run(['persons', 'split', String(person.id), '--distinct-ids', `${person.distinctIds[0]},someone-else`, '-y']);
    expect(res.code).toBe(5);
    expect(res.stderr).toContain("not on this person: ['someone-else']");
    expect(res.stderr).toContain('distinct_ids_to_split');
    const sent = mark();
    for (const args of [
      [],
      ['--distinct-ids', 'a,,b', '-y'],
      ['--distinct-ids', 'a', '--main-distinct-id', 'b', '-y'],
      ['--distinct-ids', 'a'],
    ]) {
      expect((await world.run(['persons', 'split', String(person.id), ...args])).code).toBe(2);
    }
    expect(sent()).toEqual([]);
    expect(world.sandbox.store.getById(person.id)!.distinctIds).toEqual(person.distinctIds);
  });
});
