// config.json names a current profile that is no longer there (its block deleted by hand), while
// credentials.json still holds that profile's key. The key belongs to the profile's site, which is
// gone with it: it is not read, so it goes neither to HOGCTL_BASE_URL nor to the default site.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { runCli, startWorld, type World } from '../harness.js';

let world: World;
let configDir: string;
let other: Server;
let otherUrl: string;
const seen: { url: string; headers: IncomingHttpHeaders }[] = [];

beforeAll(async () => {
  world = await startWorld({ persons: 5 });
  configDir = mkdtempSync(join(tmpdir(), 'hogctl-dangling-'));
  other = createServer((req, res) => {
    seen.push({ url: req.url ?? '', headers: req.headers });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ results: [], next: null }));
  });
  await new Promise<void>((r) => other.listen(0, 'localhost', () => r()));
  otherUrl = `http://localhost:${(other.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await world.close();
  await new Promise((r) => other.close(r));
  rmSync(configDir, { recursive: true, force: true });
});

describe('a current profile that is gone', () => {
  it('does not send its leftover key to another host', async () => {
    const env = { HOGCTL_CONFIG_DIR: configDir };
    const key = world.sandbox.defaultKey;
    const add = await runCli(['profile', 'add', 'prod', '--base-url', world.sandbox.url, '--project', '1', '--api-key-stdin'], {
      env,
      stdin: `${key}\n`,
    });
    expect(add.code, add.stderr).toBe(0);
    // The profile's block removed by hand; "current" and the key are left.
    const path = join(configDir, 'config.json');
    const config = JSON.parse(readFileSync(path, 'utf8'));
    config.profiles = {};
    writeFileSync(path, JSON.stringify(config), { mode: 0o600 });

    const res = await runCli(['persons', 'list', '--limit', '1', '--project', '1'], { env: { ...env, HOGCTL_BASE_URL: otherUrl } });
    const leaked = seen.filter((r) => String(r.headers.authorization ?? '').includes(key));
    expect(
      leaked.map((r) => r.url),
      res.stderr,
    ).toEqual([]);
    expect(res.code).not.toBe(0);
  });
});
