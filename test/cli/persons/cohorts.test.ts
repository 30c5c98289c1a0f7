// `hogctl persons cohorts` in this process (test/cli/harness.ts) against the sandbox. Cohorts works
// with a key; the other legacy lists refuse keys on current servers, so with a key each must send
// the right request and then say plainly that it needs a signed-in session (exit 4).
import { describe, expect, it } from 'vitest';
import { cohortsOf } from '@hogctl/sandbox';
import { P, useLegacyWorld } from './legacy-fixtures.js';

const { world, since } = useLegacyWorld();

describe('persons cohorts', () => {
  it('lists the cohorts holding the person, from GET /persons/cohorts/?person_id=', async () => {
    const person = [...world.sandbox.store].find((p) => p.properties.plan === 'enterprise' && p.properties.country === 'DE')!;
    const before = world.sandbox.requests.length;
    const res = await world.run(['persons', 'cohorts', String(person.id), '-o', 'json']);
    expect(res.code).toBe(0);
    const [req] = since(before);
    expect(req.method).toBe('GET');
    expect(req.path).toBe(`${P}/cohorts/`);
    expect(req.query).toEqual({ person_id: String(person.id) });
    const cohorts = cohortsOf(1);
    const count = (name: string) => [...world.sandbox.store].filter(cohorts.find((c) => c.name === name)!.matches).length;
    const expected = cohorts.filter((c) => !c.deleted && c.matches(person)).map((c) => ({ id: c.id, name: c.name, count: count(c.name) }));
    expect(expected.map((c) => c.name)).toEqual(expect.arrayContaining(['Paying customers', 'Enterprise accounts', 'Germany']));
    expect(JSON.parse(res.stdout)).toEqual(expected);
  });

  it('prints id, name and count as plain lines, and notes a person in no cohort', async () => {
    const res = await world.run(['persons', 'cohorts', [...world.sandbox.store].find((p) => p.properties.plan === 'team')!.uuid]);
    expect(res.code).toBe(0);
    expect(res.stdout.split('\n')[0]).toMatch(/^1\tPaying customers\t\d+$/);
    const loner = [...world.sandbox.store].find(
      (p) => p.isIdentified && p.properties.plan === 'free' && p.properties.country !== 'DE' && !((p.properties.sessions as number) >= 250),
    )!;
    const none = await world.run(['persons', 'cohorts', String(loner.id)]);
    expect(none.code).toBe(0);
    expect(none.stdout).toBe('');
    expect(none.stderr).toContain(`person ${loner.id} is in no cohort of your current project`);
  });

  it('an unknown person: the server fails with 500, hogctl checks the person and exits 3', async () => {
    const before = world.sandbox.requests.length;
    const res = await world.run(['persons', 'cohorts', '999999']);
    expect(res.code).toBe(3);
    expect(res.stderr).toContain('person 999999 not found in project 1');
    expect(since(before).map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([`GET ${P}/cohorts/ 500`, `GET ${P}/999999/ 404`]);
  });

  it('a key without cohort:read is refused (exit 4); a bad id is a usage error sent nowhere (exit 2)', async () => {
    const key = world.sandbox.addKey(['person:read']);
    const denied = await world.run(['persons', 'cohorts', '1'], { env: { HOGCTL_API_KEY: key } });
    expect(denied.code).toBe(4);
    expect(denied.stderr).toContain("API key missing required scope 'cohort:read'");
    const before = world.sandbox.requests.length;
    const bad = await world.run(['persons', 'cohorts', 'user-1']);
    expect(bad.code).toBe(2);
    expect(since(before)).toHaveLength(0);
  });

  it('shows the {message, detail} body of a user without a current project (exit 5)', async () => {
    const saved = world.sandbox.world.user.currentTeamId;
    world.sandbox.world.user.currentTeamId = 0;
    try {
      const res = await world.run(['persons', 'cohorts', '1']);
      expect(res.code).toBe(5);
      expect(res.stderr).toContain(
        `GET ${P}/cohorts/ failed with 400: Could not retrieve team: Could not validate team associated with user`,
      );
      expect(res.stderr).toContain("your user's current project");
    } finally {
      world.sandbox.world.user.currentTeamId = saved;
    }
  });
});
