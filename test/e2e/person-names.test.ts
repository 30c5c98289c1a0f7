// Persons under PostHog's names in every view, and `persons get --email`. The list gives `id` as the
// UUID and retrieve as the integer key (docs/server-contract.md §6.1, §6.3); both give `uuid`, so
// every persons table, record and CSV names a person by `uuid`, and JSON passes `id` through. An
// address is looked up as the erasure looks it up: exact, ignoring the case of ASCII letters.
// The built binary on a pseudo-terminal, for the views a person reads there; the rest is tested in
// this process: test/cli/persons/get.person-names.test.ts.
import { describe, expect, it } from 'vitest';
import { LEE, TWIN_A, TWIN_B, usePersonNamesWorld } from '../cli/persons/names-fixtures.js';
import { startWorld } from './harness.js';
import { runInTerminal, type TerminalSize } from './terminal.js';

const { world, leeId } = usePersonNamesWorld(startWorld);

const at80: TerminalSize = { columns: 80, rows: 40 };
const lines = (output: string) => output.replace(/\r/g, '').replace(/\n$/, '').split('\n');

describe('item 4: a person is named by uuid in every view, id as the server sends it', () => {
  it('persons list and persons get both show the UUID under uuid on a terminal; get shows the integer as id', async () => {
    const list = await runInTerminal(['persons', 'list', '--limit', '3'], world.env, [], 30_000, at80);
    expect(list.code, list.output).toBe(0);
    const shown = lines(list.output);
    expect(
      shown.some((l) => /^uuid +name +distinct_ids/.test(l)),
      list.output,
    ).toBe(true);
    expect(shown.some((l) => /^id\b/.test(l))).toBe(false);
    expect(shown.some((l) => l.startsWith(LEE))).toBe(true);

    const get = await runInTerminal(['persons', 'get', LEE], world.env, [], 30_000, at80);
    expect(get.code, get.output).toBe(0);
    const record = lines(get.output);
    expect(record).toContainEqual(expect.stringMatching(new RegExp(`^uuid: +${LEE}$`)));
    expect(record).toContainEqual(expect.stringMatching(new RegExp(`^id: +${leeId()}$`)));
    for (const line of [...shown, ...record]) expect(line.length, line).toBeLessThanOrEqual(80);
  });
});

describe('item 5: persons get --email, and how the e-mail filters match', () => {
  it('finds the one person with the address, ignoring the case of ASCII letters', async () => {
    const res = await runInTerminal(['persons', 'get', '--email', 'LEE.park@example.NET'], world.env, [], 30_000, at80);
    expect(res.code, res.output).toBe(0);
    expect(lines(res.output)).toContainEqual(expect.stringMatching(new RegExp(`^uuid: +${LEE}$`)));
    expect(res.output).toContain('Lee.Park@Example.net');
  });

  it('lists every person with the address, and says how many', async () => {
    const res = await runInTerminal(['persons', 'get', '--email', 'twin@example.org'], world.env, [], 30_000, at80);
    expect(res.code, res.output).toBe(0);
    const shown = lines(res.output);
    expect(
      shown.some((l) => /^uuid +name/.test(l)),
      res.output,
    ).toBe(true);
    expect(shown.filter((l) => l.startsWith(TWIN_A) || l.startsWith(TWIN_B))).toHaveLength(2);
    expect(res.output).toContain('2 persons have the address twin@example.org');
    for (const line of shown) expect(line.length, line).toBeLessThanOrEqual(80);

    const json = await world.run(['persons', 'get', '--email', 'twin@example.org', '-o', 'json']);
    expect(json.code, json.stderr).toBe(0);
    const people = JSON.parse(json.stdout) as { uuid: string }[];
    expect(people.map((p) => p.uuid).sort()).toEqual([TWIN_A, TWIN_B]);
  });
});
