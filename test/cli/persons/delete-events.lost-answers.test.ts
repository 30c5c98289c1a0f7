// Reliability, in this process on virtual time (test/cli/virtual-harness.ts): `persons delete-events`
// and `delete-recordings` when every answer is lost after the server did the work (a dropped
// connection, a proxy's 504). The request is retried (about 15 s of backoff on the real clock),
// and the error says the deletion may have been made and how to check. Against the built binary:
// test/reliability/lost-answers.test.ts ("persons writes whose answer is lost", the same faults
// and the same message for set-prop, unset-prop, update and split).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Person } from '@hogctl/sandbox';
import { errorLine, eventually, expectCleanFailure } from '../../reliability/helpers.js';
import { startVirtualWorld, type VirtualRun, type VirtualWorld } from '../virtual-harness.js';

let world: VirtualWorld;
let next = 0;
beforeAll(async () => {
  world = await startVirtualWorld({ persons: 40, seed: 5, applyDelayMs: 0 });
});
afterAll(() => world.close());

function freshPerson(): Person {
  const person = world.sandbox.store.list({}, next++, 1)[0];
  if (!person) throw new Error('the sandbox ran out of persons for this file');
  return person;
}

const LOST = ['drop-after', '504-after'] as const;

async function underFault(kind: (typeof LOST)[number], filter: string, args: string[]): Promise<VirtualRun> {
  world.sandbox.setFaults(`${kind}=1,${filter}`);
  try {
    return await world.run(args);
  } finally {
    world.sandbox.setFaults();
  }
}

/** The error of a change that was made but not confirmed: exit 7, what may have happened, how to check. */
function expectUnconfirmed(res: VirtualRun, change: RegExp, check: string): void {
  expect(res.code).toBe(7);
  expectCleanFailure(world, res);
  expect(errorLine(res)).toMatch(change);
  expect(errorLine(res)).toContain('may or may not have been applied');
  expect(res.stderr).toContain(check);
}

describe.each(LOST)('persons deletions of data whose answer is lost (%s)', (kind) => {
  it('delete-events: the deletion was queued; the error says it may have been and how to check', async () => {
    const person = freshPerson();
    const res = await underFault(kind, 'path=bulk_delete', ['persons', 'delete-events', person.uuid, '--yes']);
    expectUnconfirmed(res, new RegExp(`the deletion of the events of person ${person.uuid}`), 'hogctl persons deletion-status');
    await eventually(() => world.sandbox.deletions.eventDeletions(1).some((d) => d.key === person.uuid), 'the event deletion was queued');
  });

  it('delete-recordings: the deletion was started; the error says it may have been', async () => {
    const person = freshPerson();
    const res = await underFault(kind, 'path=bulk_delete', ['persons', 'delete-recordings', person.uuid, '--yes']);
    expectUnconfirmed(res, new RegExp(`the deletion of the recordings of person ${person.uuid}`), 'run the command again');
    await eventually(() => world.sandbox.deletions.recordings.some((d) => d.personUuid === person.uuid), 'the recordings deletion started');
  });
});
