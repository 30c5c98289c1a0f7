// Properties of the ids reader and validator: whatever ids are written in a supported format (and
// however the bytes arrive in chunks), reading gives back exactly those ids, in order, on their
// lines; and no input, however broken, makes it throw anything but a usage error (exit 2).
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { binaryText } from '../../binary-text.js';
import { InputError, readIds, type IdsFormat, type RawItem, type ReadOptions } from '../../../../src/bulk/input/read-ids.js';
import { collectIds, type IdKind } from '../../../../src/bulk/input/validate.js';
import { UsageError } from '../../../../src/errors.js';

const RUNS = 150;
const BOM = '\uFEFF';

/** The bytes, cut at the given offsets, so that nothing may depend on where chunks end. */
async function* cutAt(bytes: Buffer, cuts: number[]): AsyncGenerator<Buffer> {
  const points = [...new Set(cuts.map((c) => (bytes.length ? c % bytes.length : 0)))].sort((a, b) => a - b);
  let start = 0;
  for (const p of points) {
    if (p > start) yield bytes.subarray(start, p);
    start = Math.max(start, p);
  }
  if (start < bytes.length || bytes.length === 0) yield bytes.subarray(start);
}

async function readAll(bytes: Buffer, cuts: number[], options: ReadOptions): Promise<{ items: RawItem[]; format: IdsFormat }> {
  const gen = readIds(cutAt(bytes, cuts), options);
  const items: RawItem[] = [];
  for (;;) {
    const next = await gen.next();
    if (next.done) return { items, format: next.value };
    items.push(...next.value);
  }
}

const cuts = fc.array(fc.nat({ max: 4096 }), { maxLength: 12 });
const eol = fc.constantFrom('\n', '\r\n');
/** Text on one line: any Unicode except the line break and NUL (which means a binary file). */
const oneLine = (min = 0, max = 30) =>
  fc.string({ unit: 'grapheme', minLength: min, maxLength: max }).filter((s) => !s.includes('\n') && !s.includes('\0'));
const pad = fc.constantFrom('', ' ', '  ', '\t', ' \t');

