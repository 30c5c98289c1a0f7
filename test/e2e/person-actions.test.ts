// The built binary on a pseudo-terminal: the questions the person verbs that change things ask
// before they act, and what an answer does. The same verbs off a terminal are tested in this
// process, one file a verb, in test/cli/persons/.
import { describe, expect, it } from 'vitest';
import { PERSONS_PATH, usePersonsWorld } from '../cli/persons/fixtures.js';
import { startWorld } from './harness.js';
import { runInTerminal } from './terminal.js';

const { world, fresh, mark } = usePersonsWorld(undefined, startWorld);
const base = PERSONS_PATH;

describe('persons delete', () => {
  it('on a terminal, shows the person and where, and a "no" cancels (130) with nothing deleted', async () => {
    const person = fresh(2);
    const sent = mark();
    const res = await runInTerminal(['persons', 'delete', person.uuid, '--delete-events'], world.env, [
      { when: 'Delete this person?', send: 'n\r' },
    ]);
    expect(res.code).toBe(130);
    expect(res.output).toContain(`About to delete person ${person.uuid}`);
    expect(res.output).toContain(`(id ${person.id}, uuid ${person.uuid})`);
    expect(res.output).toContain(person.distinctIds[0]);
    expect(res.output).toContain(`host          ${world.sandbox.url}`);
    expect(res.output).toContain('project       1');
    expect(res.output).toContain('all their events');
    expect(res.output).toContain('cancelled; nothing was changed');
    expect(sent().map((r) => r.method)).toEqual(['GET']);
    expect(world.sandbox.store.getById(person.id)).toBeDefined();
  });

  it('on a terminal, a "yes" deletes, reading the person once: the GET the question shows, then the POST', async () => {
    const person = fresh();
    const sent = mark();
    const res = await runInTerminal(['persons', 'delete', String(person.id)], world.env, [{ when: 'Delete this person?', send: 'y\r' }]);
    expect(res.code).toBe(0);
    expect(res.output).toContain(`✔ deleted person ${person.uuid} (id ${person.id})`);
    expect(world.sandbox.store.getById(person.id)).toBeUndefined();
    expect(sent().map((r) => `${r.method} ${r.path}`)).toEqual([`GET ${base}${person.id}/`, `POST ${base}bulk_delete/`]);
    expect(JSON.parse(sent()[1].body).ids).toEqual([person.uuid]);
  });

  it('on a terminal with --distinct-id, the lookup is the one read: the question shows the person it found', async () => {
    const person = fresh(2);
    const sent = mark();
    const res = await runInTerminal(['persons', 'delete-events', '--distinct-id', person.distinctIds[0]], world.env, [
      { when: 'Delete all events of this person?', send: 'y\r' },
    ]);
    expect(res.code).toBe(0);
    expect(res.output).toContain(`uuid ${person.uuid}`);
    expect(res.output).toContain(person.distinctIds[1]);
    expect(sent().map((r) => `${r.method} ${r.path}`)).toEqual([`GET ${base}`, `POST ${base}bulk_delete/`]);
  });
});
