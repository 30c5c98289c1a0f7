// `persons merge --undo` touches only the persons its receipt names, as they were left by the
// merge, and gives back what PostHog allows: in this process against the sandbox (its ingestion,
// split and person store), each test starting from a reproduction of what an undo used to get
// wrong. The black-box counterparts (a spawned binary, SIGKILL and --resume) are in
// test/e2e/persons-merge.test.ts and test/e2e/merge-at-scale.test.ts; the rest of merge on the
// real clock in test/cli/persons/merge.test.ts.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, uuidFromDistinctId, type Sandbox } from '@hogctl/sandbox';
import { startVirtualWorld, type VirtualWorld } from '../virtual-harness.js';
import { captureInto } from './merge-fixtures.js';

let world: VirtualWorld;
let serial = 0;
beforeAll(async () => {
  world = await startVirtualWorld({ persons: 20, applyDelayMs: 0 });
});
afterAll(() => world.close());

const fresh = (name: string) => `${name}-${++serial}`;

const capture = (events: Parameters<typeof captureInto>[1], sandbox: Sandbox = world.sandbox) => captureInto(sandbox, events);

/** A person identified under `id` with these properties; more ids joined to it with `also`. */
async function person(id: string, properties: Record<string, unknown>, also: string[] = []): Promise<void> {
  await capture([
    { event: '$identify', distinct_id: id, properties: { $set: properties } },
    ...also.map((alias) => ({ event: '$create_alias', distinct_id: id, properties: { alias } })),
  ]);
}

const uuidOf = (id: string) => world.sandbox.store.getByDistinctId(id)!.uuid;
const propsOf = (id: string) => world.sandbox.store.getByDistinctId(id)!.properties;
const state = () => JSON.stringify([...world.sandbox.store].map((p) => [p.uuid, [...p.distinctIds].sort(), p.properties]));

/** `persons merge <keep> <other>` with a receipt; returns its path. */
async function merge(keep: string, other: string): Promise<string> {
  const receipt = join(world.configDir, `${fresh('merge')}.json`);
  const res = await world.run(['persons', 'merge', keep, other, '--yes', '--receipt', receipt]);
  expect(res.code, res.stderr).toBe(0);
  return receipt;
}

const undo = (receipt: string, ...flags: string[]) => world.run(['persons', 'merge', '--undo', receipt, '--yes', '-o', 'json', ...flags]);

