// `next` links from a PostHog behind a TLS proxy without IS_BEHIND_PROXY point to another scheme
// or port than the site (docs/server-contract.md §2.2). The same path and query on the configured origin is
// the page meant: hogctl follows that, with its credentials, and says so once under --debug.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type World } from '../harness.js';

let world: World;
beforeAll(async () => {
  // Port 9 (discard) has nothing listening here: a link followed as given goes nowhere.
  world = await startWorld({ persons: 250, seed: 3, linkOrigin: 'http://127.0.0.1:9' });
});
afterAll(() => world.close());

describe('next links with another scheme or port', () => {
  it('persons list --all follows their path and query on the configured origin and gets every person', async () => {
    const res = await world.run(['persons', 'list', '--all', '--page-size', '100', '-o', 'ndjson', '--debug']);
    expect(res.code, res.stderr).toBe(0);
    const ids = res.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).id);
    expect(new Set(ids).size).toBe(250);
    const notes = res.stderr.split('\n').filter((l) => l.includes("the server's links point to http://127.0.0.1:9"));
    expect(notes).toHaveLength(1);
    expect(notes[0]).toContain(`following their path and query on ${world.sandbox.url}`);
    expect(res.stderr).not.toContain(world.env.HOGCTL_API_KEY);
    // Every page was asked of the sandbox itself, with the key.
    const pages = world.sandbox.requests.filter((r) => r.method === 'GET' && r.path === '/api/projects/1/persons/');
    expect(pages.length).toBeGreaterThanOrEqual(3);
  });
});

describe('next links to another host', () => {
  let elsewhere: World;
  beforeAll(async () => {
    // What a PostHog behind a proxy without IS_BEHIND_PROXY hands out: its upstream's name.
    elsewhere = await startWorld({ persons: 250, seed: 3, linkOrigin: 'http://posthog-web:8000' });
  });
  afterAll(() => elsewhere.close());

  it('persons list --all prints the first page, then stops at once naming the link host and what to check (exit 7)', async () => {
    const res = await elsewhere.run(['persons', 'list', '--all', '--page-size', '100', '-o', 'ndjson']);
    expect(res.code).toBe(7);
    expect(res.stdout.trim().split('\n')).toHaveLength(100);
    const host = new URL(elsewhere.sandbox.url).host;
    expect(res.stderr).toContain(
      `error: the server's next page is at posthog-web:8000, not ${host}: the server handed out links to another host, so paging stops without sending anything there`,
    );
    expect(res.stderr).toContain("check the server's SITE_URL and proxy settings");
    expect(res.stderr).not.toContain('retrying');
    // One page asked for, of the sandbox; nothing tried again.
    expect(elsewhere.sandbox.requests.filter((r) => r.path === '/api/projects/1/persons/')).toHaveLength(1);
  });
});
