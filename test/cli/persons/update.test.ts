// `hogctl persons update` run in this process (test/cli/harness.ts) against a
// sandbox of its own. Each test asserts the request the server received, the state afterwards,
// and its error path.
import { describe, expect, it } from 'vitest';
import { PERSONS_PATH, until, usePersonsWorld } from './fixtures.js';

const { world, fresh, mark, readOnlyKey } = usePersonsWorld();
const base = PERSONS_PATH;

describe('persons update', () => {
  it('PATCHes {properties} with JSON-parsed --set values and the change lands after the delay', async () => {
    const person = fresh();
    const sent = mark();
    const res = await world.run([
      'persons',
      'update',
      person.uuid,
      '--properties',
      '{"company": {"name": "Acme"}, "plan": "free"}',
      '--set',
      'plan=enterprise',
      '--set',
      'seats=25',
      '--set',
      'vip=true',
      '--set',
      'zip=01234',
      '--set',
      '$browser=Lynx',
    ]);
    expect(res.code).toBe(0);
    expect(res.stdout).toBe('');
    expect(res.stderr).toContain(`✔ update of person ${person.uuid} accepted`);
    // HTTP statuses belong to --debug and -o json, not to the line a person reads.
    expect(res.stderr).not.toMatch(/✔ .*\(\d{3}\)/);
    expect(res.stderr).toContain('asynchronously');
    const [req] = sent();
    expect(req.method).toBe('PATCH');
    expect(req.path).toBe(`${base}${person.uuid}/`);
    expect(req.query).toEqual({});
    const properties = { company: { name: 'Acme' }, plan: 'enterprise', seats: 25, vip: true, zip: '01234', $browser: 'Lynx' };
    expect(JSON.parse(req.body)).toEqual({ properties });
    await until(() => world.sandbox.store.getById(person.id)!.properties.seats === 25, 'the update');
    expect(world.sandbox.store.getById(person.id)!.properties).toEqual({ ...person.properties, ...properties });
  });

  it('prints a record with -o json', async () => {
    const person = fresh();
    const res = await world.run(['persons', 'update', String(person.id), '--set', 'plan=team', '-o', 'json']);
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toEqual({ person: String(person.id), properties: { plan: 'team' }, status: 202 });
  });

  it('exits 3 for an unknown person, 4 for a key without person:write, 2 for bad input with nothing sent', async () => {
    const missing = await world.run(['persons', 'update', '99999999', '--set', 'plan=team']);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain('person 99999999 not found in project 1');

    const person = fresh();
    const refused = await world.run(['persons', 'update', String(person.id), '--set', 'plan=team'], {
      env: { HOGCTL_API_KEY: readOnlyKey() },
    });
    expect(refused.code).toBe(4);
    expect(refused.stderr).toContain("API key missing required scope 'person:write'");

    const sent = mark();
    for (const args of [['--set', 'noequals'], ['--properties', '[1]'], ['--properties', '{oops'], []]) {
      const bad = await world.run(['persons', 'update', String(person.id), ...args]);
      expect(bad.code).toBe(2);
    }
    expect(sent()).toEqual([]);
  });
});
