// A subject-access bundle says what it holds: the properties PostHog rebuilds from $set events by
// that name, and why they are none while person.json holds some; the property history written
// (empty when no event changes a property); summary.html with the person's stored properties and
// distinct ids, for its reader and with no instruction for the operator; and the manifest naming
// what PostHog holds that the bundle does not, with why.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { gunzipSync } from 'node:zlib';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVirtualWorld, type VirtualWorld } from '../virtual-harness.js';

let world: VirtualWorld;
let base: string;
beforeAll(async () => {
  world = await startVirtualWorld({ persons: 6, applyDelayMs: 0 });
  base = mkdtempSync(join(tmpdir(), 'hogctl-export-contents-'));
});
afterAll(async () => {
  await world.close();
  rmSync(base, { recursive: true, force: true });
});

/** Captures events into project 1 through the sandbox's /batch/ and waits until they are stored. */
async function capture(events: Record<string, unknown>[]): Promise<void> {
  const token = world.sandbox.world.projects.find((p) => p.id === 1)!.apiToken;
  const batch = events.map((e) => ({ ...e, properties: { $geoip_disable: true, ...(e.properties as object) } }));
  const res = await fetch(`${world.sandbox.url}/batch/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ api_key: token, batch }),
  });
  expect(res.status).toBe(200);
  const stored = () => [...world.sandbox.ingestion.values()].reduce((k, x) => k + x.stats.events, 0);
  for (let i = 0; i < 500 && stored() < world.sandbox.capture.events; i++) await new Promise((r) => setTimeout(r, 10));
}

const at = (minutesAgo: number) => new Date(world.clock.now() - minutesAgo * 60_000).toISOString();

/** Exports `email` into a new directory; the bundle's manifest, summary and the person's directory. */
async function exported(email: string) {
  const out = join(base, email.replace(/\W/g, '-'));
  const res = await world.run(['persons', 'export', '--email', email, '--out', out]);
  expect(res.code, res.stderr).toBe(0);
  const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
  const person = manifest.projects[0].persons[0];
  return { manifest, person, dir: join(out, person.dir), summary: readFileSync(join(out, 'summary.html'), 'utf8') };
}

describe('a subject-access bundle', () => {
  it('names the rebuilt properties for what they are, and says why they are none while person.json has some', async () => {
    const email = world.sandbox.store.getByDistinctId('user-2')!.properties.email as string;
    const { manifest, person, dir, summary } = await exported(email);
    const stored = JSON.parse(readFileSync(join(dir, 'person.json'), 'utf8')).properties;
    expect(Object.keys(stored).length).toBeGreaterThan(0);
    expect(existsSync(join(dir, 'properties-at-export.json'))).toBe(false);
    expect(JSON.parse(readFileSync(join(dir, 'properties-from-set-events.json'), 'utf8')).properties).toEqual({});
    expect(person.counts.properties_from_set_events).toBe(0);
    expect(person.empty.properties_from_set_events).toMatch(/\$set and \$set_once events of the two years before the export/);
    expect(manifest.person_files['properties-from-set-events.json']).toMatch(/rebuilds from the \$set/);
    // The history the README lists is written, empty: no event changes a property.
    expect(gunzipSync(readFileSync(join(dir, 'properties-history.ndjson.gz'))).toString()).toBe('');
    expect(manifest.files.map((f: { path: string }) => f.path)).toContain(`${person.dir}/properties-history.ndjson.gz`);
    // The summary: the stored properties and the distinct ids, and why the rebuilt ones are none.
    for (const [key, value] of Object.entries(stored)) {
      expect(summary).toContain(`<td>${key}</td>`);
      expect(summary).toContain(String(value));
    }
    for (const id of person.distinct_ids) expect(summary).toContain(`<code>${id}</code>`);
    expect(summary).toContain('properties rebuilt from $set events');
    expect(summary).toContain('the properties as stored are in person.json');
  });

  it('keeps the property changes the events carry, and the properties PostHog rebuilds from them', async () => {
    await capture([
      { event: '$identify', distinct_id: 'lee-device', timestamp: at(60), properties: { $set: { email: 'lee@example.net', plan: 'pro' } } },
      { event: 'upgraded', distinct_id: 'lee-device', timestamp: at(30), properties: { $set: { plan: 'team' }, $unset: ['trial'] } },
    ]);
    const { person, dir } = await exported('lee@example.net');
    const history = gunzipSync(readFileSync(join(dir, 'properties-history.ndjson.gz')))
      .toString()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(history.map((h) => h.$set)).toEqual([{ email: 'lee@example.net', plan: 'pro' }, { plan: 'team' }]);
    expect(history[1].$unset).toEqual(['trial']);
    expect(JSON.parse(readFileSync(join(dir, 'properties-from-set-events.json'), 'utf8')).properties).toMatchObject({ plan: 'team' });
    expect(person.empty).toEqual({});
  });

  it('names what PostHog holds that it does not, with why, and tells the operator nothing in the summary', async () => {
    const email = world.sandbox.store.getByDistinctId('user-3')!.properties.email as string;
    const { manifest, summary } = await exported(email);
    const missing = manifest.not_in_bundle.map((x: { what: string; why: string }) => `${x.what}: ${x.why}`).join('\n');
    expect(missing).toMatch(/LLM analytics content.*ai_events/);
    expect(missing).toMatch(/heatmaps.*table of their own/);
    expect(missing).toMatch(/e-mails sent to the person by Workflows.*emails/);
    expect(summary).toContain('What PostHog holds that this export does not');
    // Feature flags need a signed-in session: the operator is told on stderr how; the page says only that the part is not included.
    expect(summary).toContain('not included in this export');
    expect(summary).not.toMatch(/hogctl|auth login|export again|--[a-z]|give the key|switch to project/i);
  });
});
