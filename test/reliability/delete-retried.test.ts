// Reliability: `persons delete` whose first answer is lost after the server deleted the person (a
// proxy closes the connection, or a gateway answers 504 while the app finishes). The client retries
// the bulk_delete, which then finds nobody (persons_found 0); on a server without bulk_delete it
// retries the DELETE, which a deleted person answers with 404 (the server's own
// test_delete_person does exactly that). Before, the user was told "not found", exit 3; the truth
// is that the person is gone and the lost attempt most likely deleted it: exit 0.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FaultInjector, parseFaultSpec } from '@hogctl/sandbox';
import { startWorld, type World } from '../cli/harness.js';

let world: World;
let next = 0;
beforeAll(async () => {
  world = await startWorld({ persons: 20, seed: 4 });
});
afterAll(() => world.close());

/** A seed under which the first DELETE meets `kind` and the second (the retry) gets through. */
function seedForFirstOnly(kind: string, method: string, path: string): number {
  for (let seed = 1; seed < 10_000; seed++) {
    const injector = new FaultInjector(parseFaultSpec(`${kind}=0.5,seed=${seed}`, 0));
    if (injector.decide(method, path)?.kind === kind && injector.decide(method, path) === null) return seed;
  }
  throw new Error(`no seed gives ${kind} then nothing`);
}

const CASES = [
  { kind: 'drop-after', server: 'summary' },
  { kind: '504-after', server: 'summary' },
  { kind: 'drop-after', server: 'absent' },
  { kind: '504-after', server: 'absent' },
] as const;

describe.each(CASES)('the first answer lost by $kind (bulk_delete: $server)', ({ kind, server }) => {
  it('says the person is gone and the earlier attempt most likely deleted it, exit 0', async () => {
    const person = world.sandbox.store.list({}, next++, 1)[0]!;
    const [method, path] =
      server === 'absent' ? ['DELETE', `/api/projects/1/persons/${person.uuid}/`] : ['POST', '/api/projects/1/persons/bulk_delete/'];
    world.sandbox.setFaults(`${kind}=0.5,seed=${seedForFirstOnly(kind, method, path)},method=${method}`);
    world.sandbox.setBulkDeleteResponse(server);
    try {
      const res = await world.run(['persons', 'delete', person.uuid, '--yes', '-o', 'json']);
      expect(res.stderr).toMatch(
        new RegExp(
          `person ${person.uuid} is gone: an earlier attempt's answer was lost, and the retry found no person, so that attempt most likely deleted it`,
        ),
      );
      expect(res.stderr).toMatch(/hogctl persons get .* \(not found means deleted\)/);
      expect(res.stderr).not.toMatch(/error:|not found in project/);
      expect(JSON.parse(res.stdout)).toMatchObject({ person: person.uuid, deleted: true, status: 'gone' });
      expect(res.code).toBe(0);
      expect(world.sandbox.store.getByUuid(person.uuid)).toBeUndefined();
    } finally {
      world.sandbox.setFaults();
      world.sandbox.setBulkDeleteResponse('summary');
    }
  });
});

describe('a plain 404 with no lost attempt before it', () => {
  it('is still "not found", exit 3', async () => {
    const res = await world.run(['persons', 'delete', '01900000-aaaa-7bbb-8ccc-0000000000ff', '--yes']);
    expect(res.code).toBe(3);
    expect(res.stderr).toMatch(/^error: person 01900000-aaaa-7bbb-8ccc-0000000000ff not found in project 1$/m);
  });
});
