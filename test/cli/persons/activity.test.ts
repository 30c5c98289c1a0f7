// `hogctl persons activity` (written by `set-prop` and `delete`) run in this process (test/cli/harness.ts) against a
// sandbox of its own. Each test asserts the request the server received, the state afterwards,
// and its error path.
import { describe, expect, it } from 'vitest';
import { PERSONS_PATH, usePersonsWorld } from './fixtures.js';

const { world, fresh, mark } = usePersonsWorld();
const base = PERSONS_PATH;

describe('persons activity', () => {
  it("shows one person's entries written by the writes, paging by page", async () => {
    const person = fresh();
    for (let i = 0; i < 3; i++) await world.run(['persons', 'set-prop', String(person.id), 'n', String(i)]);
    const sent = mark();
    const res = await world.run(['persons', 'activity', String(person.id), '--page-size', '2', '-o', 'ndjson']);
    expect(res.code).toBe(0);
    const rows = res.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rows).toHaveLength(3);
    expect(rows.every((r) => r.activity === 'updated' && r.item_id === String(person.id))).toBe(true);
    expect(rows[0].changes).toBe('changed properties');
    const reqs = sent();
    expect(reqs.map((r) => [r.path, r.query])).toEqual([
      [`${base}${person.id}/activity/`, { limit: '2' }],
      [`${base}${person.id}/activity/`, { limit: '2', page: '2' }],
    ]);
  });

  it('without an id lists the project, deleted persons included, with readable columns', async () => {
    const person = fresh();
    await world.run(['persons', 'delete', String(person.id), '-y']);
    const res = await world.run(['persons', 'activity', '--limit', '1']);
    expect(res.code).toBe(0);
    const [line] = res.stdout.trim().split('\n');
    const [createdAt, activity, email, itemId] = line.split('\t');
    expect(createdAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect([activity, email, itemId]).toEqual(['deleted', 'sandbox@example.com', String(person.id)]);
  });

  it('exits 3 for an unknown person and 4 without activity_log:read', async () => {
    const missing = await world.run(['persons', 'activity', '99999999']);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain('person 99999999 not found');
    const refused = await world.run(['persons', 'activity'], { env: { HOGCTL_API_KEY: world.sandbox.addKey(['person:write']) } });
    expect(refused.code).toBe(4);
    expect(refused.stderr).toContain("API key missing required scope 'activity_log:read'");
  });
});
