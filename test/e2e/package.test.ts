// The published package: `npm pack` gives a small tarball that installs on a clean prefix with
// no network (everything is bundled, so it has no runtime dependencies) and runs every command.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cleanEnv } from './harness.js';
import { startSandbox, type Sandbox } from '@hogctl/sandbox';

let work: string;
let tarball: string;
let hogctl: string;
let sandbox: Sandbox;
let installStderr = '';
let manifestRestored = false;

function npm(args: string[], cwd: string): string {
  return execFileSync('npm', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' },
  });
}

function run(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(hogctl, args, { env: cleanEnv({ HOGCTL_CONFIG_DIR: join(work, 'config'), ...env }) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.stdin.end();
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** What `hogctl <path> --help` prints for each path, from the installed package's bundle in one child. */
function helpOfEach(paths: string[]): { path: string; code: number; stdout: string; stderr: string }[] {
  const script = join(work, 'help-of-each.cjs');
  writeFileSync(
    script,
    `'use strict';
const { join } = require('node:path');
const { PassThrough } = require('node:stream');
const pkg = process.argv[2];
const { main } = require(join(pkg, 'dist/code-cache.cjs')).loadCompiled(join(pkg, 'dist/main.cjs')).exports;
const text = () => { const stream = new PassThrough(); stream.text = ''; stream.on('data', (d) => (stream.text += d)); return stream; };
(async () => {
  const out = [];
  for (const path of JSON.parse(require('node:fs').readFileSync(0, 'utf8'))) {
    const [stdout, stderr] = [text(), text()];
    const code = await main([...path.split(' '), '--help'], { io: { stdout, stderr, stdin: process.stdin }, env: process.env });
    out.push({ path, code, stdout: stdout.text, stderr: stderr.text });
  }
  process.stdout.write(JSON.stringify(out));
})();
`,
  );
  const child = spawnSync(process.execPath, [script, realpathSync(join(hogctl, '../../lib/node_modules/hogctl'))], {
    input: JSON.stringify(paths),
    encoding: 'utf8',
    env: cleanEnv({ HOGCTL_CONFIG_DIR: join(work, 'config') }),
    maxBuffer: 64 * 1024 * 1024,
  });
  if (child.status !== 0) throw new Error(`the installed bundle failed: ${child.stderr}`);
  return JSON.parse(child.stdout);
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'hogctl-pack-'));
  // npm pack rebuilds dist/ (prepack): in a copy of the checkout, so that the other test files,
  // which run this checkout's dist/ meanwhile, never meet a half-written bundle.
  const checkout = join(work, 'checkout');
  cpSync(process.cwd(), checkout, { recursive: true, filter: (path) => !/[\\/](node_modules|\.git|dist)$/.test(path) });
  symlinkSync(join(process.cwd(), 'node_modules'), join(checkout, 'node_modules'), 'dir');
  const manifestBefore = readFileSync(join(checkout, 'package.json'), 'utf8');
  const name = npm(['pack', '--pack-destination', work, '--silent'], checkout).trim().split('\n').pop()!;
  tarball = join(work, name);
  const install = spawnSync('npm', ['install', '--global', '--prefix', join(work, 'prefix'), '--offline', tarball], {
    cwd: work,
    encoding: 'utf8',
    env: { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' },
  });
  if (install.status !== 0) throw new Error(`npm install failed: ${install.stderr}`);
  installStderr = install.stderr;
  manifestRestored =
    readFileSync(join(checkout, 'package.json'), 'utf8') === manifestBefore && !existsSync(join(checkout, 'package.json.prepack'));
  hogctl = join(work, 'prefix', 'bin', 'hogctl');
  sandbox = await startSandbox({ persons: 50, quiet: true });
}, 180_000);

afterAll(async () => {
  await sandbox?.close();
  rmSync(work, { recursive: true, force: true });
});

describe('the npm package', () => {
  it('installs with no install-script warning, and packing leaves package.json as it was', () => {
    expect(installStderr).not.toMatch(/install-scripts|prepare/);
    expect(manifestRestored).toBe(true);
  });

  it('is a tarball under 2 MB', () => {
    expect(statSync(tarball).size).toBeLessThan(2 * 1024 * 1024);
  });

  it('installs without the network and answers --version and --help', async () => {
    const res = await run(['--version']);
    expect(res.code).toBe(0);
    expect(res.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    const help = await run(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: hogctl [options] [command]');
  });

  it('shows the help of every command', async () => {
    const res = await run(['completion', 'bash']);
    const paths = [...res.stdout.matchAll(/^ {4}"([a-z0-9 -]+)"\)$/gm)].map((m) => m[1]).filter((p) => p !== '');
    expect(paths.length).toBeGreaterThan(40);
    // One node for all of them: the installed bundle, loaded as the installed bin loads it, gives
    // each command's help. The bin's own path is run above and below; a node start-up for each
    // of ~70 commands cost ~15 s of CPU a run.
    const helps = helpOfEach(paths);
    expect(helps.map((h) => h.path)).toEqual(paths);
    for (const help of helps) {
      expect(help.code, `${help.path}: ${help.stderr}`).toBe(0);
      expect(help.stdout, help.path).toContain(`Usage: hogctl ${help.path}`);
    }
  });

  it('runs commands against the sandbox', async () => {
    const env = { HOGCTL_BASE_URL: sandbox.url, HOGCTL_PROJECT_ID: String(sandbox.projectId), HOGCTL_API_KEY: sandbox.defaultKey };
    const list = await run(['persons', 'list', '--limit', '3', '-o', 'json'], env);
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout)).toHaveLength(3);
    const query = await run(['persons', 'query', 'SELECT id FROM persons LIMIT 2', '-o', 'ndjson'], env);
    expect(query.code).toBe(0);
    expect(query.stdout.trim().split('\n')).toHaveLength(2);
    const missing = await run(['persons', 'get', '999999'], env);
    expect(missing.code).toBe(3);
  });

  it('runs --jq with the jq it ships (dist/jq.wasm), and --template', async () => {
    const env = { HOGCTL_BASE_URL: sandbox.url, HOGCTL_PROJECT_ID: String(sandbox.projectId), HOGCTL_API_KEY: sandbox.defaultKey };
    const uuids = sandbox.store.listUuids(0, 3);
    const jq = await run(['persons', 'list', '--limit', '3', '--jq', '.[].uuid'], env);
    expect(jq.code, jq.stderr).toBe(0);
    expect(jq.stdout).toBe(uuids.map((u) => `${u}\n`).join(''));
    const bad = await run(['persons', 'list', '--jq', '.[] |'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('is not a valid jq expression: jq: error: syntax error');
    const template = await run(['persons', 'list', '--limit', '3', '--template', '{{#each this}}{{uuid}};{{/each}}'], env);
    expect(template.code, template.stderr).toBe(0);
    expect(template.stdout).toBe(uuids.map((u) => `${u};`).join(''));
  });
});
