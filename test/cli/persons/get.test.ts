// `hogctl persons get` in this process (test/cli/harness.ts) against the sandbox.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type World } from '../harness.js';

let world: World;

beforeAll(async () => {
  world = await startWorld({ persons: 2500, seed: 7 });
});
afterAll(async () => {
  await world.close();
});

describe('persons get', () => {
  it('gets by UUID and by integer id, with the retrieve shape', async () => {
    const person = world.sandbox.store.list({}, 0, 1)[0]!;
    const byUuid = await world.run(['persons', 'get', person.uuid, '-o', 'json']);
    expect(byUuid.code).toBe(0);
    const body = JSON.parse(byUuid.stdout);
    expect(body.uuid).toBe(person.uuid);
    expect(typeof body.id).toBe('number');
    const byId = await world.run(['persons', 'get', String(body.id), '-o', 'json']);
    expect(JSON.parse(byId.stdout).uuid).toBe(person.uuid);
  });

  it('gets by distinct id through the list filter', async () => {
    const before = world.sandbox.requests.length;
    const res = await world.run(['persons', 'get', '--distinct-id', 'user-5', '-o', 'json']);
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout).distinct_ids).toContain('user-5');
    const list = world.sandbox.requests.slice(before).find((r) => r.path.endsWith('/persons/'))!;
    expect(list.query.distinct_id).toBe('user-5');
  });
});
