// Reliability: `persons update` and `persons delete` under every fault the sandbox injects. The
// seed of each run makes the first attempt meet the fault; what follows is left to the dice. Each
// run either succeeds, and the sandbox's state shows the change, or exits with its documented
// code and a clear error naming what happened; and running the command again converges.
//
// PATCH is not idempotent to the client, so `update` is not retried after a 5xx, a dropped
// connection, a timeout or a cut answer; a delete (bulk_delete of one id) is, and is retried.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type World } from '../cli/harness.js';
import type { Person } from '@hogctl/sandbox';
import { errorLine, eventually, expectCleanFailure, expectNoKey, FAULT_CASES, seedHittingFirst } from './helpers.js';

let world: World;
let next = 0;
beforeAll(async () => {
  world = await startWorld({ persons: 60, seed: 4, applyDelayMs: 0 });
});
afterAll(async () => {
  await world.close();
});

/** A person no other test in this file touches. */
function freshPerson(): Person {
  const person = world.sandbox.store.list({}, next++, 1)[0];
  if (!person) throw new Error('the sandbox ran out of persons for this file');
  return person;
}

const personPath = (p: Person) => `/api/projects/${world.sandbox.projectId}/persons/${p.uuid}/`;

const propertyOf = (p: Person, key: string) => world.sandbox.store.getByUuid(p.uuid)?.properties[key];

describe.each(FAULT_CASES)('under $kind', (c) => {
  it('persons update applies the change, or fails naming what happened and a rerun applies it', async () => {
    const person = freshPerson();
    const spec = `${c.entry(0.5)},method=PATCH`;
    const seed = seedHittingFirst(spec, c.kind, 'PATCH', personPath(person));
    const args = ['persons', 'update', person.uuid, '--set', `reliability=after-${c.kind}`, '--timeout', '1'];
    const res = await world.withFaults(`${spec},seed=${seed}`, () => world.run(args));
    expectNoKey(world, res);
    expect([0, c.code]).toContain(res.code);
    if (res.code !== 0) {
      expectCleanFailure(world, res);
      expect(errorLine(res)).toMatch(c.says);
      expect(errorLine(res)).toContain(`person ${person.uuid}`);
      const again = await world.run(args);
      expect(again.code).toBe(0);
    }
    await eventually(() => propertyOf(person, 'reliability') === `after-${c.kind}`, `the update of ${person.uuid} applied`);
  });

  it('persons delete deletes the person, or fails naming what happened and a rerun deletes it', async () => {
    const person = freshPerson();
    // One person is deleted through bulk_delete (docs/server-contract.md §6.5).
    const spec = `${c.entry(0.5)},method=POST,path=bulk_delete`;
    const seed = seedHittingFirst(spec, c.kind, 'POST', '/api/projects/1/persons/bulk_delete/');
    const args = ['persons', 'delete', person.uuid, '--yes', '--timeout', '1'];
    const res = await world.withFaults(`${spec},seed=${seed}`, () => world.run(args));
    expectNoKey(world, res);
    // 3: a retry found the person already gone, deleted by an attempt whose answer was lost.
    expect([0, 3, c.code]).toContain(res.code);
    if (res.code === 3) expect(errorLine(res)).toContain(`person ${person.uuid} not found`);
    if (res.code === c.code) {
      expectCleanFailure(world, res);
      expect(errorLine(res)).toMatch(c.says);
      expect(errorLine(res)).toContain(`person ${person.uuid}`);
      const again = await world.run(args);
      // The lost attempt may have deleted it: then the rerun finds nothing to delete.
      expect([0, 3]).toContain(again.code);
    }
    expect(world.sandbox.store.getByUuid(person.uuid)).toBeUndefined();
  });
});

// Every attempt meets the fault: the retries run out, after 15 s of backoff on the real clock.
// One case against the built binary here; the others (throttled, dropped, too slow) run in-process
// on virtual time: test/reliability/retries-spent.test.ts.
describe('when every retry meets the fault', () => {
  async function spent(
    spec: string,
    command: (p: Person) => string[],
    check: (w: World, p: Person, res: Awaited<ReturnType<World['run']>>) => Promise<void>,
  ) {
    const own = await startWorld({ persons: 2, seed: 9, applyDelayMs: 0 });
    try {
      const person = own.sandbox.store.list({}, 0, 1)[0]!;
      own.sandbox.setFaults(spec);
      const res = await own.run(command(person));
      own.sandbox.setFaults();
      expectCleanFailure(own, res);
      expect(errorLine(res)).toMatch(/\(after 6 attempts\)$/);
      await check(own, person, res);
    } finally {
      await own.close();
    }
  }
  const update = (p: Person) => ['persons', 'update', p.uuid, '--set', 'plan=spent', '--timeout', '1'];

  it('persons update, database unavailable: exit 7 saying it may not have been applied; a rerun applies it', async () => {
    await spent('503=1', update, async (w, p, res) => {
      expect(res.code).toBe(7);
      expect(errorLine(res)).toMatch(
        new RegExp(`^error: the update of person ${p.uuid} may or may not have been applied: .*failed with 503`),
      );
      expect((await w.run(update(p))).code).toBe(0);
      await eventually(() => w.sandbox.store.getByUuid(p.uuid)!.properties.plan === 'spent', 'the rerun applied');
    });
  });
});

describe('failures a user must be able to read', () => {
  it('a --timeout shorter than a slow answer exits 7 naming the timeout, and says the update may have been applied', async () => {
    const person = freshPerson();
    const res = await world.withFaults('slow=1@2500,method=PATCH', () =>
      world.run(['persons', 'update', person.uuid, '--set', 'late=yes', '--timeout', '1']),
    );
    expect(res.code).toBe(7);
    expectCleanFailure(world, res);
    expect(errorLine(res)).toMatch(/timed out after 1s/);
    expect(res.stderr).toMatch(/--timeout/);
    expect(res.stderr).toMatch(/may (or may not )?have been applied/);
    // The server did it after all, as the message warned.
    await eventually(() => propertyOf(person, 'late') === 'yes', 'the slow update applied');
  });

  it('an HTML error page from a proxy shows its title, never its markup', async () => {
    const person = freshPerson();
    for (const spec of ['html=1', '502=1']) {
      const res = await world.withFaults(`${spec},method=PATCH`, () => world.run(['persons', 'update', person.uuid, '--set', 'x=1']));
      expect(res.code).toBe(7);
      expectCleanFailure(world, res);
      expect(errorLine(res)).toMatch(
        spec === 'html=1'
          ? /failed with 502: Bad gateway \| sandbox edge \(an HTML page, probably from a proxy\)/
          : /failed with 502: 502 Bad Gateway \(an HTML page/,
      );
      expect(res.stderr).not.toMatch(/<[a-z!/]/i);
    }
  });
});
