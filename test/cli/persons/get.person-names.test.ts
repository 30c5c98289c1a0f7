// Persons under PostHog's names in every view, and `persons get --email`. The list gives `id` as the
// UUID and retrieve as the integer key (docs/server-contract.md §6.1, §6.3); both give `uuid`, so
// every persons table, record and CSV names a person by `uuid`, and JSON passes `id` through. An
// address is looked up as the erasure looks it up: exact, ignoring the case of ASCII letters.
// In this process (test/cli/harness.ts); the views on a terminal: test/e2e/person-names.test.ts.
import { describe, expect, it } from 'vitest';
import { LEE, usePersonNamesWorld } from './names-fixtures.js';

const { world, leeId } = usePersonNamesWorld();

describe('item 4: a person is named by uuid in every view, id as the server sends it', () => {
  it('CSV and --fields use the same names: uuid is the UUID in list and get alike', async () => {
    const csv = await world.run(['persons', 'list', '--limit', '1', '-o', 'csv']);
    expect(csv.code, csv.stderr).toBe(0);
    expect(csv.stdout.split('\n')[0]).toBe('uuid,name,distinct_ids,created_at');
    expect(csv.stdout.split('\n')[1]).toMatch(new RegExp(`^${LEE},`));

    const listed = await world.run(['persons', 'list', '--limit', '1', '--fields', 'uuid', '-o', 'csv']);
    const got = await world.run(['persons', 'get', LEE, '--fields', 'uuid', '-o', 'csv']);
    expect(listed.stdout).toBe(`uuid\n${LEE}\n`);
    expect(got.stdout).toBe(listed.stdout);
  });

  it("JSON passes the server's fields through: the list's id is the UUID, get's the integer; both carry uuid", async () => {
    const listed = JSON.parse((await world.run(['persons', 'list', '--limit', '1', '-o', 'json'])).stdout);
    expect(listed[0]).toMatchObject({ id: LEE, uuid: LEE });
    const got = JSON.parse((await world.run(['persons', 'get', LEE, '-o', 'json'])).stdout);
    expect(got).toMatchObject({ id: leeId(), uuid: LEE });
  });

  it('the persons behind an insight carry uuid as well, and list under it', async () => {
    const args = ['persons', 'trends', '--events', '[{"id": "$pageview"}]', '--day', '2031-01-01'];
    const json = await world.run([...args, '-o', 'json']);
    expect(json.code, json.stderr).toBe(0);
    const people = JSON.parse(json.stdout) as { id: string; uuid: string }[];
    expect(people.length).toBeGreaterThan(0);
    for (const person of people) expect(person.uuid).toBe(person.id);
    const csv = await world.run([...args, '-o', 'csv']);
    expect(csv.stdout.split('\n')[0]).toBe('uuid,name,distinct_ids,created_at');
  });
});

describe('item 5: persons get --email, and how the e-mail filters match', () => {
  it('no person with the address: exit 3 and a hint', async () => {
    const res = await world.run(['persons', 'get', '--email', 'nobody@example.com']);
    expect(res.code).toBe(3);
    expect(res.stderr).toContain('no person with the e-mail address nobody@example.com');
    expect(res.stderr).toContain('hogctl persons list --search');
  });

  it('an address given as the id points to --email, and nothing is sent', async () => {
    const before = world.sandbox.requests.length;
    const res = await world.run(['persons', 'get', 'lee.park@example.net']);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('persons get --email lee.park@example.net');
    expect(world.sandbox.requests.length).toBe(before);
  });

  it('an address given as a distinct id that names no one points to --email', async () => {
    const res = await world.run(['persons', 'get', '--distinct-id', 'lee.park@example.net']);
    expect(res.code).toBe(3);
    expect(res.stderr).toContain('hogctl persons get --email lee.park@example.net');
  });

  it('--email with an id, or an empty --email, is a usage error', async () => {
    const both = await world.run(['persons', 'get', LEE, '--email', 'x@example.com']);
    expect(both.code).toBe(2);
    const empty = await world.run(['persons', 'get', '--email', ' ']);
    expect(empty.code).toBe(2);
  });

  it('the helps say how each e-mail filter matches', async () => {
    const list = (await world.run(['persons', 'list', '--help'])).stdout.replace(/\s+/g, ' ');
    expect(list).toMatch(/--email <address> +persons whose email property is this whole address, ignoring the case of ASCII letters/);
    expect(list).toContain('persons get --email');
    expect(list).toMatch(/--where[^]*case-sensitive/);
    const get = (await world.run(['persons', 'get', '--help'])).stdout.replace(/\s+/g, ' ');
    expect(get).toContain('ignoring the case of ASCII letters');
    for (const verb of ['bulk-delete', 'bulk-update']) {
      const help = (await world.run(['persons', verb, '--help'])).stdout.replace(/\s+/g, ' ');
      expect(help, verb).toMatch(/--emails[^]*ignoring the case of ASCII letters/);
    }
  });

  it('persons list --email ignores the case of ASCII letters, as every other lookup of an address does', async () => {
    const exact = JSON.parse((await world.run(['persons', 'list', '--email', 'Lee.Park@Example.net', '-o', 'json'])).stdout);
    expect(exact.map((p: { uuid: string }) => p.uuid)).toEqual([LEE]);
    const other = JSON.parse((await world.run(['persons', 'list', '--email', 'lee.park@example.net', '-o', 'json'])).stdout);
    expect(other.map((p: { uuid: string }) => p.uuid)).toEqual([LEE]);
    const none = await world.run(['persons', 'list', '--email', 'lee.park@example.ne', '-o', 'json']);
    expect(JSON.parse(none.stdout)).toEqual([]);
    expect(none.stderr).toContain('persons get --email');
    const where = async (value: string) =>
      JSON.parse((await world.run(['persons', 'list', '--where', `email=${value}`, '-o', 'json'])).stdout).map(
        (p: { uuid: string }) => p.uuid,
      );
    expect(await where('Lee.Park@Example.net')).toEqual([LEE]);
    expect(await where('lee.park@example.net')).toEqual([]);
  });
});
