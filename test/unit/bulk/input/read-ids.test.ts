// The ids reader and validator: formats, streaming across chunk boundaries, and every refusal
// naming its file and line.
import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { detectFormat, InputError, readIds, splitLines, type RawItem, type ReadOptions } from '../../../../src/bulk/input/read-ids.js';
import { classify, collectIds, idListSha256, invalidInputError, listBadValues } from '../../../../src/bulk/input/validate.js';
import { rejection } from '../../helpers.js';

const U1 = '01900000-aaaa-7bbb-8ccc-000000000001';
const U2 = '01900000-aaaa-7bbb-8ccc-000000000002';
const U3 = '01900000-aaaa-7bbb-8ccc-000000000003';

/** The input split into chunks of `size` bytes, to prove nothing depends on where chunks end. */
async function* chunks(data: Buffer | string, size = 1 << 20): AsyncGenerator<Buffer> {
  const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  for (let i = 0; i < buf.length; i += size) yield buf.subarray(i, i + size);
}

async function read(
  data: Buffer | string,
  options: Partial<ReadOptions> = {},
  size?: number,
): Promise<{ items: RawItem[]; format: string }> {
  const gen = readIds(chunks(data, size), { label: 'ids.txt', ...options });
  const items: RawItem[] = [];
  for (;;) {
    const next = await gen.next();
    if (next.done) return { items, format: next.value };
    items.push(...next.value);
  }
}

const values = (items: RawItem[]) => items.map((i) => ('value' in i ? i.value : `!${i.problem}`));

describe("CSV with a header on standard input (hogctl's own -o csv)", () => {
  it('is recognised without an extension, and the uuid (or id) column picked', async () => {
    const csv = `id,uuid,properties.email\n${U1},${U1},a@x.com\n${U2},${U2},"b,c@x.com"\n`;
    const picked: string[] = [];
    const { items, format } = await read(csv, { label: 'stdin', defaultColumns: ['uuid', 'id'], onColumn: (c) => picked.push(c) }, 5);
    expect(format).toBe('csv');
    expect(values(items)).toEqual([U1, U2]);
    expect(picked).toEqual(['uuid']);
    const byId = await read(`id,name,distinct_ids,created_at\n${U3},x,"[""a""]",2025-01-01\n`, {
      label: 'stdin',
      defaultColumns: ['uuid', 'id'],
    });
    expect(values(byId.items)).toEqual([U3]);
    // --column still wins.
    const email = await read(csv, { label: 'stdin', column: 'properties.email', defaultColumns: ['uuid', 'id'] });
    expect(values(email.items)).toEqual(['a@x.com', 'b,c@x.com']);
  });

  it('leaves plain lists alone: an id never looks like a header', async () => {
    expect((await read(`${U1}\n${U2}\n`, { label: 'stdin', defaultColumns: ['uuid'] })).format).toBe('lines');
    expect((await read(`user_1\nuser_2\n`, { label: 'stdin', defaultColumns: ['distinct_id'] })).format).toBe('lines');
    expect((await read(`42,43\n`, { label: 'stdin' })).format).toBe('lines');
  });
});