describe('plain lines', () => {
  type Entry = { kind: 'id'; text: string; value: string } | { kind: 'blank' | 'comment'; text: string };
  const idEntry = fc
    .tuple(pad, oneLine(1), pad)
    .map(([a, s, b]) => ({ kind: 'id' as const, text: `${a}${s}${b}`, value: `${a}${s}${b}`.trim() }))
    .filter((e) => e.value !== '' && !e.value.startsWith('#'));
  const blank = pad.map((text) => ({ kind: 'blank' as const, text }));
  const comment = fc.tuple(pad, oneLine()).map(([a, s]) => ({ kind: 'comment' as const, text: `${a}#${s}` }));
  const entries = fc.array(fc.tuple(fc.oneof({ weight: 4, arbitrary: idEntry }, blank, comment), eol), { maxLength: 40 });

  it('gives back every id, trimmed, with its line; blank lines and # comments skipped; any CRLF/LF mix, BOM and chunking', async () => {
    await fc.assert(
      fc.asyncProperty(entries, fc.boolean(), fc.boolean(), fc.boolean(), cuts, async (list, bom, lastEol, explicit, at) => {
        let text = bom ? BOM : '';
        list.forEach(([e, end], i) => (text += e.text + (i < list.length - 1 || lastEol ? end : '')));
        // Without --format, a file starting with [ or { is read as JSON (documented sniffing).
        if (!explicit) fc.pre(!/^[[{]/.test(/\S.*/s.exec(text.replace(/^\uFEFF/, ''))?.[0] ?? ''));
        const { items, format } = await readAll(Buffer.from(text, 'utf8'), at, {
          label: 'ids.txt',
          path: 'ids.txt',
          format: explicit ? 'lines' : undefined,
        });
        const expected = list.flatMap(([e], i) => (e.kind === 'id' ? [{ line: i + 1, value: (e as Entry & { kind: 'id' }).value }] : []));
        expect(format).toBe('lines');
        expect(items).toEqual(expected);
      }),
      { numRuns: RUNS },
    );
  });
});

describe('CSV', () => {
  /** Quoted as RFC 4180 says when it must be, and sometimes when it need not be. */
  const field = (value: string, quote: boolean) => (quote || /[",\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value);
  // A CSV value may hold line breaks inside quotes; CR is left out because the reader
  // normalises line ends (an id never holds one).
  const cell = fc.string({ unit: 'grapheme', maxLength: 20 }).filter((s) => !s.includes('\r') && !s.includes('\0'));
  const header = fc
    .uniqueArray(
      cell.map((s) => s.trim()).filter((s) => s !== ''),
      { minLength: 1, maxLength: 5, selector: (s) => s.toLowerCase() },
    )
    .chain((names) => fc.record({ names: fc.constant(names), idColumn: fc.nat({ max: names.length - 1 }) }));

  it('gives back the named column of every row, whatever the other columns hold and however fields are quoted', async () => {
    await fc.assert(
      fc.asyncProperty(
        header.chain(({ names, idColumn }) =>
          fc.record({
            names: fc.constant(names),
            idColumn: fc.constant(idColumn),
            rows: fc.array(
              fc.tuple(
                fc.array(fc.tuple(cell, fc.boolean()), { minLength: names.length, maxLength: names.length }),
                cell.filter((s) => s !== ''),
                eol,
              ),
              { maxLength: 25 },
            ),
          }),
        ),
        fc.boolean(),
        eol,
        cuts,
        async ({ names, idColumn, rows }, bom, headerEol, at) => {
          let text = (bom ? BOM : '') + names.map((n) => field(n, false)).join(',') + headerEol;
          for (const [cells, id, end] of rows) {
            const values = cells.map(([v, q]) => field(v, q));
            values[idColumn] = field(id, false);
            text += values.join(',') + end;
          }
          const { items, format } = await readAll(Buffer.from(text, 'utf8'), at, {
            label: 'p.csv',
            path: 'p.csv',
            column: names[idColumn],
          });
          expect(format).toBe('csv');
          expect(items.map((i) => ('value' in i ? i.value : `!${i.problem}`))).toEqual(rows.map(([, id]) => id));
        },
      ),
      { numRuns: RUNS },
    );
  });
});

/** An id as JSON holds it: any string (lone surrogates included, JSON escapes them) or a safe integer. */
const jsonId = fc.oneof(
  binaryText({ maxLength: 30 }),
  fc.maxSafeInteger().map((n) => Math.trunc(n)),
);
const asValue = (id: string | number) => String(id);
/** A field name, including those every object inherits. */
const fieldName = fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('id', 'toString', 'constructor', '__proto__', 'valueOf'));

describe('JSON array', () => {
  it('gives back every element, strings and integers, on its line, whatever the layout and chunking', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(jsonId, { maxLength: 40 }),
        fc.constantFrom(undefined, 2, '\t'),
        fc.boolean(),
        fc.boolean(),
        cuts,
        async (ids, indent, crlf, bom, at) => {
          let text = JSON.stringify(ids, null, indent);
          if (crlf) text = text.replace(/\n/g, '\r\n');
          const { items, format } = await readAll(Buffer.from((bom ? BOM : '') + text, 'utf8'), at, {
            label: 'ids.json',
            path: 'ids.json',
          });
          expect(format).toBe('json');
          expect(items).toEqual(ids.map((id, i) => ({ line: indent === undefined ? 1 : i + 2, value: asValue(id) })));
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('with --column, takes that field of each object, and names the objects that lack it', async () => {
    await fc.assert(
      fc.asyncProperty(
        fieldName,
        fc.array(
          fc.tuple(
            fc.option(jsonId, { nil: undefined }),
            fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
          ),
          { maxLength: 20 },
        ),
        cuts,
        async (column, rows, at) => {
          const objects = rows.map(([id, rest]) => {
            const o: Record<string, unknown> = JSON.parse(JSON.stringify(rest));
            // Own properties only, as JSON.parse makes them (so "__proto__" is a plain key).
            if (id === undefined) delete o[column];
            else Object.defineProperty(o, column, { value: id, enumerable: true, writable: true, configurable: true });
            return o;
          });
          const { items } = await readAll(Buffer.from(JSON.stringify(objects), 'utf8'), at, {
            label: 'ids.json',
            path: 'ids.json',
            column,
          });
          expect(items.map((i) => ('value' in i ? i.value : `!${i.problem}`))).toEqual(
            rows.map(([id]) => (id === undefined ? `!no "${column}" field` : asValue(id))),
          );
        },
      ),
      { numRuns: RUNS },
    );
  });
});

describe('NDJSON', () => {
  it('gives back one id per line, blank lines skipped, any CRLF/LF mix, BOM and chunking', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.option(jsonId, { freq: 5 }), eol), { maxLength: 40 }),
        fc.boolean(),
        cuts,
        async (lines, bom, at) => {
          const text = (bom ? BOM : '') + lines.map(([id, end]) => (id === null ? ' ' : JSON.stringify(id)) + end).join('');
          const { items, format } = await readAll(Buffer.from(text, 'utf8'), at, { label: 'ids.ndjson', path: 'ids.ndjson' });
          expect(format).toBe('ndjson');
          expect(items).toEqual(lines.flatMap(([id], i) => (id === null ? [] : [{ line: i + 1, value: asValue(id) }])));
        },
      ),
      { numRuns: RUNS },
    );
  });
});

