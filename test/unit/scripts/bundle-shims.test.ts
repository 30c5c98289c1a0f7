// scripts/bundle/shims stand in for node built-ins inside bundled dependencies (see scripts/bundle/substitutions.mjs).
// They must behave as the real modules do wherever those dependencies use them.
import assert from 'node:assert';
import { readdirSync, readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import http from 'node:http';
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

describe('http shim', () => {
  const path = require.resolve('../../../scripts/bundle/shims/http.cjs');
  const shim = require(path);
  const maxHeaderSizeUnder = (nodeArgs: string[], nodeOptions?: string) => {
    const env = { ...process.env, NODE_OPTIONS: nodeOptions ?? '' };
    const res = spawnSync(process.execPath, [...nodeArgs, '-p', `require(${JSON.stringify(path)}).maxHeaderSize`], {
      env,
      encoding: 'utf8',
    });
    expect(res.status, res.stderr).toBe(0);
    return Number(res.stdout);
  };

  it('gives node’s limit of a response’s headers, and the one node’s command line or NODE_OPTIONS sets', () => {
    expect(shim.maxHeaderSize).toBe(http.maxHeaderSize);
    expect(maxHeaderSizeUnder([])).toBe(16384);
    expect(maxHeaderSizeUnder(['--max-http-header-size=32768'])).toBe(32768);
    expect(maxHeaderSizeUnder(['--max_http_header_size=32768'])).toBe(32768);
    expect(maxHeaderSizeUnder([], '--max-http-header-size=65536')).toBe(65536);
    expect(maxHeaderSizeUnder([], '--max-http-header-size 65536')).toBe(65536);
    expect(maxHeaderSizeUnder([], '--max_http_header_size=65536')).toBe(65536);
    expect(maxHeaderSizeUnder([], '"--max-http-header-size=65536"')).toBe(65536);
  });

  it('is all the bundled undici reads of node:http: maxHeaderSize, and IncomingMessage to compare a body’s constructor with', () => {
    const bundled = JSON.parse(readFileSync(join(import.meta.dirname, '../../../dist/undici.cjs.map'), 'utf8')).sources as string[];
    const lib = join(dirname(require.resolve('undici/package.json')), 'lib');
    const users = readdirSync(lib, { recursive: true, encoding: 'utf8' })
      .filter((file) => bundled.some((source) => source.endsWith(`undici/lib/${file.replaceAll('\\', '/')}`)))
      .map((file) => ({ file, source: readFileSync(join(lib, file), 'utf8') }))
      .filter(({ source }) => /require\(['"](node:)?http['"]\)/.test(source));
    expect(users.map(({ file }) => file.replaceAll('\\', '/')).sort()).toEqual(['core/util.js', 'dispatcher/client.js']);
    const client = users.find(({ file }) => file.endsWith('client.js'))!.source;
    expect(new Set([...client.matchAll(/\bhttp\.(\w+)/g)].map((m) => m[1]))).toEqual(new Set(['maxHeaderSize']));
    const util = users.find(({ file }) => file.endsWith('util.js'))!.source;
    expect(util).toContain("const { IncomingMessage } = require('node:http')\n");
    expect([...util.matchAll(/IncomingMessage/g)].length).toBe(2);
    expect(util).toContain('Object.getPrototypeOf(stream).constructor === IncomingMessage');
  });
});