describe('persons merge --undo', () => {
  it('refuses a group whose kept person was edited since the merge, naming the keys, and writes nothing', async () => {
    const [a, b] = [fresh('edit-a'), fresh('edit-b')];
    await person(a, { plan: 'free', email: 'ana@example.com' });
    await person(b, { plan: 'pro', name: 'Ana B' });
    const receipt = await merge(a, b);
    await capture([{ event: '$set', distinct_id: a, properties: { $set: { plan: 'enterprise', vip: true, support_ticket: 42 } } }]);
    const before = state();
    const res = await undo(receipt);
    expect(res.code, res.stderr).toBe(2);
    expect(res.stderr).toContain('plan, support_ticket, vip changed since the merge');
    expect(res.stderr).toContain('nothing was sent');
    expect(state()).toBe(before);
  });

  it('--changed keep gives the group back and the kept person keeps the edits; --changed overwrite sets them back', async () => {
    for (const rule of ['keep', 'overwrite']) {
      const [a, b] = [fresh(`${rule}-a`), fresh(`${rule}-b`)];
      await person(a, { plan: 'free', email: `${a}@example.com` });
      await person(b, { plan: 'pro', name: 'B' });
      const receipt = await merge(a, b);
      await capture([{ event: '$set', distinct_id: a, properties: { $set: { plan: 'enterprise', vip: true } } }]);
      const res = await undo(receipt, '--changed', rule);
      expect(res.code, res.stderr).toBe(0);
      expect(res.stderr).toContain('plan, vip');
      expect(uuidOf(a)).not.toBe(uuidOf(b));
      // Each as it was (PostHog's $creator_event_uuid, set when a person is made, aside).
      const own = (id: string) => Object.fromEntries(Object.entries(propsOf(id)).filter(([k]) => k !== '$creator_event_uuid'));
      expect(own(b)).toEqual({ plan: 'pro', name: 'B' });
      expect(own(a)).toEqual(
        rule === 'keep' ? { plan: 'enterprise', vip: true, email: `${a}@example.com` } : { plan: 'free', email: `${a}@example.com` },
      );
      const written = JSON.parse(readFileSync(receipt.replace(/\.json$/, '.undo.json'), 'utf8'));
      expect(written.groups[0]).toMatchObject({ status: 'restored', changed: ['plan', 'vip'] });
    }
  });

  it('refuses a group whose persons were merged again since: the later kept person is never written to', async () => {
    const [a, b, c] = [fresh('again-a'), fresh('again-b'), fresh('again-c')];
    await person(a, { plan: 'a' });
    await person(b, { email: 'bea@example.com', name: 'Bea' });
    await person(c, { plan: 'c' });
    const first = await merge(a, b);
    await merge(c, a);
    const before = state();
    const res = await undo(first);
    expect(res.code, res.stderr).toBe(2);
    expect(res.stderr).toMatch(/now names person [0-9a-f-]+, not the kept person/);
    expect(state()).toBe(before);
    expect(uuidOf(b)).toBe(uuidOf(c));
  });

  it('undoes a group whose kept person got a distinct id of its own since the merge (a new device)', async () => {
    const [k, o, device] = [fresh('nk'), fresh('no'), fresh('ndevice')];
    await person(k, { name: 'K' });
    await person(o, { name: 'O' });
    const receipt = await merge(k, o);
    await capture([{ event: '$create_alias', distinct_id: k, properties: { alias: device } }]);
    expect(uuidOf(device)).toBe(uuidOf(k));
    const res = await undo(receipt);
    // Its own new id is not a person of no group: the group is given back, and read back restored.
    expect(res.code, res.stderr).toBe(0);
    const written = JSON.parse(readFileSync(receipt.replace(/\.json$/, '.undo.json'), 'utf8'));
    expect(written.groups).toEqual([expect.objectContaining({ status: 'restored' })]);
    expect(uuidOf(o)).not.toBe(uuidOf(k));
    expect(uuidOf(device)).toBe(uuidOf(k));
  });

  it('gives a person merged away its old UUID back: the rejoin goes into the id PostHog made it for', async () => {
    // b's person was made for "zz-…" and got "aa-…" later: the old undo joined into the first id
    // in sorted order, and rebuilt the person under the UUID of "aa-…".
    const [a, b, alias] = [fresh('uuid-a'), fresh('zz-uuid-b'), fresh('aa-uuid-b')];
    await person(a, { plan: 'a' });
    await person(b, { plan: 'b' }, [alias]);
    const old = uuidOf(b);
    expect(old).toBe(uuidFromDistinctId(1, b));
    const receipt = await merge(a, b);
    const res = await undo(receipt);
    expect(res.code, res.stderr).toBe(0);
    expect(uuidOf(b)).toBe(old);
    expect(uuidOf(alias)).toBe(old);
    const written = JSON.parse(readFileSync(receipt.replace(/\.json$/, '.undo.json'), 'utf8'));
    // What did not come back is counted as the server holds it.
    const rebuilt = world.sandbox.store.getByDistinctId(b)!;
    const before = JSON.parse(readFileSync(JSON.parse(readFileSync(receipt, 'utf8')).journal, 'utf8').split('\n')[0]).merge.groups[0]
      .merge[0];
    expect(written.undo.not_restored).toEqual({
      uuid: 0,
      created_at: Date.parse(before.created_at) === rebuilt.createdAtUs / 1000 ? 0 : 1,
      // Not shown by the person store's batch answer (PersonSerializer has no is_identified).
      is_identified: null,
    });
    expect(written.undo.not_given_back.join(' ')).toContain('static cohort memberships');
  });

  it('reads the properties it restores, and the read-back, from the person store, not HogQL', async () => {
    const [a, b] = [fresh('store-a'), fresh('store-b')];
    await person(a, { plan: 'a' });
    await person(b, { plan: 'b', only_b: 1 });
    const receipt = await merge(a, b);
    const from = world.sandbox.requests.length;
    const res = await undo(receipt);
    expect(res.code, res.stderr).toBe(0);
    const paths = world.sandbox.requests.slice(from).map((r) => r.path);
    expect(paths.filter((p) => p.includes('/query/'))).toEqual([]);
    expect(paths.some((p) => p.endsWith('/persons/batch_by_distinct_ids/'))).toBe(true);
  });

  it('refuses a receipt that was already undone', async () => {
    const [a, b] = [fresh('twice-a'), fresh('twice-b')];
    await person(a, { plan: 'a' });
    await person(b, { plan: 'b' });
    const receipt = await merge(a, b);
    expect((await undo(receipt)).code).toBe(0);
    const again = await undo(receipt, '--journal', join(world.configDir, `${fresh('again')}.ndjson`));
    expect(again.code, again.stderr).toBe(2);
    expect(again.stderr).toContain('was already undone');
  });

  it('refuses a receipt of format 1 (a development build before the first release), saying so, before anything is sent', async () => {
    const [a, b] = [fresh('format-a'), fresh('format-b')];
    await person(a, { plan: 'a' });
    await person(b, { plan: 'b' });
    const receipt = await merge(a, b);
    const old = join(world.configDir, `${fresh('format1')}.json`);
    writeFileSync(old, JSON.stringify({ ...JSON.parse(readFileSync(receipt, 'utf8')), receipt_format: 1 }, null, 2));
    const before = state();
    const sent = world.sandbox.capture.requests;
    const res = await undo(old);
    expect(res.code, res.stderr).toBe(2);
    expect(res.stderr).toContain(`${old} has receipt format 1: an earlier development build of hogctl wrote it`);
    expect(res.stderr).toContain('run the job again with a new --journal');
    expect(state()).toBe(before);
    expect(world.sandbox.capture.requests).toBe(sent);
  });

  it('refuses a receipt made on another host or in another project, before anything is sent', async () => {
    const [a, b] = [fresh('host-a'), fresh('host-b')];
    await person(a, { plan: 'a' });
    await person(b, { plan: 'b' });
    const receipt = await merge(a, b);
    const other = await startSandbox({ quiet: true, persons: 5 });
    try {
      const res = await undo(receipt, '--base-url', other.url);
      expect(res.code, res.stderr).toBe(2);
      expect(res.stderr).toContain(`not on ${other.url}`);
      expect(other.requests.filter((r) => r.method !== 'GET')).toEqual([]);
      expect(other.capture.requests).toBe(0);
    } finally {
      await other.close();
    }
    const elsewhere = await undo(receipt, '--project', '2');
    expect(elsewhere.code, elsewhere.stderr).toBe(2);
    expect(elsewhere.stderr).toContain('not in project 2');
  });
});