describe('lines', () => {
  it('ignores blank lines and # comments, tolerates CRLF, a BOM and surrounding spaces', async () => {
    const text = `\uFEFF# erasure batch 7\r\n${U1}\r\n\r\n  ${U2}  \n#${U3}\n${U3}`;
    for (const size of [1, 3, 7, 1 << 20]) {
      const { items, format } = await read(text, {}, size);
      expect(format).toBe('lines');
      expect(items).toEqual([
        { line: 2, value: U1 },
        { line: 4, value: U2 },
        { line: 6, value: U3 },
      ]);
    }
  });

  it('splits lines on byte boundaries that cut multi-byte characters', async () => {
    const out: string[] = [];
    for await (const batch of splitLines(chunks('é€\n𝄞x\n', 1), 'f')) out.push(...batch.map((l) => l.text));
    expect(out).toEqual(['é€', '𝄞x']);
  });

  it('refuses a binary file, naming the line of the NUL byte', async () => {
    const err = await rejection(() => read(Buffer.concat([Buffer.from(`${U1}\n${U2}\nab`), Buffer.from([0, 1, 2]), Buffer.from('\n')])));
    expect(err).toBeInstanceOf(InputError);
    expect(err.message).toBe('ids.txt:3: binary data (a NUL byte): this is not a text file of ids');
    expect(err.exitCode).toBe(2);
  });

  it('refuses invalid UTF-8 and UTF-16 with the line', async () => {
    const bad = await rejection(() => read(Buffer.concat([Buffer.from(`${U1}\n`), Buffer.from([0x61, 0xff, 0xfe, 0x62])])));
    expect(bad.message).toBe('ids.txt:2: not valid UTF-8 text: this looks like a binary file');
    const utf16 = await rejection(() => read(Buffer.from(`\uFEFF${U1}\n`, 'utf16le')));
    expect(utf16.message).toBe('ids.txt:1: the file is UTF-16 text');
  });

  it('refuses an absurd line without holding it whole', async () => {
    const err = await rejection(() => read(`${U1}\n${'a'.repeat(10 * 1024 * 1024)}\n`, {}, 64 * 1024));
    expect(err.message).toBe('ids.txt:2: line longer than 1 MiB: an id is never this long');
  });

  it('refuses --column for a plain list', async () => {
    const err = await rejection(() => read(`${U1}\n`, { format: 'lines', column: 'id' }));
    expect(err.message).toMatch(/^--column picks a column of a CSV file/);
  });
});

describe('CSV', () => {
  it('takes the named column (case-insensitively as a fallback), with quoted fields across lines', async () => {
    const csv = `\uFEFFemail,Person_UUID\r\na@x.com,${U1}\r\n"b\nc@x.com",${U2}\nshort\n`;
    for (const size of [2, 1 << 20]) {
      const { items, format } = await read(csv, { label: 'p.csv', path: 'p.csv', column: 'person_uuid' }, size);
      expect(format).toBe('csv');
      expect(items).toEqual([
        { line: 2, value: U1 },
        { line: 4, value: U2 },
        { line: 5, problem: 'the row has no "person_uuid" column', raw: 'short' },
      ]);
    }
  });

  it('refuses a CSV without the named column, or without --column, listing the columns', async () => {
    const missing = await rejection(() => read(`id,email\n${U1},a@x.com\n`, { label: 'p.csv', path: 'p.csv', column: 'uuid' }));
    expect(missing.message).toBe('p.csv:1: no column "uuid" in the CSV header (columns: "id", "email")');
    const none = await rejection(() => read(`id,email\n${U1},a@x.com\n`, { label: 'p.csv', path: 'p.csv' }));
    expect(none.message).toBe('p.csv:1: a CSV file needs --column <name> to say which column holds the ids (columns: id, email)');
  });

  it('reports a broken CSV with its line', async () => {
    const err = await rejection(() => read(`id\n${U1}\n"unclosed\n`, { label: 'p.csv', path: 'p.csv', column: 'id' }));
    expect(err).toBeInstanceOf(InputError);
    expect(err.message).toMatch(/^p\.csv:3: not valid CSV/);
  });
});

