// The CLI ships as dist/main.cjs and undici as dist/undici.cjs, each with a V8 code cache made by
// the build (scripts/bundle/). On the node that built them the caches are used; anywhere else V8
// refuses them and compiles from source, and commands work the same. Where node has a compile
// cache of its own (22.8 and later, turned on by the bin), a node other than the building one
// loads them through that instead.
import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import module from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type World } from './harness.js';

let world: World;
let copy: string;

beforeAll(async () => {
  world = await startWorld({ persons: 3 });
  copy = mkdtempSync(join(tmpdir(), 'hogctl-code-cache-'));
  for (const part of ['bin', 'dist', 'package.json']) cpSync(part, join(copy, part), { recursive: true });
});

afterAll(async () => {
  await world.close();
  rmSync(copy, { recursive: true, force: true });
});

const getPerson = (bin?: string) => world.run(['persons', 'get', '1', '-o', 'json', '--debug'], { bin });

describe('the code caches of the CLI and of undici', () => {
  it('is used by the node that built it', async () => {
    const res = await getPerson();
    expect(res.code).toBe(0);
    expect(res.stderr).toContain('undici code cache: used');
    expect(res.stderr).toContain('hogctl code cache: used');
    expect(JSON.parse(res.stdout).id).toBe(1);
  });

  it('when NODE_OPTIONS carries a V8 flag, V8 refuses it; the debug line says why without blaming the node version', async () => {
    const res = await world.run(['persons', 'get', '1', '-o', 'json', '--debug'], { env: { NODE_OPTIONS: '--max-old-space-size=4000' } });
    expect(res.code).toBe(0);
    expect(res.stderr).toContain(
      `undici code cache: rejected by V8, which checks its version, its flags (from NODE_OPTIONS or node's command line) and the file: built by node ${process.version}, running ${process.version}; NODE_OPTIONS is set; compiled from source instead`,
    );
    expect(res.stderr).toContain('hogctl code cache: rejected by V8');
    expect(JSON.parse(res.stdout).id).toBe(1);
  });

  it('when V8 refuses it, undici compiles from source and the request works', async () => {
    writeFileSync(join(copy, 'dist/undici.cjs.cache'), Buffer.alloc(4096, 7));
    writeFileSync(join(copy, 'dist/main.cjs.cache'), Buffer.alloc(4096, 7));
    const res = await getPerson(join(copy, 'bin/hogctl.cjs'));
    expect(res.code).toBe(0);
    expect(res.stderr).toContain('undici code cache: rejected');
    expect(res.stderr).toContain('hogctl code cache: rejected');
    expect(JSON.parse(res.stdout).id).toBe(1);
  });

  it('when it is missing, the same', async () => {
    rmSync(join(copy, 'dist/undici.cjs.cache'));
    rmSync(join(copy, 'dist/main.cjs.cache'));
    const res = await getPerson(join(copy, 'bin/hogctl.cjs'));
    expect(res.code).toBe(0);
    expect(res.stderr).toContain('undici code cache: missing');
    expect(res.stderr).toContain('hogctl code cache: missing');
    expect(JSON.parse(res.stdout).id).toBe(1);
  });
});

describe('the CLI and undici on a node other than the one that built them', () => {
  // node 20 has no compile cache: the shipped one stays in use there (V8 takes it, whatever the
  // recorded version says). On node 22.8+ the bin turns node's own on, and undici goes through it.
  const hasCompileCache = typeof (module as { getCompileCacheDir?: unknown }).getCompileCacheDir === 'function';
  let other: string;

  beforeAll(() => {
    other = mkdtempSync(join(tmpdir(), 'hogctl-other-node-'));
    for (const part of ['bin', 'dist', 'package.json']) cpSync(part, join(other, part), { recursive: true });
    writeFileSync(join(other, 'dist/undici.cjs.cache.json'), '{"node":"v0.0.0"}\n');
    writeFileSync(join(other, 'dist/main.cjs.cache.json'), '{"node":"v0.0.0"}\n');
  });

  afterAll(() => {
    rmSync(other, { recursive: true, force: true });
  });

  const getPerson = () => world.run(['persons', 'get', '1', '-o', 'json', '--debug'], { bin: join(other, 'bin/hogctl.cjs') });

  it.skipIf(!hasCompileCache)("goes through node's compile cache, which the bin turns on and the run fills", async () => {
    const res = await getPerson();
    expect(res.code).toBe(0);
    const status = /undici code cache: node's compile cache in (.+) \(the shipped one is for node v0\.0\.0, this is v[\d.]+\)/.exec(
      res.stderr,
    );
    expect(status, res.stderr).not.toBeNull();
    expect(readdirSync(status![1]).length).toBeGreaterThan(0);
    expect(res.stderr).toMatch(/hogctl code cache: node's compile cache in .+ \(the shipped one is for node v0\.0\.0, this is v[\d.]+\)/);
    expect(JSON.parse(res.stdout).id).toBe(1);
  });

  it.skipIf(hasCompileCache)('uses the shipped cache on a node without a compile cache', async () => {
    const res = await getPerson();
    expect(res.code).toBe(0);
    expect(res.stderr).toContain('undici code cache: used');
    expect(res.stderr).toContain('hogctl code cache: used');
    expect(JSON.parse(res.stdout).id).toBe(1);
  });
});
