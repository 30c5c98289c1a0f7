// An erasure's sweep of e-mail-shaped distinct ids, in this process on virtual time: a person
// identified by an address written in capitals (its distinct id) and the same address, lower case,
// used personless. Both are swept, as the erasure found them, in any case of the address's
// letters (the person's own distinct id was left out while the journal kept it only as an HMAC),
// and no file hogctl writes holds the address in clear: the sweep's
// journal keeps its queries sealed under the evidence key, and a --resume after a lost answer
// opens them and makes no second request.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startVirtualWorld, type VirtualWorld } from '../virtual-harness.js';

let world: VirtualWorld;
beforeEach(async () => {
  world = await startVirtualWorld({ persons: 3, eventsPerPerson: 0, applyDelayMs: 0 });
  await fetch(`${world.sandbox.url}/_sandbox/projects/1/self-service-data-deletion/on`, { method: 'POST' });
});
afterEach(() => world.close());

const ADDRESS = 'kim.lee@example.com';

async function subject(): Promise<void> {
  const token = world.sandbox.world.projects.find((p) => p.id === 1)!.apiToken;
  const at = new Date(world.clock.now() - 60_000).toISOString();
  const batch = [
    { event: '$identify', distinct_id: 'Kim.Lee@Example.com', timestamp: at, properties: { $set: { email: ADDRESS } } },
    { event: 'form_posted', distinct_id: ADDRESS, timestamp: at, properties: { $process_person_profile: false } },
  ].map((e) => ({ ...e, properties: { $geoip_disable: true, ...e.properties } }));
  const res = await fetch(`${world.sandbox.url}/batch/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ api_key: token, batch }),
  });
  expect(res.status).toBe(200);
  const stored = () => [...world.sandbox.ingestion.values()].reduce((k, x) => k + x.stats.events, 0);
  for (let i = 0; i < 500 && stored() < world.sandbox.capture.events; i++) await new Promise((r) => setTimeout(r, 10));
}

/** Every file under `dir`, with its text. */
function files(dir: string): { path: string; text: string }[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [{ path, text: readFileSync(path, 'utf8') }];
  });
}

const erase = (extra: string[] = []) =>
  world.run([
    'persons',
    'bulk-delete',
    '--email',
    ADDRESS,
    '--delete-events',
    '--sweep-events',
    '--yes',
    '--receipt',
    `${world.configDir}/erasure.json`,
    ...extra,
  ]);

describe('bulk-delete --sweep-events of e-mail-shaped distinct ids', () => {
  it("sweeps the person's address-shaped distinct id and the personless address; no file keeps them in clear", async () => {
    await subject();
    const run = await erase();
    expect(run.code, run.stderr).toBe(0);
    // The address in any case of its letters: the person's Kim.Lee@Example.com, which the journal
    // keeps only as an HMAC, and the personless kim.lee@example.com.
    const [request] = world.sandbox.dataDeletions.list(1);
    expect(request.query).toContain(`lower(distinct_id) IN ('${ADDRESS}')`);
    const clear = files(world.configDir).filter((f) => f.text.toLowerCase().includes(ADDRESS));
    expect(clear.map((f) => f.path)).toEqual([]);
    // The sweep's journal names its key and keeps the query sealed.
    const journal = files(join(world.configDir, 'journals')).find((f) => f.path.includes('events-delete-'))!;
    expect(JSON.parse(journal.text)).toMatchObject({ sealed_with: expect.any(String), requests: [{ query_sealed: expect.any(String) }] });
    expect(journal.text).not.toContain('"query"');
    await fetch(`${world.sandbox.url}/_sandbox/projects/1/data-deletion-requests/approve`, { method: 'POST' });
    await fetch(`${world.sandbox.url}/_sandbox/deletions/run`, { method: 'POST' });
    let left = 0;
    world.sandbox.events
      .get(1)!
      .forEachRow((row) => void (world.sandbox.events.get(1)!.distinctId(row).toLowerCase() === ADDRESS && left++));
    expect(left).toBe(0);
  });

  it('--resume after a lost answer opens the sealed journal and makes no second request', async () => {
    await subject();
    world.sandbox.setFaults('drop-after=1,path=data_deletion_requests,method=POST');
    const lost = await erase();
    world.sandbox.setFaults();
    expect(lost.code).not.toBe(0);
    expect(world.sandbox.dataDeletions.list(1)).toHaveLength(1);
    const resumed = await erase(['--resume']);
    expect(resumed.code, resumed.stderr).toBe(0);
    const requests = world.sandbox.dataDeletions.list(1);
    expect(requests).toHaveLength(1);
    expect(requests[0].query).toContain(`lower(distinct_id) IN ('${ADDRESS}')`);
    const receipt = JSON.parse(readFileSync(`${world.configDir}/erasure.json`, 'utf8'));
    expect(receipt.projects[0].verification.sweep.requests.map((r: { id: string }) => r.id)).toEqual([requests[0].id]);
  });
});