describe('JSON array', () => {
  it('streams strings, integers and (with --column) fields of objects, whatever the chunking', async () => {
    const json = `[\n  "${U1}",\n  42, {"id": "${U2}", "tags": ["a]", {"b": "}"}]},\n  "${U3}"\n]\n`;
    for (const size of [1, 5, 1 << 20]) {
      const plain = await read(json, { label: 'ids.json', path: 'ids.json' }, size);
      expect(plain.format).toBe('json');
      expect(values(plain.items)).toEqual([U1, '42', '!an object, not an id: pass --column <field> to take the id from a field', U3]);
      expect(plain.items.map((i) => i.line)).toEqual([2, 3, 3, 4]);
    }
    const picked = await read(`[{"id":"${U1}"},{"uuid":"x"}]`, { label: 'ids.json', path: 'ids.json', column: 'id' });
    expect(values(picked.items)).toEqual([U1, '!no "id" field']);
  });

  it('reads a 250,000-id array on one line', async () => {
    const ids = Array.from({ length: 250_000 }, (_, i) => `id-${i}`);
    const { items } = await read(JSON.stringify(ids), { label: 'ids.json', path: 'ids.json' }, 64 * 1024);
    expect(items).toHaveLength(250_000);
    expect('value' in items[249_999] && items[249_999].value).toBe('id-249999');
  });

  it('refuses JSON that is not an array, or is cut short, or has text after it', async () => {
    const cases: [string, string][] = [
      ['{"ids": []}', 'ids.json:1: expected a JSON array of ids, found an object'],
      ['\n\n"just a string"', 'ids.json:3: expected a JSON array of ids, found a string'],
      [`["${U1}",\n"${U2}"`, 'ids.json:2: the JSON array is not closed (the file ends before "]")'],
      [`["${U1}"] []`, 'ids.json:1: unexpected text after the end of the JSON array'],
      [`["${U1}",\n]`, 'ids.json:2: invalid JSON: unexpected "]" in the array'],
      [`["${U1}", nope]`, 'ids.json:1: invalid JSON in the array'],
      ['', 'ids.json:1: the file is empty: there are no ids to delete'],
    ];
    for (const [text, message] of cases) {
      const err = await rejection(() => read(text, { label: 'ids.json', path: 'ids.json' }));
      expect(err).toBeInstanceOf(InputError);
      expect(err.message.startsWith(message)).toBe(true);
    }
  });

  it('reads a JSON array saved with a UTF-8 BOM, or starting with a multi-byte character, however it is cut', async () => {
    for (const size of [1, 2, 3, 1 << 20]) {
      const { items } = await read(`\uFEFF["${U1}", "€"]`, { label: 'ids.json', path: 'ids.json' }, size);
      expect(values(items)).toEqual([U1, '€']);
      const err = await rejection(() => read('€', { label: 'ids.json', path: 'ids.json' }, size));
      expect(err.message).toBe('ids.json:1: expected a JSON array of ids, found "€"');
    }
  });

  it('with --column, an object without that field lacks it even when every object inherits the name', async () => {
    const { items } = await read(`[{"id": "${U1}"}, {"constructor": "${U2}"}]`, {
      label: 'ids.json',
      path: 'ids.json',
      column: 'constructor',
    });
    expect(values(items)).toEqual(['!no "constructor" field', U2]);
    const nd = await read(`{"id": "${U1}"}\n`, { label: 'p.ndjson', path: 'p.ndjson', column: 'toString' });
    expect(values(nd.items)).toEqual(['!no "toString" field']);
  });

  it('refuses a binary .json with the line of the bad byte', async () => {
    const err = await rejection(() =>
      read(
        Buffer.concat([Buffer.from(`["${U1}",\n"`), Buffer.from([0xc3, 0x28]), Buffer.from('"]')]),
        { label: 'ids.json', path: 'ids.json' },
        3,
      ),
    );
    expect(err.message).toBe('ids.json:2: not valid UTF-8 text: this looks like a binary file');
  });
});

describe('NDJSON', () => {
  it('reads strings, numbers and objects with --column; a broken line is a bad value', async () => {
    const { items, format } = await read(`"${U1}"\n{"uuid": "${U2}"}\n\n{oops\n7\n`, {
      label: 'p.ndjson',
      path: 'p.ndjson',
      column: 'uuid',
    });
    expect(format).toBe('ndjson');
    expect(values(items)).toEqual([
      `!expected an object with a "uuid" field`,
      U2,
      expect.stringMatching(/^!not valid JSON/),
      '!expected an object with a "uuid" field',
    ]);
    const plain = await read(`"${U1}"\n7\n`, { label: 'p.jsonl', path: 'p.jsonl' });
    expect(values(plain.items)).toEqual([U1, '7']);
  });
});