describe('the plan of a merge', () => {
  it('says before anything is merged what an undo cannot give back', async () => {
    const [a, b] = [fresh('plan-a'), fresh('plan-b')];
    await person(a, { plan: 'a' });
    await person(b, { plan: 'b' });
    const res = await world.run(['persons', 'merge', a, b, '--dry-run']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toContain('`persons merge --undo <receipt>` gives back distinct ids and properties, not:');
    expect(res.stderr).toContain("a rebuilt person's created_at and is_identified");
    expect(res.stderr).toContain('static cohort memberships and feature-flag hash-key overrides');
  });
});

describe('the receipt a merge leaves for --undo', () => {
  it('records when each person was created and whether it was identified, as the server holds them', async () => {
    const [a, b] = [fresh('rec-a'), fresh('rec-b')];
    await person(a, { plan: 'a' });
    await person(b, { plan: 'b' });
    const receipt = await merge(a, b);
    const journal = JSON.parse(readFileSync(receipt, 'utf8')).journal as string;
    const header = JSON.parse(readFileSync(journal, 'utf8').split('\n')[0]);
    const away = header.merge.groups[0].merge[0];
    expect(away.uuid).toBe(uuidFromDistinctId(1, b));
    expect(away).toMatchObject({ is_identified: false, created_at: expect.stringMatching(/^2026-/) });
  });
});
