// What scripts/build.mjs leaves in dist/ (run the build first, as `npm test` does).
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

describe('the CLI bundle compiled through its code cache', () => {
  it('names itself dist/main.cjs in stack traces, not the folder the build wrote it in', async () => {
    const { loadCompiled } = require('../../../scripts/bundle/code-cache.cjs') as {
      loadCompiled: (file: string) => { exports: { main: (argv: string[], deps: object) => Promise<number> }; status: string };
    };
    const { exports, status } = loadCompiled(join(dist, 'main.cjs'));
    expect(status).toBe('used');
    let thrown: Error | undefined;
    const stdout = {
      isTTY: false,
      write: () => {
        thrown = new Error('written');
        throw thrown;
      },
    };
    await exports.main(['--version'], { io: { stdout, stderr: { isTTY: false, write: () => true }, stdin: process.stdin }, env: {} });
    const frames = thrown!.stack!.split('\n').filter((line) => line.includes('main.cjs'));
    expect(frames.length).toBeGreaterThan(0);
    for (const frame of frames) expect(frame).toMatch(/[( ]dist[\\/]main\.cjs:\d+:\d+\)?$/);
  });
});
