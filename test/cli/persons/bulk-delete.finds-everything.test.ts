// `persons bulk-delete`, in this process: an erasure by e-mail finds every person the address
// names, and says what PostHog's deletion leaves behind. PostHog's own Node SDK (posthog-node,
// pinned) makes the data through the sandbox's capture; hogctl erases; the sandbox's weekly job
// deletes the events by their stored person_id, as PostHog's `delete_events.py` does
// (docs/server-contract.md §14.5).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PostHog } from 'posthog-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type World } from '../harness.js';
import { fresh, hogqlCount, idList, sdkClient, sendAndIngest } from '../../e2e/sdk.js';

let world: World;
let posthog: PostHog;
let dir: string;

beforeAll(async () => {
  world = await startWorld({ persons: 40, seed: 77, eventsPerPerson: 2 });
  posthog = sdkClient(world);
  dir = mkdtempSync(join(tmpdir(), 'hogctl-erasure-finds-'));
});
afterAll(async () => {
  await posthog.shutdown();
  await world.close();
  rmSync(dir, { recursive: true, force: true });
});

const send = () => sendAndIngest(world, posthog);

const count = (hogql: string) => hogqlCount(world, hogql);

/** The person a distinct id names in the person store (as batch_by_distinct_ids reads it), if any:
 * a person revived after a deletion counts, though listings and HogQL do not show it. */
const owner = (distinctId: string) => world.sandbox.store.getByDistinctId(distinctId)?.uuid;

const runDeletions = async () => {
  const res = await fetch(`${world.sandbox.url}/_sandbox/deletions/run`, { method: 'POST' });
  expect(res.status).toBe(200);
};

/** Each erasure with a journal of its own: a second request for the same address is a new case. */
const erase = (receipt: string, ...args: string[]) =>
  world.run([
    'persons',
    'bulk-delete',
    ...args,
    '--receipt',
    join(dir, receipt),
    '--journal',
    join(dir, `${receipt}.journal`),
    '--read-rate',
    '6000',
    '-y',
  ]);
const status = (receipt: string) =>
  world.run(['persons', 'erasure-status', '--receipt', join(dir, receipt), '--read-rate', '6000', '-o', 'json']);

