// A profile's key goes only to the site it was saved for (ARCHITECTURE.md §5; settings.ts
// checkKeyDestination holds every command to it). `profile add <existing> --base-url <another
// site>` neither sends the saved key to the new site (to check it) nor saves it with it; and a
// "current" naming a profile removed by hand, whose key credentials.json still holds, sends that
// key nowhere.
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
  configDir = mkdtempSync(join(tmpdir(), 'hogctl-other-site-'));
  other = createServer((req, res) => {
    seen.push({ url: req.url ?? '', headers: req.headers });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ id: 1, name: 'x', scopes: ['*'], label: 'k', uuid: 'u', results: [], next: null }));
  });
  await new Promise<void>((r) => other.listen(0, 'localhost', () => r()));
  otherUrl = `http://localhost:${(other.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await world.close();
  await new Promise((r) => other.close(r));
  rmSync(configDir, { recursive: true, force: true });
});

describe('profile add over a saved profile, pointed at another site', () => {
  it('does not send the stored key of the old host to the new one', async () => {
    const env = { HOGCTL_CONFIG_DIR: configDir };
    const key = world.sandbox.defaultKey;
    const add = await runCli(['profile', 'add', 'prod', '--base-url', world.sandbox.url, '--project', '1', '--api-key-stdin'], {
      env,
      stdin: `${key}\n`,
    });
    expect(add.code, add.stderr).toBe(0);
    // Any other command refuses to send the stored key to another host:
    const refused = await runCli(['--base-url', otherUrl, 'persons', 'list', '--limit', '1'], { env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('refusing to send the API key of profile "prod"');
    expect(seen.length).toBe(0);

    // Pointed at another site with no key: refused, nothing sent, the profile as it was.
    for (const verify of [[], ['--no-verify']]) {
      const repoint = await runCli(['profile', 'add', 'prod', '--base-url', otherUrl, '--project', '1', '--yes', ...verify], {
        env,
        stdin: '',
      });
      expect(repoint.code, repoint.stderr).toBe(2);
      expect(repoint.stderr).toContain('missing --api-key-stdin');
    }
    expect(seen).toEqual([]);
    const kept = await runCli(['persons', 'list', '--limit', '1'], { env });
    expect(kept.code, kept.stderr).toBe(0);
  });
});

describe('a current profile that is gone', () => {
  it('does not send its leftover key to another host', async () => {
    const env = { HOGCTL_CONFIG_DIR: mkdtempSync(join(configDir, 'dangling-')) };
    const key = world.sandbox.defaultKey;
    const add = await runCli(['profile', 'add', 'prod', '--base-url', world.sandbox.url, '--project', '1', '--api-key-stdin'], {
      env,
      stdin: `${key}\n`,
    });
    expect(add.code, add.stderr).toBe(0);
    // The profile's block removed by hand; "current" and the key are left.
    const path = join(env.HOGCTL_CONFIG_DIR, 'config.json');
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
