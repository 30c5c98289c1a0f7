// `hogctl persons unset-prop` (`set-prop` sets what it removes) run in this process (test/cli/harness.ts) against a
// sandbox of its own. Each test asserts the request the server received, the state afterwards,
// and its error path.
import { describe, expect, it } from 'vitest';
import { PERSONS_PATH, until, usePersonsWorld } from './fixtures.js';

const { world, fresh, mark } = usePersonsWorld();
const base = PERSONS_PATH;

describe('persons set-prop and unset-prop', () => {
  it('unset-prop POSTs {"$unset": key} to delete_property and the property goes', async () => {
    const person = fresh();
    await world.run(['persons', 'set-prop', String(person.id), '$os', 'BeOS']);
    await until(() => world.sandbox.store.getById(person.id)!.properties.$os === 'BeOS', 'the $set');
    const sent = mark();
    const res = await world.run(['persons', 'unset-prop', person.uuid, '$os']);
    expect(res.code).toBe(0);
    expect(res.stderr).toContain(`✔ removal of $os from person ${person.uuid} accepted`);
    const [req] = sent();
    expect(req.path).toBe(`${base}${person.uuid}/delete_property/`);
    expect(JSON.parse(req.body)).toEqual({ $unset: '$os' });
    await until(() => !('$os' in world.sandbox.store.getById(person.id)!.properties), 'the $unset');
    expect(world.sandbox.activity.find(1, 'Person', [String(person.id)])[0].activity).toBe('delete_property');
  });

  it("unset-prop turns the server's bare 500 for an unknown person into exit 3, and an empty key is 2", async () => {
    const res = await world.run(['persons', 'unset-prop', '99999999', 'plan']);
    expect(res.code).toBe(3);
    expect(res.stderr).toContain('person 99999999 not found in project 1');
    const empty = await world.run(['persons', 'unset-prop', '1', '']);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('single quotes');
  });
});
