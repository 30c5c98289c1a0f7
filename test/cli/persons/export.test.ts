// `hogctl persons export` end to end (issue: subject access): a subject with two persons in two
// projects, one merged from an anonymous id, 120,000 events between them, exported under a
// scaled query limit, killed once (SIGKILL) and resumed: every event exactly once, the manifest's
// hashes match the files, a second subject's data nowhere in the bundle; then an erasure of the
// same subject finds exactly the persons the export found. The runs are in this process
// (test/cli/harness.ts); the SIGKILL, the Ctrl-C and the terminal are the built binary's.
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, gunzipSync, gzipSync, inflateRawSync } from 'node:zlib';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type World } from '../harness.js';
import { spawnCli } from '../../e2e/harness.js';
import { runInTerminal } from '../../e2e/terminal.js';
import { evaluationReasons } from '../../../packages/sandbox/src/feature-flags.js';

let world: World;
let dir: string;
const SUBJECT = 'lee@example.net';
const OTHER = 'kim@example.net';
const DAY = 86_400_000;
/** Events of the subject: anonymous then identified in project 1, and in project 2. */
const COUNTS = { anon: 30_000, identified: 40_000, project2: 50_000 };

/** Captures events as an SDK batches them, 20,000 a request, and waits for ingestion. Each
 * request has a connection of its own: the sandbox ingests a batch in this thread, and a kept-alive
 * connection the server closed while it did was reused, and reset. */
async function capture(project: number, events: Record<string, unknown>[]): Promise<void> {
  const token = world.sandbox.world.projects.find((p) => p.id === project)!.apiToken;
  for (let i = 0; i < events.length; i += 20_000) {
    const connection = new Agent({ connections: 1 });
    try {
      const res = await request(`${world.sandbox.url}/batch/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ api_key: token, batch: events.slice(i, i + 20_000) }),
        dispatcher: connection,
      });
      await res.body.text();
      expect(res.statusCode).toBe(200);
    } finally {
      await connection.close();
    }
  }
  const want = world.sandbox.capture.events;
  const stored = () => [...world.sandbox.ingestion.values()].reduce((k, x) => k + x.stats.events, 0);
  for (let i = 0; i < 2000 && stored() < want; i++) await new Promise((r) => setTimeout(r, 10));
  expect(stored()).toBe(want);
}

/** `count` events of one distinct id, a few a day going back from now, in sessions. */
function events(distinctId: string, count: number, extra: Record<string, unknown> = {}): Record<string, unknown>[] {
  const start = Date.now() - 400 * DAY;
  return Array.from({ length: count }, (_, i) => ({
    event: i % 3 ? '$pageview' : '$autocapture',
    distinct_id: distinctId,
    timestamp: new Date(start + Math.floor((i / count) * 399 * DAY)).toISOString(),
    // As posthog-node sends them: GeoIP off (`$geoip_disable`), which the sandbox's GeoIP
    // transformation would otherwise run on every event from loopback, tripling its properties.
    properties: {
      $session_id: `${distinctId}-s${Math.floor(i / 500)}`,
      $current_url: `https://app.example.com/p/${i % 7}`,
      $geoip_disable: true,
      ...extra,
    },
  }));
}

/** The uuids of the events of these distinct ids in one project, from the sandbox's store. */
function storedUuids(project: number, distinctIds: string[]): Set<string> {
  const store = world.sandbox.events.get(project)!;
  const wanted = new Set(distinctIds);
  const out = new Set<string>();
  store.forEachRow((row) => {
    if (wanted.has(store.distinctId(row))) out.add(store.uuid(row));
  });
  return out;
}

function filesUnder(root: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    const path = join(root, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(path));
    else out.push(path);
  }
  return out;
}

const readText = (path: string) => (path.endsWith('.gz') ? gunzipSync(readFileSync(path)).toString('utf8') : readFileSync(path, 'utf8'));

