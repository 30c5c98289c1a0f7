// `hogctl persons set-prop` run in this process (test/cli/harness.ts) against a
// sandbox of its own. Each test asserts the request the server received, the state afterwards,
// and its error path.
import { describe, expect, it } from 'vitest';
import { PERSONS_PATH, until, usePersonsWorld } from './fixtures.js';

const { world, fresh, mark, readOnlyKey } = usePersonsWorld();
const base = PERSONS_PATH;

describe('persons set-prop and unset-prop', () => {
  it('set-prop POSTs {key, value} to update_property, $-keys included, and the value lands', async () => {
    const person = fresh();
    const sent = mark();
    const res = await world.run(['persons', 'set-prop', String(person.id), '$browser', '{"name": "Lynx", "v": 2}', '-o', 'json']);
    expect(res.code).toBe(0);
    const [req] = sent();
    expect(req.method).toBe('POST');
    expect(req.path).toBe(`${base}${person.id}/update_property/`);
    expect(JSON.parse(req.body)).toEqual({ key: '$browser', value: { name: 'Lynx', v: 2 } });
    expect(JSON.parse(res.stdout)).toMatchObject({ person: String(person.id), key: '$browser', status: 202 });
    await until(() => world.sandbox.store.getById(person.id)!.properties.$browser !== person.properties.$browser, 'the $set');
    expect(world.sandbox.store.getById(person.id)!.properties.$browser).toEqual({ name: 'Lynx', v: 2 });

    const negative = await world.run(['persons', 'set-prop', String(person.id), 'balance', '-5']);
    expect(negative.code).toBe(0);
    expect(JSON.parse(sent().at(-1)!.body)).toEqual({ key: 'balance', value: -5 });
  });

  it('set-prop exits 4 with a read-only key and 3 for an unknown person', async () => {
    const person = fresh();
    const refused = await world.run(['persons', 'set-prop', String(person.id), 'plan', 'team'], { env: { HOGCTL_API_KEY: readOnlyKey() } });
    expect(refused.code).toBe(4);
    const missing = await world.run(['persons', 'set-prop', '99999999', 'plan', 'team']);
    expect(missing.code).toBe(3);
  });
});
