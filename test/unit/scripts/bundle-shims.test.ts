// scripts/bundle/shims stand in for node built-ins inside bundled dependencies (see scripts/bundle/substitutions.mjs).
// They must behave as the real modules do wherever those dependencies use them.
import assert from 'node:assert';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import http2 from 'node:http2';
import childProcess from 'node:child_process';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);

describe('http2 shim', () => {
  const shim = require('../../../scripts/bundle/shims/http2.cjs');

  it('has every constant undici reads, with node’s values', () => {
    const source = readFileSync(require.resolve('undici/lib/dispatcher/client-h2.js'), 'utf8');
    const block = /const \{\s*constants: \{([^}]*)\}\s*\} = http2/.exec(source);
    expect(block, 'undici no longer destructures http2.constants as expected; review scripts/bundle/shims/http2.cjs').not.toBeNull();
    const names = block![1]
      .split(',')
      .map((n) => n.trim())
      .filter(Boolean);
    expect(names.length).toBeGreaterThan(0);
    for (const name of names) expect(shim.constants[name], name).toBe((http2.constants as Record<string, unknown>)[name]);
  });

  it('connects through the real module, and undici uses nothing else of it', () => {
    expect(shim.connect).toBeTypeOf('function');
    const source = readFileSync(require.resolve('undici/lib/dispatcher/client-h2.js'), 'utf8');
    const used = new Set([...source.matchAll(/\bhttp2\.(\w+)/g)].map((m) => m[1]));
    expect([...used].sort()).toEqual(['connect']);
  });
});

describe('child_process shim', () => {
  it('hands over the real spawn, the only part commander uses', () => {
    const shim = require('../../../scripts/bundle/shims/child-process.cjs');
    expect(shim.spawn).toBe(childProcess.spawn);
    const source = readFileSync(join(dirname(require.resolve('commander')), 'lib/command.js'), 'utf8');
    const used = new Set([...source.matchAll(/\bchildProcess\.(\w+)/g)].map((m) => m[1]));
    expect([...used].sort()).toEqual(['spawn']);
  });
});

describe('assert shim', () => {
  const shim = require('../../../scripts/bundle/shims/assert.cjs');

  it('passes a truthy value and throws node’s AssertionError, with the message, for a falsy one', () => {
    expect(() => shim(1, 'fine')).not.toThrow();
    expect(() => shim(true)).not.toThrow();
    expect(() => shim(0, 'undici invariant')).toThrow(assert.AssertionError);
    expect(() => shim(null, 'undici invariant')).toThrow('undici invariant');
    expect(() => shim(undefined)).toThrow(assert.AssertionError);
  });

  it('is all undici uses: it calls node:assert as a function and reads nothing of it', () => {
    const lib = join(dirname(require.resolve('undici/package.json')), 'lib');
    const users = readdirSync(lib, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.js'))
      .map((file) => ({ file, source: readFileSync(join(lib, file), 'utf8') }))
      .filter(({ source }) => /require\(['"](node:)?assert['"]\)/.test(source));
    expect(users.length).toBeGreaterThan(0);
    for (const { file, source } of users) {
      expect(source, file).toMatch(/const assert = require\('node:assert'\)\n/);
      expect(
        [...source.matchAll(/\bassert\s*\.\s*\w+/g)].map((m) => m[0]),
        file,
      ).toEqual([]);
      expect(source, file).not.toMatch(/require\(['"](node:)?assert['"]\)\s*[.[]/);
    }
  });
});
