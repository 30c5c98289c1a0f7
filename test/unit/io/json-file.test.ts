// A receipt of ten million ids is longer than V8 can hold in one string (2^29 - 24 characters):
// it is read a piece at a time, and its id lists kept compactly.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { IdSet } from '../../../src/bulk/input/id-set.js';
import { JsonSyntaxError, parseJsonText, readJsonFile } from '../../../src/io/json-file.js';

const dir = mkdtempSync(join(tmpdir(), 'hogctl-json-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The text in pieces of `size` characters. */
const pieces = (text: string, size: number) => {
  let at = 0;
  return () => (at >= text.length ? undefined : text.slice(at, (at += size)));
};

describe('parseJsonText', () => {
  it('reads a text longer than any string can be, never holding it whole', () => {
    // 2^29 characters of white space around a value: JSON.parse cannot even be given this text.
    const MAX_STRING = 2 ** 29;
    const block = ' '.repeat(1 << 20);
    const parts = [
      '{"command": "persons bulk-delete", "projects": [{"ids_sent": ["0190ffff-0000-7000-8000-000000000001"]}]',
      ...Array.from({ length: MAX_STRING / block.length + 1 }, () => block),
      '}',
    ];
    let at = 0;
    const value = parseJsonText(() => parts[at++]) as { command: string; projects: unknown[] };
    expect(value.command).toBe('persons bulk-delete');
    expect(value.projects).toEqual([{ ids_sent: ['0190ffff-0000-7000-8000-000000000001'] }]);
  }, 60_000);

  it('builds what JSON.parse builds, however the text is cut', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.integer({ min: 1, max: 7 }), fc.boolean(), (value, size, pretty) => {
        const text = pretty ? JSON.stringify(value, null, 2) : JSON.stringify(value);
        expect(parseJsonText(pieces(text, size))).toEqual(JSON.parse(text));
      }),
      { numRuns: 300 },
    );
  });

  it('reads escapes cut anywhere: quotes, backslashes before a quote, surrogate pairs', () => {
    const value = { a: 'x\\', b: '\\"', c: 'q"\\\\"', d: '😀\u2028\n', e: ['\\\\', '"'] };
    const text = JSON.stringify(value);
    for (let size = 1; size < 6; size++) expect(parseJsonText(pieces(text, size))).toEqual(value);
  });

  it('does not repeat a word of a file that is not JSON: it may be a key given by mistake', () => {
    const key = '4d71c841'.repeat(8);
    const messageOf = (text: string) => {
      try {
        parseJsonText(pieces(text, 5));
      } catch (err) {
        expect(err).toBeInstanceOf(JsonSyntaxError);
        return (err as Error).message;
      }
      return 'read as JSON';
    };
    for (const text of [key, `{"a": ${key}}`, `[1, ${key}]`]) {
      expect(messageOf(text), text).toBe('a word without quotes where a value was expected');
    }
  });

  it('refuses what is not JSON', () => {
    for (const bad of ['{', '{"a" 1}', '[1,]', '"open', 'nul', '{"a":1} 2', '["\\x"]', '"tab\there"', '01'])
      expect(() => parseJsonText(pieces(bad, 2)), bad).toThrow(JsonSyntaxError);
  });
});

describe('readJsonFile', () => {
  it('keeps the lists named compact in an IdSet, in order, and reads the rest as JSON.parse', () => {
    const ids = ['0190ffff-0000-7000-8000-000000000002', 'user-1971', '0190ffff-0000-7000-8000-000000000001'];
    const receipt = { projects: [{ project: '2', ids_sent: ids, distinct_ids: ['a'] }], unresolved: ['x'] };
    const path = join(dir, 'receipt.json');
    writeFileSync(path, `${JSON.stringify(receipt, null, 2)}\n`);
    const read = readJsonFile(path, { compact: new Set(['ids_sent']), block: 7 }) as typeof receipt;
    expect(read.projects[0].ids_sent).toBeInstanceOf(IdSet);
    expect([...read.projects[0].ids_sent]).toEqual(ids);
    expect({ ...read, projects: [{ ...read.projects[0], ids_sent: [...read.projects[0].ids_sent] }] }).toEqual(receipt);
  });
});
