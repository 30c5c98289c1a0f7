// Reliability: a host that is not PostHog. A sign-in portal, a proxy's page or a parked domain
// answers 200 with HTML, or redirects; before, hogctl read those as success ("✔ deleted", "no
// persons matched", a bulk-delete receipt saying "completed"). Every command must fail with exit
// 7 and say the host does not look like a PostHog API, and no receipt may claim a deletion.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type RunResult } from '../cli/harness.js';

const KEY = 'phx_notposthogtestkey0000000000000000000000';
const UUID = '01900000-aaaa-7bbb-8ccc-000000000001';

interface Site {
  url: string;
  hits: { method: string; path: string }[];
  close(): Promise<void>;
}

async function startSite(answer: (req: http.IncomingMessage, res: http.ServerResponse, url: string) => void): Promise<Site> {
  const hits: Site['hits'] = [];
  let url = '';
  const server = http.createServer((req, res) => {
    hits.push({ method: req.method ?? '', path: req.url ?? '' });
    req.resume();
    req.on('end', () => answer(req, res, url));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const LOGIN_PAGE = '<!DOCTYPE html><html><head><title>Sign in · Example SSO</title></head><body><form>…</form></body></html>';

let dir: string;
let ids: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'hogctl-not-posthog-'));
  ids = join(dir, 'ids.txt');
  writeFileSync(ids, `${UUID}\n01900000-aaaa-7bbb-8ccc-000000000002\n`);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(site: Site, args: string[]): Promise<RunResult> {
  return runCli(args, {
    env: {
      HOGCTL_BASE_URL: site.url,
      HOGCTL_API_KEY: KEY,
      HOGCTL_PROJECT_ID: '1',
      HOGCTL_CONFIG_DIR: join(dir, 'config'),
      HOGCTL_NO_INPUT: '1',
    },
  });
}

/** Every command that talks to the API with a key, with what it needs to get as far as sending. */
const COMMANDS: string[][] = [
  ['projects', 'list'],
  ['persons', 'list'],
  ['persons', 'list', '--all', '-o', 'ndjson'],
  ['persons', 'get', UUID],
  ['persons', 'get', '42'],
  ['persons', 'update', UUID, '--set', 'plan=team'],
  ['persons', 'delete', UUID, '--yes'],
  ['persons', 'set-prop', UUID, 'plan', 'team'],
  ['persons', 'unset-prop', UUID, 'plan'],
  ['persons', 'delete-events', UUID, '--yes'],
  ['persons', 'delete-recordings', UUID, '--yes'],
  ['persons', 'split', UUID, '--main-distinct-id', 'user-1', '--yes'],
  ['persons', 'activity', UUID],
  ['persons', 'cohorts', UUID],
  ['persons', 'deletion-status'],
  ['persons', 'query', 'select id from persons limit 3'],
  ['persons', 'reset-distinct-id', 'user-1'],
  ['users', 'me'],
  ['api', 'GET', '/api/projects/1/persons/'],
];

describe('a host answering 200 with an HTML page on every path', () => {
  let site: Site;
  beforeAll(async () => {
    site = await startSite((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      res.end(LOGIN_PAGE);
    });
  });
  afterAll(() => site.close());

  it.each(COMMANDS.map((args) => [args.join(' '), args]))('%s exits 7 and says it is not a PostHog API', async (_name, args) => {
    const res = await run(site, args as string[]);
    expect(res.stderr).toMatch(
      /^error: 127\.0\.0\.1:\d+ answered \w+ \/\S* with 200 text\/html \("Sign in · Example SSO"\): this does not look like a PostHog API$/m,
    );
    expect(res.stderr).toMatch(/check --base-url/);
    expect(res.stderr).not.toMatch(/✔|deleted|accepted|unexpected failure/);
    expect(res.code).toBe(7);
  });

  it('bulk-delete stops before it sends anything, and claims no deletion', async () => {
    const receipt = join(dir, 'receipt-html.json');
    const before = site.hits.length;
    const res = await run(site, [
      'persons',
      'bulk-delete',
      '--file',
      ids,
      '--yes',
      '--receipt',
      receipt,
      '--journal',
      join(dir, 'journal-html'),
    ]);
    expect(res.code).toBe(7);
    expect(res.stderr).toMatch(/this does not look like a PostHog API/);
    expect(res.stderr).not.toMatch(/completed/);
    // The key's scopes are asked for before the first chunk: that answer already shows it is not PostHog.
    expect(res.stderr).toMatch(/answered GET \/api\/personal_api_keys\/@current\/ with 200 text\/html .*; nothing was sent/);
    expect(site.hits.slice(before).filter((h) => h.path.includes('bulk_delete'))).toHaveLength(0);
    if (existsSync(receipt)) {
      const r = JSON.parse(readFileSync(receipt, 'utf8'));
      expect(r.status).not.toBe('completed');
      expect(r.persons_deleted ?? 0).toBe(0);
    }
  });
});

describe('a host answering 200 with JSON of the wrong shape ({}) on every path', () => {
  let site: Site;
  beforeAll(async () => {
    site = await startSite((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{}');
    });
  });
  afterAll(() => site.close());

  // `hogctl api` prints whatever JSON comes back: it knows no shape to expect.
  it.each(COMMANDS.filter((args) => args[0] !== 'api').map((args) => [args.join(' '), args]))(
    '%s exits 7 and says it is not a PostHog API',
    async (_name, args) => {
      const res = await run(site, args as string[]);
      expect(res.stderr).toMatch(/this does not look like a PostHog API/);
      expect(res.stderr).not.toMatch(/✔|accepted|unexpected failure/);
      expect(res.code).toBe(7);
    },
  );

  it('bulk-delete claims no deletion', async () => {
    const receipt = join(dir, 'receipt-json.json');
    const res = await run(site, [
      'persons',
      'bulk-delete',
      '--file',
      ids,
      '--yes',
      '--receipt',
      receipt,
      '--journal',
      join(dir, 'journal-json'),
    ]);
    expect(res.code).toBe(7);
    expect(res.stderr).toMatch(/this does not look like a PostHog API/);
    if (existsSync(receipt)) expect(JSON.parse(readFileSync(receipt, 'utf8')).counts.sent).toBe(0);
  });
});

describe('other answers PostHog never gives', () => {
  it('200 with an empty body is not a success', async () => {
    const site = await startSite((_req, res) => {
      res.writeHead(200);
      res.end();
    });
    try {
      const res = await run(site, ['persons', 'delete', UUID, '--yes']);
      expect(res.code).toBe(7);
      expect(res.stderr).toMatch(
        /answered POST \/api\/projects\/1\/persons\/bulk_delete\/ with 200 and an empty body: this does not look like a PostHog API/,
      );
    } finally {
      await site.close();
    }
  });

  it('JSON without a page of results is not "no persons matched"', async () => {
    const site = await startSite((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{"status": "ok"}');
    });
    try {
      const res = await run(site, ['persons', 'list']);
      expect(res.code).toBe(7);
      expect(res.stderr).toMatch(/with JSON that is not a page of results: this does not look like a PostHog API/);
      expect(res.stderr).not.toMatch(/no persons/);
    } finally {
      await site.close();
    }
  });
});

describe('a redirect', () => {
  it('to the https:// site says to use that base URL', async () => {
    const site = await startSite((req, res, url) => {
      res.writeHead(301, { Location: `${url.replace('http://', 'https://')}${req.url}` });
      res.end();
    });
    try {
      const res = await run(site, ['persons', 'list']);
      expect(res.code).toBe(7);
      expect(res.stderr).toMatch(
        /^error: 127\.0\.0\.1:\d+ redirected GET \/api\/projects\/1\/persons\/ \(301\) to https:\/\/127\.0\.0\.1:\d+\/api\/projects\/1\/persons\/\?limit=\d+: PostHog's API does not redirect$/m,
      );
      expect(res.stderr).toMatch(/the site wants https: use --base-url https:\/\/127\.0\.0\.1:\d+/);
      expect(res.stderr).not.toContain(KEY);
    } finally {
      await site.close();
    }
  });

  it('to a sign-in page says a portal answers instead of PostHog, and bulk-delete stops at once', async () => {
    const site = await startSite((_req, res) => {
      res.writeHead(302, { Location: 'https://sso.example.com/login?next=/' });
      res.end();
    });
    try {
      const res = await run(site, [
        'persons',
        'bulk-delete',
        '--file',
        ids,
        '--yes',
        '--receipt',
        join(dir, 'receipt-302.json'),
        '--journal',
        join(dir, 'journal-302'),
      ]);
      expect(res.code).toBe(7);
      expect(res.stderr).toMatch(
        /redirected GET \/api\/personal_api_keys\/@current\/ \(302\) to https:\/\/sso\.example\.com\/login\?next=\/: PostHog's API does not redirect/,
      );
      expect(res.stderr).toMatch(/a sign-in page or proxy answers instead of PostHog/);
      expect(site.hits.filter((h) => h.path.includes('bulk_delete'))).toHaveLength(0);
    } finally {
      await site.close();
    }
  });
});