beforeAll(async () => {
  // The query limit scaled down (PostHog allows 240 a minute): the export waits it out.
  world = await startWorld({ persons: 20, applyDelayMs: 5, rateLimit: 'query=4/2s' });
  dir = mkdtempSync(join(tmpdir(), 'hogctl-export-'));
  await capture(1, [...events('anon-lee', COUNTS.anon), ...events('kim-device', 1_000, { $set: { email: OTHER } })]);
  await capture(1, [
    {
      event: '$identify',
      distinct_id: SUBJECT,
      timestamp: new Date(Date.now() - 200 * DAY).toISOString(),
      properties: { $anon_distinct_id: 'anon-lee', $set: { email: SUBJECT, plan: 'pro' } },
    },
  ]);
  await new Promise((r) => setTimeout(r, 100));
  await capture(1, events(SUBJECT, COUNTS.identified - 1));
  await capture(2, [
    ...events('lee-p2', COUNTS.project2, { $set: { email: SUBJECT } }),
    ...events('kim-p2', 1_000, { $set: { email: OTHER } }),
  ]);
}, 300_000);
afterAll(async () => {
  await world?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('hogctl persons export', () => {
  const out = () => join(dir, 'lee');

  it('--dry-run plans the persons and events per project and writes nothing', async () => {
    const res = await world.run(['persons', 'export', '--email', SUBJECT, '--projects', '1,2', '--out', out(), '--dry-run', '-o', 'json']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toContain('project 1 (Default project): 1 person, 2 distinct ids');
    expect(res.stderr).toContain('project 2 (Staging): 1 person, 1 distinct id');
    expect(res.stderr).toContain('about 120,000 events');
    expect(JSON.parse(res.stdout)).toMatchObject({ persons: 2, dry_run: true });
    expect(existsSync(out())).toBe(false);
  });

  it('exports every event once across a SIGKILL and --resume, with a manifest that matches the files', async () => {
    const { child, exited } = spawnCli(['persons', 'export', '--email', SUBJECT, '--projects', '1,2', '--out', out()], world.env);
    // Killed once the first page of events is recorded, and before the export ends.
    const journal = join(out(), 'export-state.json');
    for (let i = 0; i < 3000; i++) {
      if (existsSync(journal)) {
        const j = JSON.parse(readFileSync(journal, 'utf8'));
        if (Object.values(j.persons).some((p) => (p as { events: { count: number } }).events.count > 0)) break;
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    child.kill('SIGKILL');
    const killed = await exited;
    expect(killed.signal).toBe('SIGKILL');
    expect(existsSync(journal)).toBe(true);
    // A page written after the last one journaled (the kill came between the two): --resume cuts it off.
    const started = (Object.values(JSON.parse(readFileSync(journal, 'utf8')).persons) as { dir: string; events: { count: number } }[]).find(
      (p) => p.events.count > 0,
    )!;
    appendFileSync(join(out(), started.dir, 'events.ndjson.gz'), gzipSync('{"uuid":"written-after-the-journal"}\n'));

    const again = await world.run(['persons', 'export', '--email', SUBJECT, '--projects', '1,2', '--out', out()]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('holds an export that did not finish');

    const res = await world.run(['persons', 'export', '--resume', '--out', out(), '-o', 'json'], { timeoutMs: 180_000 });
    expect(res.code, res.stderr).toBe(0);
    const result = JSON.parse(res.stdout);
    expect(result).toMatchObject({ persons: 2, events: 120_000 });
    expect(existsSync(journal)).toBe(false);
    // The finished bundle's files as text, each unpacked once for the checks below that read it.
    const texts = new Map<string, string>();
    const textOf = (path: string) => texts.get(path) ?? texts.set(path, readText(path)).get(path)!;

    // Every event of the subject's distinct ids, exactly once.
    const manifest = JSON.parse(readFileSync(join(out(), 'manifest.json'), 'utf8'));
    const [p1] = manifest.projects[0].persons;
    const [p2] = manifest.projects[1].persons;
    expect(p1.distinct_ids.sort()).toEqual(['anon-lee', SUBJECT]);
    expect(p2.distinct_ids).toEqual(['lee-p2']);
    for (const [project, person] of [
      [1, p1],
      [2, p2],
    ] as const) {
      const lines = textOf(join(out(), person.dir, 'events.ndjson.gz'))
        .trim()
        .split('\n');
      const uuids = lines.map((l) => JSON.parse(l).uuid);
      expect(new Set(uuids).size).toBe(uuids.length);
      expect(new Set(uuids)).toEqual(storedUuids(project, person.distinct_ids));
      expect(person.counts.events).toBe(uuids.length);
    }
    expect(p1.counts.events + p2.counts.events).toBe(120_000);

    // The manifest names every file with its SHA-256; nothing else is there.
    const onDisk = filesUnder(out())
      .map((f) => f.slice(out().length + 1))
      .filter((f) => f !== 'manifest.json')
      .sort();
    expect(manifest.files.map((f: { path: string }) => f.path)).toEqual(onDisk);
    for (const f of manifest.files) {
      expect(
        createHash('sha256')
          .update(readFileSync(join(out(), f.path)))
          .digest('hex'),
        f.path,
      ).toBe(f.sha256);
    }
    expect(manifest).toMatchObject({ host: new URL(world.sandbox.url).host, identifiers_as_given: { emails: [SUBJECT] } });
    // PostHog answers flag evaluation reasons to a signed-in session only: with a key alone they
    // are named as not exported, and how to include them said.
    expect(p1.not_exported['feature flags']).toContain('hogctl auth login');
    expect(readFileSync(join(out(), 'summary.html'), 'utf8')).toContain('feature flags');

    // The bulk engine's receipt: the persons per project, the bundle, and the manifest's digest,
    // which the verification read back; the journal keeps each person's answer.
    const receipt = JSON.parse(readFileSync(result.receipt, 'utf8'));
    expect(receipt).toMatchObject({
      command: 'persons export',
      status: 'completed',
      counts: { persons_exported: 2, events: 120_000 },
      verification: { status: 'verified', mismatched: [], unlisted: [] },
      export: { bundle: out(), files: manifest.files.length + 1 },
    });
    expect(receipt.export.manifest_sha256).toBe(
      createHash('sha256')
        .update(readFileSync(join(out(), 'manifest.json')))
        .digest('hex'),
    );
    expect(receipt.projects.map((p: { persons_exported: number }) => p.persons_exported)).toEqual([1, 1]);
    const answers = readFileSync(result.journal, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((l) => l.type === 'answered');
    expect(answers.map((a) => a.summary.events.count).sort()).toEqual([50_000, 70_000]);

    // Private: 0700 directories, 0600 files; no key, no second subject anywhere.
    expect(statSync(out()).mode & 0o777).toBe(0o700);
    for (const f of filesUnder(out())) {
      expect(statSync(f).mode & 0o777, f).toBe(0o600);
      const text = textOf(f);
      expect(text, f).not.toContain(world.sandbox.defaultKey);
      expect(text, f).not.toContain('kim');
    }
    const summary = readFileSync(join(out(), 'summary.html'), 'utf8');
    expect(summary).toContain('<svg');
    expect(summary).not.toMatch(/<(script|link|img)\b|https?:\/\/(?!app\.example\.com)/);
  }, 300_000);

  it('an erasure of the same subject finds exactly the persons the export found', async () => {
    const manifest = JSON.parse(readFileSync(join(out(), 'manifest.json'), 'utf8'));
    const exported = manifest.projects.flatMap((p: { persons: { uuid: string }[] }) => p.persons.map((x) => x.uuid)).sort();
    const receipt = join(dir, 'erasure.json');
    const res = await world.run(['persons', 'bulk-delete', '--email', SUBJECT, '--projects', '1,2', '-y', '--receipt', receipt]);
    expect(res.code, res.stderr).toBe(0);
    const r = JSON.parse(readFileSync(receipt, 'utf8'));
    const erased = r.projects.flatMap((p: { ids_sent: string[] }) => p.ids_sent).sort();
    expect(erased).toEqual(exported);
    const status = await world.run(['persons', 'erasure-status', '--receipt', receipt, '-o', 'json']);
    expect(JSON.parse(status.stdout).map((p: { persons_present: number }) => p.persons_present)).toEqual([0, 0]);
  }, 120_000);

  it('refuses a directory that is not empty, and names a part the key may not read while exporting the rest', async () => {
    const full = await world.run(['persons', 'export', '--email', OTHER, '--out', out()]);
    expect(full.code).toBe(2);
    expect(full.stderr).toContain('a bundle is never written over');
    const key = world.sandbox.addKey(['person:read', 'query:read', 'cohort:read', 'session_recording:read', 'user:read']);
    const kim = join(dir, 'kim');
    const res = await world.run(['persons', 'export', '--email', OTHER, '--out', kim, '-o', 'json'], { env: { HOGCTL_API_KEY: key } });
    expect(res.code, res.stderr).toBe(8);
    expect(res.stderr).toContain("activity not exported: 403: API key missing required scope 'activity_log:read'");
    expect(JSON.parse(res.stdout)).toMatchObject({ persons: 1, events: 1_000, unavailable: 1 });
    expect(existsSync(join(kim, 'manifest.json'))).toBe(true);

    // A key that may not query: the records are exported, the events named as not readable.
    const noQuery = world.sandbox.addKey(['person:read', 'activity_log:read', 'cohort:read', 'session_recording:read', 'user:read']);
    const records = join(dir, 'kim-records');
    const only = await world.run(['persons', 'export', '--distinct-id', 'kim-device', '--out', records, '-o', 'json'], {
      env: { HOGCTL_API_KEY: noQuery },
    });
    expect(only.code, only.stderr).toBe(8);
    expect(only.stderr).toContain("events not exported: 403: API key missing required scope 'query:read'");
    const m = JSON.parse(readFileSync(join(records, 'manifest.json'), 'utf8'));
    expect(m.projects[0].persons[0].not_exported).toMatchObject({ events: "403: API key missing required scope 'query:read'" });
    expect(m.files.map((f: { path: string }) => f.path.split('/').pop())).toContain('person.json');
  }, 120_000);

  it('Ctrl-C leaves a bundle --resume finishes, and --dry-run or a missing subject writes nothing', async () => {
    const out2 = join(dir, 'kim-p2');
    // Queries answer slowly, so the signal comes while the events are being read.
    world.sandbox.setFaults('slow=100%@1500,path=/query/');
    const { child, exited } = spawnCli(['persons', 'export', '--distinct-id', 'kim-p2', '--projects', '2', '--out', out2], world.env);
    const journal = join(out2, 'export-state.json');
    for (let i = 0; i < 3000 && !existsSync(journal); i++) await new Promise((r) => setTimeout(r, 5));
    child.kill('SIGINT');
    const stopped = await exited;
    world.sandbox.setFaults();
    expect(stopped.code, stopped.stderr).toBe(130);
    expect(stopped.stderr).toContain(`hogctl persons export --resume --out ${out2}`);
    const res = await world.run(['persons', 'export', '--resume', '--out', out2, '-o', 'json']);
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ persons: 1, events: 1_000 });

    // A query limit that asks to wait longer than --max-wait stops the export (exit 6); --resume goes on.
    const out4 = join(dir, 'kim-limited');
    world.sandbox.setRateLimit('query=1/1h');
    const limited = await world.run(['persons', 'export', '--distinct-id', 'kim-device', '--out', out4, '--max-wait', '1s']);
    world.sandbox.setRateLimit('query=4/2s');
    expect(limited.code, limited.stderr).toBe(6);
    expect(limited.stderr).toContain(`hogctl persons export --resume --out ${out4}`);
    expect(existsSync(join(out4, 'export-state.json'))).toBe(true);
    const resumed = await world.run(['persons', 'export', '--resume', '--out', out4, '-o', 'json']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ events: 1_000 });

    const none = await world.run(['persons', 'export', '--email', 'nobody@example.net', '--out', join(dir, 'nobody')]);
    expect(none.code).toBe(3);
    expect(existsSync(join(dir, 'nobody'))).toBe(false);
    const bad = await world.run(['persons', 'export', '--out', join(dir, 'nothing')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('name the data subject');
  }, 120_000);

  it('--zip hands the bundle over as one archive whose entries match the manifest, and removes the directory', async () => {
    const out3 = join(dir, 'kim-zip');
    const res = await world.run(['persons', 'export', '--distinct-id', 'kim-device', '--out', out3, '--zip', '--recordings', '-o', 'json']);
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ zip: `${out3}.zip`, events: 1_000 });
    expect(existsSync(out3)).toBe(false);
    expect(statSync(`${out3}.zip`).mode & 0o777).toBe(0o600);
    const entries = readZip(readFileSync(`${out3}.zip`));
    const manifest = JSON.parse(entries.get('kim-zip/manifest.json')!.toString('utf8'));
    expect([...entries.keys()].sort()).toEqual(
      ['kim-zip/manifest.json', ...manifest.files.map((f: { path: string }) => `kim-zip/${f.path}`)].sort(),
    );
    for (const f of manifest.files) {
      expect(
        createHash('sha256')
          .update(entries.get(`kim-zip/${f.path}`)!)
          .digest('hex'),
        f.path,
      ).toBe(f.sha256);
    }
    const again = await world.run(['persons', 'export', '--distinct-id', 'kim-device', '--out', out3, '--zip']);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('is never written over');
  }, 120_000);
  it("signed in, each person's feature-flag evaluation reasons per distinct id, as the sandbox evaluates them", async () => {
    const env = { HOGCTL_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'hogctl-e2e-flags-')) };
    try {
      const login = await world.run(['auth', 'login', '--email', world.sandbox.login.email, '--password-stdin'], {
        env,
        stdin: world.sandbox.login.password,
      });
      expect(login.code, login.stderr).toBe(0);
      const out6 = join(dir, 'kim-flags');
      const res = await world.run(['persons', 'export', '--distinct-id', 'kim-device', '--out', out6, '-o', 'json'], { env });
      expect(res.code, res.stderr).toBe(0);
      const manifest = JSON.parse(readFileSync(join(out6, 'manifest.json'), 'utf8'));
      const [person] = manifest.projects[0].persons;
      const path = `${person.dir}/feature-flags.json`;
      const flags = JSON.parse(readFileSync(join(out6, path), 'utf8'));
      const owner = world.sandbox.store.getByDistinctId('kim-device');
      expect(flags).toEqual({
        distinct_ids_not_evaluated: 0,
        by_distinct_id: Object.fromEntries(person.distinct_ids.map((id: string) => [id, evaluationReasons(1, id, owner)])),
      });
      expect(Object.keys(flags.by_distinct_id)).toEqual(['kim-device']);
      expect(person.counts['feature flags']).toBe(1);
      const listed = manifest.files.find((f: { path: string }) => f.path === path);
      expect(listed.sha256).toBe(
        createHash('sha256')
          .update(readFileSync(join(out6, path)))
          .digest('hex'),
      );
      expect(readFileSync(join(out6, 'summary.html'), 'utf8')).toMatch(/<td>feature flags<\/td><td class="num">1<\/td>/);

      // A person of 22 distinct ids: the first 20 are evaluated, and the file says 2 were not.
      const many = 'many@example.org';
      await capture(
        1,
        Array.from({ length: 22 }, (_, i) => ({
          event: '$identify',
          distinct_id: many,
          timestamp: new Date(Date.now() - (30 - i) * DAY).toISOString(),
          properties: { $anon_distinct_id: `many-anon-${i}` },
        })),
      );
      const out7 = join(dir, 'many-flags');
      const more = await world.run(['persons', 'export', '--distinct-id', many, '--out', out7, '-o', 'json'], { env });
      expect(more.code, more.stderr).toBe(0);
      const [merged] = JSON.parse(readFileSync(join(out7, 'manifest.json'), 'utf8')).projects[0].persons;
      expect(merged.distinct_ids).toHaveLength(23);
      const evaluated = JSON.parse(readFileSync(join(out7, merged.dir, 'feature-flags.json'), 'utf8'));
      expect(Object.keys(evaluated.by_distinct_id)).toEqual(merged.distinct_ids.slice(0, 20));
      expect(evaluated.distinct_ids_not_evaluated).toBe(3);
      expect(merged.counts['feature flags']).toBe(20);
    } finally {
      rmSync(env.HOGCTL_CONFIG_DIR, { recursive: true, force: true });
    }
  }, 120_000);

  it('a project the key cannot reach is named in the plan and at the end (exit 8), the rest exported', async () => {
    const out5 = join(dir, 'kim-reach');
    const res = await world.run(['persons', 'export', '--distinct-id', 'kim-device', '--projects', '1,3', '--out', out5, '-o', 'json']);
    expect(res.code, res.stderr).toBe(8);
    expect(res.stderr).toMatch(/✗ project 3 cannot be searched \(.*\): nothing in it will be written/);
    expect(res.stderr).toContain('one project could not be searched, so nothing in it was written: project 3');
    expect(JSON.parse(res.stdout)).toMatchObject({ persons: 1, events: 1_000 });
    expect(existsSync(join(out5, 'manifest.json'))).toBe(true);
  }, 120_000);
});

describe('hogctl persons export on a terminal', () => {
  it("shows a line a page above the bulk jobs' progress bar, and the bar", async () => {
    const res = await runInTerminal(
      ['persons', 'export', '--distinct-id', 'kim-p2', '--projects', '2', '--out', join(dir, 'tty')],
      world.env,
      [],
      60_000,
      {
        columns: 200,
        rows: 40,
      },
    );
    expect(res.code, res.output).toBe(0);
    expect(res.raw).toContain('\r\u001b[2K');
    // The bulk jobs' bar, persons done of those planned.
    expect(res.raw).toContain('█');
    expect(res.output).toMatch(/person [0-9a-f-]+: 1,000 events written of about 1,000 \(1 query\)/);
    expect(res.output).toContain('✔ exported 1 person and 1,000 events');
  }, 120_000);

  it('on an 80-column terminal, the line a page writes above the bar is wrapped at spaces', async () => {
    const res = await runInTerminal(
      ['persons', 'export', '--distinct-id', 'kim-p2', '--projects', '2', '--out', join(dir, 'tty80')],
      world.env,
      [],
      60_000,
      { columns: 80, rows: 24 },
    );
    expect(res.code, res.output).toBe(0);
    // A bar is cleared in place (a carriage return), so its frames come apart from the lines.
    const lines = res.output.split(/\r?\n|\r/).filter((l) => l !== '');
    // The page's line, not the one saying the flags need a session.
    const page = lines.findIndex((l, i) => /^project 2, person [0-9a-f-]+:/.test(l) && /events written/.test(`${l} ${lines[i + 1]}`));
    expect(page, res.output).toBeGreaterThanOrEqual(0);
    expect(lines[page].length, lines[page]).toBeLessThanOrEqual(80);
    expect(`${lines[page]} ${lines[page + 1].trimStart()}`).toMatch(/: 1,000 events written of about 1,000 \(1 query\)/);
  }, 120_000);
});

/** The entries of a .zip, read through its central directory, each inflated and its CRC checked. */
function readZip(zip: Buffer): Map<string, Buffer> {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const out = new Map<string, Buffer>();
  for (let i = 0; i < count; i++) {
    expect(zip.readUInt32LE(at)).toBe(0x02014b50);
    const crc = zip.readUInt32LE(at + 16);
    const compressed = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const extra = zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
    const local = zip.readUInt32LE(at + 42);
    const name = zip.subarray(at + 46, at + 46 + nameLength).toString('utf8');
    const dataAt = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const data = inflateRawSync(zip.subarray(dataAt, dataAt + compressed));
    expect(crc32(data), name).toBe(crc);
    out.set(name, data);
    at += 46 + nameLength + extra;
  }
  return out;
}