describe('validation', () => {
  const hex = (n: number) => fc.stringMatching(new RegExp(`^[0-9a-f]{${n}}$`));
  const uuid = fc.tuple(hex(8), hex(4), hex(4), hex(4), hex(12)).map((p) => p.join('-'));
  const MAX_ID = 2n ** 63n - 1n;
  /** A canonical person id, and ways to write it that all mean that person. */
  const personId = fc.oneof(
    uuid.map((u) => ({
      id: u,
      spell: fc
        .tuple(fc.array(fc.boolean(), { minLength: 36, maxLength: 36 }), pad, pad)
        .map(([up, a, b]) => a + [...u].map((c, i) => (up[i] ? c.toUpperCase() : c)).join('') + b),
    })),
    fc.bigInt({ min: 1n, max: MAX_ID }).map((n) => ({
      id: n.toString(),
      spell: fc.tuple(fc.constantFrom('', '+'), fc.nat({ max: 3 }), pad).map(([sign, zeros, b]) => `${sign}${'0'.repeat(zeros)}${n}${b}`),
    })),
  );
  /** Values that are not person ids at all. */
  const notAnId = fc.oneof(
    fc.constantFrom('0', '000', '-1', '+0', '9223372036854775808', '1.5', '0x1f', 'user-881', '01900000-aaaa-7bbb-8ccc-00000000000g'),
    fc.stringMatching(/^[a-z][a-z0-9_-]{0,15}$/).filter((s) => !/^[0-9a-f]{8}-/.test(s)),
  );

  it('keeps each person once, in first-seen order, counting duplicates (any spelling) and bad values', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(personId, { minLength: 1, maxLength: 8 }).chain((pool) =>
          fc.record({
            pool: fc.constant(pool),
            entries: fc.array(
              fc.oneof(
                {
                  weight: 4,
                  arbitrary: fc.nat({ max: pool.length - 1 }).chain((k) => pool[k].spell.map((text) => ({ id: pool[k].id, text }))),
                },
                notAnId.map((text) => ({ id: null, text })),
              ),
              { maxLength: 40 },
            ),
          }),
        ),
        cuts,
        async ({ entries }, at) => {
          const text = entries.map((e) => e.text).join('\n');
          const list = await collectIds(readIds(cutAt(Buffer.from(text), at), { label: 'ids.txt', format: 'lines' }), {
            kind: 'person_ids',
            label: 'ids.txt',
          });
          const valid = entries.filter((e) => e.id !== null).map((e) => e.id!);
          const unique = [...new Set(valid)];
          expect([...list.ids]).toEqual(unique);
          expect(list.requested).toBe(entries.length);
          expect(list.duplicates).toBe(valid.length - unique.length);
          expect(list.invalidCount).toBe(entries.length - valid.length);
          expect(list.invalid.map((b) => b.line)).toEqual(entries.flatMap((e, i) => (e.id === null ? [i + 1] : [])));
          expect(list.integerCount).toBe(unique.filter((id) => !id.includes('-')).length);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('keeps distinct ids exactly as written (case and all), each once', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(binaryText({ minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 6 }),
        fc.array(fc.nat(), { maxLength: 30 }),
        async (pool, picks) => {
          const values = picks.map((k) => pool[k % pool.length]);
          const list = await collectIds(readIds(cutAt(Buffer.from(JSON.stringify(values)), []), { label: 'd.json', path: 'd.json' }), {
            kind: 'distinct_ids',
            label: 'd.json',
          });
          const unique = [...new Set(values)];
          expect([...list.ids]).toEqual(unique);
          expect(list.duplicates).toBe(values.length - unique.length);
          expect(list.invalidCount).toBe(0);
        },
      ),
      { numRuns: RUNS },
    );
  });
});

