// What scripts/build.mjs leaves in dist/ (run the build first, as `npm test` does).
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const { WRAPPER } = require('../../../scripts/bundle/code-cache.cjs') as { WRAPPER: { head: string; tail: string } };
const dist = join(import.meta.dirname, '../../../dist');
const bundles = [
  'main.cjs',
  'undici.cjs',
  ...readdirSync(join(dist, 'vendor'))
    .filter((f) => f.endsWith('.cjs'))
    .map((f) => `vendor/${f}`),
];

describe('the bundles', () => {
  it('run in strict mode, as the ES modules they were built from did: "use strict" is their first statement', () => {
    for (const bundle of bundles) {
      const source = readFileSync(join(dist, bundle), 'utf8');
      const body = source.startsWith(WRAPPER.head) ? source.slice(WRAPPER.head.length) : source;
      expect(body.trimStart().slice(0, 12), bundle).toMatch(/^['"]use strict['"]/);
    }
  });

  it('that the bin and the client compile with a code cache are wrapped to be read as they are, and still load with require()', () => {
    for (const bundle of ['main.cjs', 'undici.cjs']) {
      const source = readFileSync(join(dist, bundle), 'latin1');
      expect(source.startsWith(WRAPPER.head), bundle).toBe(true);
      expect(source.includes(`${WRAPPER.tail}\n//# sourceMappingURL=`), bundle).toBe(true);
    }
    expect(typeof require(join(dist, 'main.cjs')).main).toBe('function');
    expect(typeof require(join(dist, 'undici.cjs')).EnvHttpProxyAgent).toBe('function');
  });
});

describe('the terminal width table', () => {
  it('is inside the CLI bundle, and nothing there makes an Intl.Segmenter (loading its ICU data cost a start ~60 ms)', () => {
    const main = readFileSync(join(dist, 'main.cjs'), 'latin1');
    // get-east-asian-width's own error text, bundled; no require of the package at run time.
    expect(main).toContain('Expected a code point, got');
    expect(main).not.toMatch(/require\(["']get-east-asian-width["']\)/);
    expect(main).not.toContain('Intl.Segmenter');
  });
});

describe('the CLI bundle compiled through its code cache', () => {
  it('names itself dist/main.cjs in stack traces, not the folder the build wrote it in', () => {
    // In a process of its own: V8 takes the cache only with the flags it was made with, and
    // other tests in this process may set some (--liftoff-only, for jq).
    const probe = `
      const { loadCompiled } = require(${JSON.stringify(join(import.meta.dirname, '../../../scripts/bundle/code-cache.cjs'))});
      const { exports, status } = loadCompiled(${JSON.stringify(join(dist, 'main.cjs'))});
      let thrown;
      const stdout = { isTTY: false, write: () => { thrown = new Error('written'); throw thrown; } };
      const stderr = { isTTY: false, write: () => true };
      exports.main(['--version'], { io: { stdout, stderr, stdin: process.stdin }, env: {} })
        .then(() => console.log(JSON.stringify({ status, stack: thrown.stack })));
    `;
    const res = spawnSync(process.execPath, ['-e', probe], { encoding: 'utf8' });
    expect(res.status, res.stderr).toBe(0);
    const { status, stack } = JSON.parse(res.stdout) as { status: string; stack: string };
    expect(status).toBe('used');
    const frames = stack.split('\n').filter((line) => line.includes('main.cjs'));
    expect(frames.length).toBeGreaterThan(0);
    for (const frame of frames) expect(frame).toMatch(/[( ]dist[\\/]main\.cjs:\d+:\d+\)?$/);
  });
});
