// A verb loads only what it uses: `persons get` (one GET, printed as JSON) must not load node's
// ES module loader, nor the built-ins that only other commands need. Each costs every command
// start-up time (`npm run bench`, the start-up section). What node loads is read from
// `process.moduleLoadList` at exit, and compared with what bare node loads on its own.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type World } from './harness.js';

let world: World;
let dir: string;
let preload: string;

beforeAll(async () => {
  world = await startWorld({ persons: 3 });
  dir = mkdtempSync(join(tmpdir(), 'hogctl-modules-'));
  preload = join(dir, 'record-modules.cjs');
  writeFileSync(
    preload,
    `process.on('exit', () => require('node:fs').writeFileSync(process.env.MODULES_OUT, JSON.stringify([...process.moduleLoadList, ...Object.keys(require.cache)])));\n`,
  );
});

afterAll(async () => {
  await world.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The built-in modules and the CommonJS files a process loaded, `--require`d through NODE_OPTIONS. */
async function modulesOf(run: (env: Record<string, string>) => Promise<unknown> | unknown, name: string): Promise<Set<string>> {
  const out = join(dir, `${name}.json`);
  await run({ NODE_OPTIONS: `--require ${preload}`, MODULES_OUT: out });
  return new Set(JSON.parse(readFileSync(out, 'utf8')) as string[]);
}

describe('persons get -o json', () => {
  it('loads neither the ES module loader nor built-ins that one GET does not use', async () => {
    const bare = await modulesOf((env) => spawnSync(process.execPath, ['-e', '0'], { env: { ...process.env, ...env } }), 'bare');
    let stdout = '';
    const loaded = await modulesOf(async (env) => {
      const res = await world.run(['persons', 'get', '1', '-o', 'json'], { env });
      expect(res.code, res.stderr).toBe(0);
      stdout = res.stdout;
    }, 'persons-get');
    expect(JSON.parse(stdout).id).toBe(1);
    const unwanted = [
      // the ES module loader: the bundle is CommonJS, compiled through its code cache
      'NativeModule internal/modules/esm/module_job',
      'NativeModule internal/modules/esm/translators',
      // fs/promises, readline, fs watchers: bulk commands' journals and receipts
      'NativeModule internal/fs/promises',
      'NativeModule internal/readline/interface',
      // assertions inside undici
      'NativeModule assert',
      // node's own HTTP client and server: undici speaks HTTP itself
      'NativeModule http',
      'NativeModule _http_agent',
    ];
    expect(unwanted.filter((name) => loaded.has(name) && !bare.has(name))).toEqual([]);
  });

  it('loads no package that only other commands use; --template loads Handlebars from its own file', async () => {
    const vendor = (files: Set<string>) =>
      [...files].filter((file) => /[\\/]dist[\\/]vendor[\\/]/.test(file)).map((file) => basename(file));
    const plain = await modulesOf(async (env) => {
      const res = await world.run(['persons', 'get', '1', '-o', 'json'], { env });
      expect(res.code, res.stderr).toBe(0);
    }, 'plain');
    expect(vendor(plain)).toEqual([]);
    const templated = await modulesOf(async (env) => {
      const res = await world.run(['persons', 'get', '1', '--template', '{{id}}'], { env });
      expect(res.code, res.stderr).toBe(0);
      expect(res.stdout.trim()).toBe('1');
    }, 'templated');
    expect(vendor(templated)).toEqual(['handlebars.cjs']);
  });
});