describe('garbage', () => {
  // Pieces that trip each stage: line ends, quotes, brackets, escapes, NUL, broken and cut UTF-8,
  // BOMs (UTF-8 and UTF-16), long runs, and plain text.
  const piece = fc.oneof(
    fc
      .constantFrom(
        '\n',
        '\r\n',
        '\r',
        '"',
        '""',
        ',',
        '[',
        ']',
        '{',
        '}',
        ':',
        '\\',
        '\\u',
        '#',
        ' ',
        '\t',
        'id',
        '42',
        'null',
        'true',
        '01900000-aaaa-7bbb-8ccc-000000000001',
      )
      .map((s) => Buffer.from(s)),
    fc
      .constantFrom(
        [0],
        [0xff],
        [0xfe, 0xff],
        [0xff, 0xfe],
        [0xef, 0xbb, 0xbf],
        [0xc3],
        [0xe2, 0x82],
        [0xf0, 0x9f, 0x98],
        [0xc3, 0x28],
        [0x80],
      )
      .map((b) => Buffer.from(b)),
    binaryText({ maxLength: 8 }).map((s) => Buffer.from(s)),
    fc.nat({ max: 200 }).map((n) => Buffer.from('x'.repeat(n))),
  );
  const bytes = fc.oneof(
    fc.array(piece, { maxLength: 40 }).map((p) => Buffer.concat(p)),
    fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b)),
  );
  const options = fc.record({
    format: fc.constantFrom(undefined, 'lines', 'csv', 'json', 'ndjson') as fc.Arbitrary<IdsFormat | undefined>,
    path: fc.constantFrom(undefined, 'g.txt', 'g.csv', 'g.tsv', 'g.json', 'g.ndjson'),
    column: fc.constantFrom(undefined, 'id', 'x'),
    maxLineBytes: fc.constantFrom(undefined, 16, 100),
  });
  const kind = fc.constantFrom<IdKind>('person_ids', 'distinct_ids');

  it('never throws anything but a usage error (exit 2) naming the file and a line of it', async () => {
    await fc.assert(
      fc.asyncProperty(bytes, options, kind, cuts, async (data, o, k, at) => {
        const label = o.path ?? 'stdin';
        let error: unknown;
        try {
          await collectIds(readIds(cutAt(data, at), { label, ...o }), { kind: k, label });
        } catch (e) {
          error = e;
        }
        if (error === undefined) return;
        expect(error).toBeInstanceOf(UsageError);
        expect((error as UsageError).exitCode).toBe(2);
        if (!(error instanceof InputError)) {
          // The one refusal about the flags rather than the content.
          expect((error as Error).message).toMatch(/^--column picks a column/);
          return;
        }
        // CSV counts a lone CR as a line end too, as CSV (and most editors) do.
        const lines = data.toString('latin1').split(/\r\n|\r|\n/).length;
        expect(error.message.startsWith(`${label}:${error.line}: `)).toBe(true);
        expect(error.line).toBeGreaterThanOrEqual(1);
        expect(error.line).toBeLessThanOrEqual(lines);
      }),
      { numRuns: 400 },
    );
  });
});
