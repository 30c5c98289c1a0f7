// `persons export` against answers it must not trust (issue 36), in this process on virtual time
// (test/cli/virtual-harness.ts), with a small proxy in front of the sandbox (answer-proxy.ts): a
// project id that climbs out of --out, and an events page cut short that says there is more.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { gunzipSync } from 'node:zlib';
import { join, relative, sep } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVirtualWorld, type VirtualWorld } from '../virtual-harness.js';
import { startAnswerProxy, type AnswerProxy } from '../answer-proxy.js';

/** Every file under `root`, relative to it. */
function filesUnder(root: string): string[] {
  if (!existsSync(root)) return [];
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(root, join(e.parentPath, e.name)));
}

/** Journals of the world's runs that have no receipt beside them. */
function journalsWithoutReceipt(): string[] {
  const files = filesUnder(join(world.configDir, 'journals'));
  return files.filter((f) => f.endsWith('.ndjson') && !files.includes(f.replace(/\.ndjson$/, '.receipt.json')));
}

let world: VirtualWorld;
let base: string;
beforeAll(async () => {
  // Captured events are applied at once (a real timer of 0), outside any run.
  world = await startVirtualWorld({ persons: 5, projectPersons: { 2: 5 }, seed: 36, applyDelayMs: 0 });
  base = mkdtempSync(join(tmpdir(), 'hogctl-export-hostile-'));
});
afterAll(async () => {
  await world.close();
  rmSync(base, { recursive: true, force: true });
});

describe('a project id from the server that would climb out of --out', () => {
  const BAD = '../../../../x/pwnp';
  let proxy: AnswerProxy;
  beforeAll(async () => {
    proxy = await startAnswerProxy(world.sandbox.url, {
      // Project 2 is listed under the bad id, and requests for the bad id go to project 2.
      path: (p) => p.replace(/^\/api\/projects\/([^/]+)\//, (m, id: string) => (decodeURIComponent(id) === BAD ? '/api/projects/2/' : m)),
      answer: (p, body) => {
        if (!/^\/api\/projects\/(\?.*)?$/.test(p)) return body;
        const listing = body as { results: { id: unknown }[] };
        return { ...listing, results: listing.results.map((r) => (r.id === 2 ? { ...r, id: BAD } : r)) };
      },
    });
  });
  afterAll(() => proxy.close());

  it('is refused, naming the host and the value; nothing is written anywhere, and nothing is said to be exported', async () => {
    const root = join(base, 'traversal');
    const out = join(root, 'a', 'b', 'c', 'out');
    mkdirSync(join(root, 'a', 'b', 'c'), { recursive: true });
    const res = await world.run(['persons', 'export', '--email', 'user1@example.com', '--all-projects', '--out', out], {
      env: { HOGCTL_BASE_URL: proxy.url },
    });
    expect(res.code, res.stderr).toBe(7);
    expect(res.stderr).toContain(BAD);
    expect(res.stderr).toContain(new URL(proxy.url).host);
    expect(res.stderr).not.toMatch(/exported/);
    expect(filesUnder(root)).toEqual([]);
    // Refused before the journal's first line: no journal is left without a receipt.
    expect(journalsWithoutReceipt()).toEqual([]);
  });
});

/** Captures events into project 1 and waits until they are stored. */
async function capture(events: Record<string, unknown>[]): Promise<void> {
  const token = world.sandbox.world.projects.find((p) => p.id === 1)!.apiToken;
  const res = await fetch(`${world.sandbox.url}/batch/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ api_key: token, batch: events }),
  });
  expect(res.status).toBe(200);
  const stored = () => [...world.sandbox.ingestion.values()].reduce((k, x) => k + x.stats.events, 0);
  for (let i = 0; i < 500 && stored() < world.sandbox.capture.events; i++) await new Promise((r) => setTimeout(r, 10));
}

describe('session ids that differ only in punctuation or case', () => {
  it("each recording's content gets a file of its own, in the bundle", async () => {
    // A client chooses its $session_id: nothing makes it a plain name.
    const sessions = ['s.1', 's/1', 's_1', 'S_1', '../../escape'];
    await capture(
      sessions.map((id, i) => ({
        event: '$pageview',
        distinct_id: 'sessions-subject',
        timestamp: new Date(world.clock.now() - (i + 1) * 60_000).toISOString(),
        properties: { $session_id: id, $current_url: `https://app.example.com/page-${i}` },
      })),
    );
    const out = join(base, 'sessions');
    const res = await world.run(['persons', 'export', '--distinct-id', 'sessions-subject', '--recordings', '--out', out]);
    expect(res.code, res.stderr).toBe(0);
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
    const [person] = manifest.projects[0].persons;
    expect(person.counts['recording content']).toBe(sessions.length);
    const files = filesUnder(out).filter((f) => f.includes(`recordings${sep}`));
    expect(files).toHaveLength(sessions.length);
    // Each file holds its own session's pages.
    const pages = files.map((f) => /page-\d/.exec(readFileSync(join(out, f), 'utf8'))?.[0]).sort();
    expect(pages).toEqual(sessions.map((_, i) => `page-${i}`).sort());
    // The one climbing out is kept in the bundle, under a name of its own.
    expect(filesUnder(base).filter((f) => f.includes('escape') && !f.startsWith(`sessions${sep}project-1${sep}`))).toEqual([]);
  });
});