describe('detectFormat', () => {
  it('follows --format, then the extension, then the first character', () => {
    const none = Buffer.alloc(0);
    expect(detectFormat({ format: 'ndjson', path: 'a.csv' }, none)).toBe('ndjson');
    expect(detectFormat({ path: 'a.CSV' }, none)).toBe('csv');
    expect(detectFormat({ path: 'a.tsv' }, none)).toBe('csv');
    expect(detectFormat({ path: 'a.json' }, none)).toBe('json');
    expect(detectFormat({ path: 'a.jsonl' }, none)).toBe('ndjson');
    expect(detectFormat({ path: 'a.txt' }, Buffer.from('\uFEFF  [1]'))).toBe('json');
    expect(detectFormat({}, Buffer.from('{"id":1}'))).toBe('ndjson');
    expect(detectFormat({}, Buffer.from(U1))).toBe('lines');
    // Strings, a line each (jq '.uuid' on standard input): NDJSON, not ids with quotes around them.
    expect(detectFormat({}, Buffer.from(`"${U1}"\r\n"${U2}"\n`))).toBe('ndjson');
    expect(detectFormat({}, Buffer.from('"id","email"\n'))).toBe('csv');
    expect(detectFormat({}, Buffer.from('"unclosed\n'))).toBe('lines');
    expect(detectFormat({ column: 'id' }, Buffer.from('id,email'))).toBe('csv');
  });
});

describe('validation', () => {
  it('keeps UUIDs (lower case) and integer ids, refuses anything else unless distinct ids', () => {
    expect(classify(` ${U1.toUpperCase()} `, 'person_ids')).toEqual({ id: U1 });
    expect(classify('0042', 'person_ids')).toEqual({ id: '42' });
    expect(classify('0', 'person_ids')).toEqual({ reason: 'not a valid person id (integer ids start at 1)' });
    expect(classify('user-881', 'person_ids')).toEqual({ reason: 'not a person UUID or integer id' });
    expect(classify('-3', 'person_ids')).toEqual({ reason: 'not a person UUID or integer id' });
    expect(classify('user-881', 'distinct_ids')).toEqual({ id: 'user-881' });
    expect(classify(U1.toUpperCase(), 'distinct_ids')).toEqual({ id: U1.toUpperCase() });
    expect(classify('', 'distinct_ids')).toEqual({ reason: 'empty' });
  });

  it('drops and counts duplicates, lists bad values with file and line, and hashes the sorted list', async () => {
    const text = `${U2}\n${U1}\n${U2.toUpperCase()}\nnope\n17\n017\n${'x'.repeat(100)}\n`;
    const list = await collectIds(readIds(chunks(text), { label: 'ids.txt' }), { kind: 'person_ids', label: 'ids.txt' });
    expect([...list.ids]).toEqual([U2, U1, '17']);
    expect(list).toMatchObject({ requested: 7, duplicates: 2, invalidCount: 2, integerCount: 1, format: 'lines' });
    expect(list.invalid).toEqual([
      { file: 'ids.txt', line: 4, value: 'nope', reason: 'not a person UUID or integer id' },
      { file: 'ids.txt', line: 7, value: 'x'.repeat(100), reason: 'not a person UUID or integer id' },
    ]);
    expect(listBadValues(list)).toBe(
      `  ids.txt:4: "nope": not a person UUID or integer id\n  ids.txt:7: "${'x'.repeat(60)}…": not a person UUID or integer id`,
    );
    const err = invalidInputError(list, 'ids.txt');
    expect(err.exitCode).toBe(2);
    expect(err.message.split('\n')[0]).toBe('2 invalid values in ids.txt; nothing was sent:');
    expect(err.hint).toMatch(/--distinct-ids/);
    // The same digest as `LC_ALL=C sort -u | sha256sum` over the unique ids.
    const shell = execFileSync('sh', ['-c', 'LC_ALL=C sort -u | sha256sum'], { input: `${U2}\n${U1}\n17\n${U1}\n` })
      .toString()
      .split(' ')[0];
    expect(list.sha256).toBe(shell);
    expect(idListSha256([U1, '17', U2])).toBe(shell);
  });

  it('lists at most 20 bad values, then how many more', async () => {
    const text = Array.from({ length: 45 }, (_, i) => `bad-${i}`).join('\n');
    const list = await collectIds(readIds(chunks(text), { label: 'b.txt' }), { kind: 'person_ids', label: 'b.txt' });
    const lines = listBadValues(list).split('\n');
    expect(lines).toHaveLength(21);
    expect(lines[0]).toBe('  b.txt:1: "bad-0": not a person UUID or integer id');
    expect(lines[20]).toBe('  … and 25 more');
  });
});