describe('erasure with --delete-events: what PostHog deletes, and what erasure-status reports left', () => {
  it("the person's events go, its personless and pre-merge ones too (the squash); others' stay; erasure-status counts zero", async () => {
    const [device, anon, user, bystander] = [fresh('device'), fresh('anon'), fresh('user'), fresh('bystander')];
    const email = `${user}@example.com`;
    posthog.capture({ distinctId: device, event: 'docs_read', properties: { $process_person_profile: false } });
    posthog.capture({ distinctId: anon, event: '$pageview' });
    posthog.capture({ distinctId: bystander, event: '$pageview' });
    posthog.identify({ distinctId: user, properties: { email } });
    posthog.capture({ distinctId: user, event: 'purchase' });
    await send();
    posthog.identify({ distinctId: user, properties: { $anon_distinct_id: anon } });
    posthog.alias({ distinctId: user, alias: device });
    await send();
    expect(owner(device)).toBe(owner(user));
    expect(owner(anon)).toBe(owner(user));

    const res = await erase('delete-events.receipt.json', '--email', email, '--delete-events', '--keep-identifiers');
    expect(res.code, res.stderr).toBe(0);
    // The end of the run says that PostHog deletes events by person id, after the squash.
    expect(res.stderr).toMatch(/by person id, after squashing person overrides/);
    await runDeletions();

    // The squash gave the device's personless and the visitor's pre-merge events the person's id
    // (docs/server-contract.md §14.5): they went with the person's own.
    expect(await count(`SELECT count() FROM events WHERE distinct_id IN ${idList(user, device, anon)}`)).toBe(0);
    expect(await count(`SELECT count() FROM events WHERE distinct_id = '${bystander}'`)).toBe(1);

    const after = await status('delete-events.receipt.json');
    expect(after.code, after.stderr).toBe(0);
    const [project] = JSON.parse(after.stdout);
    expect(project).toMatchObject({ status: 'complete', events_completed: 1, events_remaining: 0 });
    // Counted by an async query (PostHog's time limit for API queries leaves it out), over the
    // events up to the end of the erasure that asked for the deletion.
    const receipt = JSON.parse(readFileSync(join(dir, 'delete-events.receipt.json'), 'utf8'));
    const counting = world.sandbox.requests.filter((r) => r.path.endsWith('/query/') && r.body.includes('hogctl erasure: events left'));
    const sent = JSON.parse(counting[counting.length - 1].body);
    expect(sent.refresh).toBe('async');
    expect(sent.query.query).toMatch(/timestamp >= toDateTime\(\{since\}\) AND timestamp <= toDateTime\(\{until\}\)/);
    expect(sent.query.values.until).toBe(new Date(receipt.finished_at).toISOString());
    expect(after.stderr).toMatch(/events of distinct ids that were never the person's/);
  });
});

describe('an erasure by e-mail finds every person the address names', () => {
  it('persons merged from several anonymous ids lose every distinct id; an address that is only a distinct id is found', async () => {
    // One person merged from three anonymous ids, with the address as its email property.
    const byProperty = fresh('prop');
    const propAnons = [fresh('anon'), fresh('anon'), fresh('anon')];
    const propEmail = `${byProperty}@example.com`;
    // One merged from three anonymous ids, identified by the address (in other letter case) with
    // no email property at all.
    const idAddress = `${fresh('Only.Id')}@Example.COM`;
    const idAnons = [fresh('anon'), fresh('anon'), fresh('anon')];
    for (const a of [...propAnons, ...idAnons]) posthog.capture({ distinctId: a, event: '$pageview' });
    await send();
    for (const a of propAnons) posthog.identify({ distinctId: byProperty, properties: { email: propEmail, $anon_distinct_id: a } });
    for (const a of idAnons) posthog.identify({ distinctId: idAddress, properties: { plan: 'team', $anon_distinct_id: a } });
    await send();
    for (const a of propAnons) expect(owner(a)).toBe(owner(byProperty));
    for (const a of idAnons) expect(owner(a)).toBe(owner(idAddress));
    expect(world.sandbox.store.getByDistinctId(idAddress)?.properties.email).toBeUndefined();

    const res = await erase('merged.receipt.json', '--emails', listFile('merged.txt', propEmail, idAddress.toLowerCase()));
    expect(res.code, res.stderr).toBe(0);
    const still = [byProperty, ...propAnons, idAddress, ...idAnons].filter((d) => owner(d) !== undefined);
    expect(still).toEqual([]);
    const receipt = JSON.parse(readFileSync(join(dir, 'merged.receipt.json'), 'utf8'));
    expect(receipt.identifiers).toMatchObject({ matched: 2, unmatched: 0, found_by: { email_property: 1, distinct_id: 1, revived: 0 } });
  });

  it('a person revived after an earlier deletion, which HogQL does not show, is found by its distinct id', async () => {
    const address = `${fresh('back')}@example.com`;
    posthog.identify({ distinctId: address, properties: { email: address } });
    await send();
    const first = await erase('first.receipt.json', '--email', address);
    expect(first.code, first.stderr).toBe(0);
    expect(owner(address)).toBeUndefined();
    // A new event for the deleted person's distinct id revives a person that listings and HogQL
    // do not show until the id is reset (docs/server-contract.md §14.4).
    posthog.capture({ distinctId: address, event: 'came_back', properties: { $set: { email: address } } });
    await send();
    expect(owner(address)).toBeDefined();
    expect(await count(`SELECT count() FROM persons WHERE properties.email = '${address}'`)).toBe(0);

    const res = await erase('revived.receipt.json', '--email', address);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toMatch(/revived after an earlier deletion/);
    expect(owner(address)).toBeUndefined();
    const receipt = JSON.parse(readFileSync(join(dir, 'revived.receipt.json'), 'utf8'));
    expect(receipt.identifiers).toMatchObject({ matched: 1, found_by: { email_property: 0, distinct_id: 1, revived: 1 } });
  });
});

function listFile(name: string, ...lines: string[]): string {
  const path = join(dir, name);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}