describe('an --out that cannot be a bundle of its own', () => {
  it('--out . --zip in an empty directory is refused up front (exit 2), saying what to give instead', async () => {
    const here = join(base, 'here');
    mkdirSync(here, { mode: 0o700 });
    const cwd = process.cwd();
    process.chdir(here);
    try {
      const res = await world.run(['persons', 'export', '--email', 'user1@example.com', '--out', '.', '--zip']);
      expect(res.code, res.stderr).toBe(2);
      expect(res.stderr).toContain('--out .');
      expect(res.stderr).toContain('--out ./');
    } finally {
      process.chdir(cwd);
    }
    expect(filesUnder(here)).toEqual([]);
    expect(journalsWithoutReceipt()).toEqual([]);
  });

  it.each([
    ['a directory ending in /.', (d: string) => join(d, 'empty') + '/.'],
    ['a directory ending in /..', (d: string) => join(d, 'empty', 'x') + '/..'],
    ['the root', () => '/'],
  ])('%s is refused as well, with or without --zip (exit 2)', async (_what, outOf) => {
    mkdirSync(join(base, 'empty'), { recursive: true, mode: 0o700 });
    for (const zip of [[], ['--zip']]) {
      const res = await world.run(['persons', 'export', '--email', 'user1@example.com', '--out', outOf(base), ...zip]);
      expect(res.code, res.stderr).toBe(2);
      expect(res.stderr).toMatch(/give --out a directory of its own/);
    }
    expect(filesUnder(join(base, 'empty'))).toEqual([]);
    expect(existsSync(join(base, 'empty.zip'))).toBe(false);
    expect(journalsWithoutReceipt()).toEqual([]);
  });
});

describe('an events page cut short by the server (scaled down: 20 rows of 120)', () => {
  const SUBJECT = 'pages-subject';
  const EVENTS = 120;
  const CUT = 20;
  /** A proxy that cuts every page of the export's events to CUT rows, saying so or not. */
  const cutting = (hasMore: (rest: number) => boolean | null) =>
    startAnswerProxy(world.sandbox.url, {
      answer: (_path, body, request) => {
        const name = (request as { name?: string } | undefined)?.name;
        const res = body as { results?: unknown[]; hasMore?: boolean | null };
        if (name !== 'hogctl export: events' || !Array.isArray(res.results)) return body;
        return { ...res, results: res.results.slice(0, CUT), hasMore: hasMore(res.results.length - CUT) };
      },
    });
  beforeAll(async () => {
    await capture(
      Array.from({ length: EVENTS }, (_, i) => ({
        event: '$pageview',
        distinct_id: SUBJECT,
        timestamp: new Date(world.clock.now() - (EVENTS - i) * 60_000).toISOString(),
        properties: { $current_url: `https://app.example.com/${i}` },
      })),
    );
  });
  const eventsOf = (out: string) => {
    const file = filesUnder(out).find((f) => f.endsWith('events.ndjson.gz'))!;
    return gunzipSync(readFileSync(join(out, file)))
      .toString('utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).uuid as string);
  };

  it('a page that says hasMore: true is followed to the end: every event, once', async () => {
    const proxy = await cutting((rest) => rest > 0);
    try {
      const out = join(base, 'pages-more');
      const res = await world.run(['persons', 'export', '--distinct-id', SUBJECT, '--out', out, '-o', 'json'], {
        env: { HOGCTL_BASE_URL: proxy.url },
      });
      expect(res.code, res.stderr).toBe(0);
      expect(JSON.parse(res.stdout)).toMatchObject({ events: EVENTS });
      const uuids = eventsOf(out);
      expect(uuids).toHaveLength(EVENTS);
      expect(new Set(uuids).size).toBe(EVENTS);
    } finally {
      await proxy.close();
    }
  });

  it('an export that reads fewer events than its plan counted is not reported complete (exit 8)', async () => {
    const proxy = await cutting(() => null);
    try {
      const out = join(base, 'pages-short');
      const res = await world.run(['persons', 'export', '--distinct-id', SUBJECT, '--out', out], {
        env: { HOGCTL_BASE_URL: proxy.url },
      });
      expect(res.code, res.stderr).toBe(8);
      expect(res.stderr).toContain(`${CUT} read of the ${EVENTS} the plan counted (${EVENTS - CUT} missing)`);
      expect(res.stderr).not.toContain('✔');
      const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
      expect(manifest.projects[0].persons[0].not_exported.events).toContain(`${EVENTS - CUT} missing`);
      expect(journalsWithoutReceipt()).toEqual([]);
    } finally {
      await proxy.close();
    }
  });
});
