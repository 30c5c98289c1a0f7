// End-to-end, on an 80-column terminal: a person is named one way in every message
// (ARCHITECTURE.md §3): by UUID, with the name the user gave in parentheses when they gave
// another (a distinct id, an integer id), never by the UUID in one line and the distinct id or
// integer in the next.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type World } from './harness.js';
import { runInTerminal } from './terminal.js';

const SCREEN = { columns: 80, rows: 24 };
const joined = (output: string) =>
  output
    .split(/\r?\n/)
    .map((l) => l.split('\r').at(-1)!)
    .join(' ')
    .replace(/ +/g, ' ');

let world: World;
beforeAll(async () => {
  world = await startWorld({ persons: 20 });
});
afterAll(() => world.close());

describe('one name for a person', () => {
  it('by distinct id: the UUID, then the distinct id given, in the question and the success line alike', async () => {
    const person = world.sandbox.store.list({}, 3, 1)[0];
    const distinctId = person.distinctIds[0];
    const name = `person ${person.uuid} (distinct id ${distinctId})`;
    const set = await runInTerminal(['persons', 'set-prop', '--distinct-id', distinctId, 'plan', 'pro'], world.env, [], 30_000, SCREEN);
    expect(set.code, set.output).toBe(0);
    expect(joined(set.output)).toContain(`plan = "pro" on ${name} accepted`);
    const events = await runInTerminal(
      ['persons', 'delete-events', '--distinct-id', distinctId],
      world.env,
      [{ when: '(y/N)', send: 'y\r' }],
      30_000,
      SCREEN,
    );
    expect(events.code, events.output).toBe(0);
    const said = joined(events.output);
    expect(said).toContain(`About to delete all events of ${name}`);
    expect(said).toContain(`queued the deletion of the events of ${name}`);
  });

  it('by integer id: once the person is read (for the question), the UUID, then the id given', async () => {
    const person = world.sandbox.store.list({}, 5, 1)[0];
    const res = await runInTerminal(
      ['persons', 'delete-recordings', String(person.id)],
      world.env,
      [{ when: '(y/N)', send: 'y\r' }],
      30_000,
      SCREEN,
    );
    expect(res.code, res.output).toBe(0);
    expect(joined(res.output)).toContain(`started the deletion of the recordings of person ${person.uuid} (id ${person.id})`);
  });
});
