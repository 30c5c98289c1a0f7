import { describe, expect, it } from 'vitest';
import {
  checkFields,
  getField,
  parseFields,
  parseFormat,
  RecordWriter,
  writeRecord,
  type Format,
  type RecordShape,
  type Row,
} from '../../../src/io/output.js';
import { UsageError } from '../../../src/errors.js';
import { ANSI, Collector, thrown } from '../helpers.js';

const SHAPE: RecordShape = {
  columns: ['id', 'name'],
  fields: ['id', 'name', 'created_at', 'properties'],
  openObjects: ['properties'],
};

const RECORDS: Row[] = [
  { id: 'u1', name: 'Ada', created_at: '2024-01-01', properties: { email: 'ada@example.com', plan: 'team' } },
  { id: 'u2', name: 'Bob', created_at: '2024-02-02', properties: { email: 'bob@example.com', plan: 'free', nested: { a: 1 } } },
];

async function render(
  format: Format,
  pages: Row[][],
  options: {
    fields?: string[];
    tty?: boolean;
    color?: boolean;
    shape?: RecordShape;
    columns?: number;
    wide?: boolean;
    notes?: string[];
    csvHeader?: boolean;
  } = {},
): Promise<string> {
  const stdout = new Collector({ isTTY: options.tty });
  if (options.columns) Object.assign(stdout, { columns: options.columns });
  const writer = new RecordWriter(
    { format, fields: options.fields, color: options.color ?? false, stdout, wide: options.wide, notice: (m) => options.notes?.push(m) },
    options.shape ?? SHAPE,
    { csvHeader: options.csvHeader },
  );
  for (const page of pages) await writer.writePage(page);
  await writer.end();
  return stdout.text;
}

describe('ndjson', () => {
  it('writes one whole object per line', async () => {
    const text = await render('ndjson', [[RECORDS[0]], [RECORDS[1]]]);
    const lines = text.split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[2]).toBe('');
    expect(JSON.parse(lines[0])).toEqual(RECORDS[0]);
    expect(JSON.parse(lines[1])).toEqual(RECORDS[1]);
  });

  it('projects --fields', async () => {
    const text = await render('ndjson', [RECORDS], { fields: ['id', 'properties.email'] });
    expect(text).toBe('{"id":"u1","properties":{"email":"ada@example.com"}}\n{"id":"u2","properties":{"email":"bob@example.com"}}\n');
  });

  it('keeps the nesting of --fields and gives a missing value as null', async () => {
    const text = await render('ndjson', [RECORDS], {
      fields: ['id', 'properties.nested.a', 'properties.plan', 'created_at'],
      shape: { columns: [] },
    });
    expect(
      text
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual([
      { id: 'u1', properties: { nested: { a: null }, plan: 'team' }, created_at: '2024-01-01' },
      { id: 'u2', properties: { nested: { a: 1 }, plan: 'free' }, created_at: '2024-02-02' },
    ]);
    const missing = await render('ndjson', [[{ id: 'u3' }]], { fields: ['id', 'name', 'properties.email'] });
    expect(JSON.parse(missing)).toEqual({ id: 'u3', name: null, properties: { email: null } });
    // A whole object and a key inside it, the record left as it was.
    const record = { id: 'u4', properties: { plan: 'team' } };
    const both = await render('ndjson', [[record]], { fields: ['properties', 'properties.email'] });
    expect(JSON.parse(both)).toEqual({ properties: { plan: 'team', email: null } });
    expect(record).toEqual({ id: 'u4', properties: { plan: 'team' } });
  });

  it('writes nothing for no records', async () => {
    expect(await render('ndjson', [[]])).toBe('');
  });
});

describe('json', () => {
  it('is one valid array across pages', async () => {
    const text = await render('json', [[RECORDS[0]], [RECORDS[1]]]);
    expect(JSON.parse(text)).toEqual(RECORDS);
    expect(text.endsWith('\n')).toBe(true);
  });

  it('is [] for no records', async () => {
    const text = await render('json', []);
    expect(text).toBe('[]\n');
    expect(JSON.parse(text)).toEqual([]);
    expect(JSON.parse(await render('json', [[], []]))).toEqual([]);
  });

  it('projects --fields', async () => {
    const text = await render('json', [RECORDS], { fields: ['name', 'properties.plan'] });
    expect(JSON.parse(text)).toEqual([
      { name: 'Ada', properties: { plan: 'team' } },
      { name: 'Bob', properties: { plan: 'free' } },
    ]);
  });
});

describe('csv', () => {
  it('has a header and flattens properties into dotted columns', async () => {
    const text = await render('csv', [RECORDS], { fields: ['id', 'properties'] });
    const lines = text.trimEnd().split('\n');
    expect(lines[0]).toBe('id,properties.email,properties.nested.a,properties.plan');
    expect(lines[1]).toBe('u1,ada@example.com,,team');
    expect(lines[2]).toBe('u2,bob@example.com,1,free');
    expect(lines).toHaveLength(3);
  });

  it('uses the default columns, one header for many pages', async () => {
    const text = await render('csv', [[RECORDS[0]], [RECORDS[1]]]);
    expect(text).toBe('id,name\nu1,Ada\nu2,Bob\n');
  });

  it('has no header when it continues an earlier output, so the two appended are one CSV', async () => {
    const first = await render('csv', [[RECORDS[0]]]);
    const rest = await render('csv', [[RECORDS[1]]], { csvHeader: false });
    expect(first + rest).toBe('id,name\nu1,Ada\nu2,Bob\n');
  });

  it('keeps an object column whose first page holds only empty objects', async () => {
    // Anonymous persons often have `properties: {}`; the column must not vanish with them.
    const text = await render('csv', [[{ id: 'a1', properties: {} }], [{ id: 'a2', properties: { plan: 'team' } }]], {
      fields: ['id', 'properties'],
    });
    expect(text).toBe('id,properties\na1,{}\na2,"{""plan"":""team""}"\n');
    const only = await render('csv', [[{ id: 'a1', properties: {} }]], { fields: ['properties'] });
    expect(only).toBe('properties\n{}\n');
  });

  it('projects --fields with a dotted property, quoting as needed', async () => {
    const text = await render('csv', [[{ id: 'u3', name: 'C, "the" third', properties: { email: 'c@x' } }]], {
      fields: ['name', 'properties.email'],
    });
    expect(text).toBe('name,properties.email\n"C, ""the"" third",c@x\n');
  });
});

describe('table off a terminal', () => {
  it('is tab-separated lines without a header or colour', async () => {
    const text = await render('table', [RECORDS], { tty: false, color: true });
    expect(text).toBe('u1\tAda\nu2\tBob\n');
    expect(text).not.toMatch(ANSI);
  });

  it('projects --fields and keeps each record on one line', async () => {
    const text = await render('table', [[{ id: 'u1', name: 'two\nlines\there', properties: { plan: 'team' } }]], {
      fields: ['name', 'properties.plan', 'properties'],
    });
    expect(text).toBe('two lines here\tteam\t{"plan":"team"}\n');
  });
});

describe('table on a terminal', () => {
  const PEOPLE: Row[] = Array.from({ length: 3 }, (_, i) => ({
    id: `0190000${i}-aaaa-7bbb-8ccc-00000000000${i}`,
    name: `Person number ${i} with a rather long display name that goes on`,
    distinct_ids: [`device-${i}`, `user-${i}@example.com`, `anon-${i}`],
    created_at: '2024-05-01T12:00:00.000000Z',
  }));
  const COLUMNS: RecordShape = { columns: ['id', 'name', 'distinct_ids', 'created_at'] };

  it('is a header row and aligned columns, without a box or row separators', async () => {
    const text = await render('table', [[RECORDS[0]], [RECORDS[1]]], { tty: true });
    expect(text).toBe('id  name\nu1  Ada\nu2  Bob\n');
    expect(text).not.toMatch(/[┌│─┘]/);
  });

  for (const columns of [40, 60, 80, 120]) {
    it(`fits ${columns} columns: no line wider, cut text ends in …, ids stay whole`, async () => {
      const notes: string[] = [];
      const text = await render('table', [PEOPLE], { tty: true, columns, shape: COLUMNS, notes });
      const lines = text.trimEnd().split('\n');
      expect(lines).toHaveLength(4);
      for (const line of lines) expect(line.length).toBeLessThanOrEqual(columns);
      for (const p of PEOPLE) expect(text).toContain(p.id as string);
      if (columns > 40) expect(text).toContain('…');
      if (columns < 120) expect(notes.join('\n')).toMatch(/left out to fit: --wide shows all\)$/);
    });
  }

  it('gives way with the widest free-text column first', async () => {
    const text = await render('table', [PEOPLE], { tty: true, columns: 140, shape: COLUMNS });
    const [header, row] = text.split('\n');
    expect(header).toMatch(/^id {36}name +distinct_ids +created_at$/);
    // The name (the widest) is cut; the distinct ids and the date are whole.
    expect(row).toContain('device-0, user-0@example.com, anon-0');
    expect(row).toContain('2024-05-01T12:00:00.000000Z');
    expect(row).toMatch(/Person number 0 with a .*…/);
  });

  it('--wide and --fields show everything', async () => {
    const wide = await render('table', [PEOPLE], { tty: true, columns: 60, shape: COLUMNS, wide: true });
    expect(wide).toContain(PEOPLE[0].name as string);
    expect(wide).toContain('2024-05-01T12:00:00.000000Z');
    const fields = await render('table', [PEOPLE], { tty: true, columns: 60, shape: COLUMNS, fields: ['name', 'created_at'] });
    expect(fields).toContain(PEOPLE[0].name as string);
  });

  it('streams: later pages print at once with the first page widths', async () => {
    const stdout = new Collector({ isTTY: true });
    Object.assign(stdout, { columns: 80 });
    const writer = new RecordWriter({ format: 'table', color: false, stdout }, COLUMNS);
    await writer.writePage([PEOPLE[0]]);
    const first = stdout.text;
    expect(first.split('\n')).toHaveLength(3);
    await writer.writePage([{ ...PEOPLE[1], name: 'x'.repeat(200) }]);
    const second = stdout.text.slice(first.length).trimEnd();
    expect(second.length).toBeLessThanOrEqual(80);
    expect(second.indexOf('x')).toBe(first.split('\n')[1].indexOf('Person'));
  });

  it('projects --fields', async () => {
    const text = await render('table', [RECORDS], { tty: true, fields: ['properties.email'] });
    expect(text).toBe('properties.email\nada@example.com\nbob@example.com\n');
  });

  it('colours the header only when colour is on', async () => {
    expect(await render('table', [RECORDS], { tty: true, color: true })).toMatch(ANSI);
    expect(await render('table', [RECORDS], { tty: true, color: false })).not.toMatch(ANSI);
  });

  it('shows control characters from the server as �, never raw', async () => {
    const text = await render('table', [[{ id: 'u1', name: 'evil\u001b[2Jname' }]], { tty: true });
    expect(text).toContain('evil\ufffd[2Jname');
    expect(text).not.toContain('\u001b');
  });

  it('prints nothing for no records', async () => {
    expect(await render('table', [[]], { tty: true })).toBe('');
  });
});

describe('--fields validation', () => {
  it('rejects an unknown field with a UsageError listing the valid ones', () => {
    const err = thrown(() => new RecordWriter({ format: 'json', fields: ['id', 'emial'], color: false, stdout: new Collector() }, SHAPE));
    expect(err).toBeInstanceOf(UsageError);
    expect(err.exitCode).toBe(2);
    expect(err.message).toContain('"emial"');
    expect(err.message).not.toContain('"id"');
    expect(err.message).toContain('id, name, created_at, properties, properties.<key>');
  });

  it('names the field meant: a property by its bare key, a typo by the nearest name', () => {
    expect(thrown(() => checkFields(['id', 'email'], SHAPE.fields!, SHAPE.openObjects)).hint).toBe(
      'did you mean --fields id,properties.email?',
    );
    expect(thrown(() => checkFields(['nme'], SHAPE.fields!, SHAPE.openObjects)).hint).toBe('did you mean --fields name?');
    expect(thrown(() => checkFields(['email'], SHAPE.fields!, [])).hint).toBeUndefined();
  });

  it('accepts properties.<key> for open objects', () => {
    expect(() => checkFields(['properties.anything', 'id'], SHAPE.fields!, SHAPE.openObjects)).not.toThrow();
    expect(() => checkFields(['name.first'], SHAPE.fields!, SHAPE.openObjects)).toThrow(UsageError);
  });

  it('checks fields of records of unknown shape against the first page', async () => {
    const stdout = new Collector();
    const writer = new RecordWriter({ format: 'ndjson', fields: ['count', 'bogus'], color: false, stdout }, { columns: [] });
    const err = await writer.writePage([{ count: 1, meta: { a: 1 } }]).catch((e) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect(err.message).toContain('"bogus"');
    expect(err.message).toContain('count, meta, meta.<key>');
    expect(stdout.text).toBe('');
  });

  it('parseFields and parseFormat', () => {
    expect(parseFields(' id, name ,,')).toEqual(['id', 'name']);
    expect(parseFields(undefined)).toBeUndefined();
    expect(() => parseFields(' , ')).toThrow(UsageError);
    expect(parseFormat('csv')).toBe('csv');
    const err = thrown(() => parseFormat('yaml'));
    expect(err).toBeInstanceOf(UsageError);
    expect(err.message).toContain('table, json, ndjson, csv');
  });
});

describe('getField', () => {
  it('walks dotted paths and prefers a literal dotted key', () => {
    const row = { a: { b: { c: 3 } }, 'x.y': 'literal', x: { y: 'nested' } };
    expect(getField(row, 'a.b.c')).toBe(3);
    expect(getField(row, 'x.y')).toBe('literal');
    expect(getField(row, 'a.missing.c')).toBeUndefined();
    expect(getField(row, 'a.b.c.d')).toBeUndefined();
  });
});

describe('writeRecord', () => {
  const record = RECORDS[0];

  it('json prints the object pretty, projected by --fields', async () => {
    const stdout = new Collector();
    await writeRecord({ format: 'json', color: false, stdout }, record, SHAPE);
    expect(JSON.parse(stdout.text)).toEqual(record);
    const projected = new Collector();
    await writeRecord({ format: 'json', fields: ['id', 'properties.email'], color: false, stdout: projected }, record, SHAPE);
    expect(JSON.parse(projected.text)).toEqual({ id: 'u1', properties: { email: 'ada@example.com' } });
  });

  it('json rejects an unknown field', async () => {
    const err = await writeRecord({ format: 'json', fields: ['nope'], color: false, stdout: new Collector() }, record, SHAPE).catch(
      (e) => e,
    );
    expect(err).toBeInstanceOf(UsageError);
  });

  const PERSON = { id: 'u1', name: 'Ada', properties: { plan: 'team', email: 'ada@example.com', nested: { a: [1, 2] } }, empty: null };

  it('a terminal shows key: value lines with the properties expanded, sorted, nested as JSON', async () => {
    const stdout = new Collector({ isTTY: true });
    await writeRecord({ format: 'table', color: false, stdout }, PERSON, { columns: [] });
    expect(stdout.text).toBe(
      [
        'id:         u1',
        'name:       Ada',
        'properties:',
        '  email:  ada@example.com',
        '  nested: {"a":[1,2]}',
        '  plan:   team',
        'empty:',
        '',
      ].join('\n'),
    );
  });

  it('a terminal shows the --fields asked for', async () => {
    const stdout = new Collector({ isTTY: true });
    await writeRecord({ format: 'table', fields: ['id', 'properties.plan'], color: false, stdout }, record, SHAPE);
    expect(stdout.text).toBe('id:              u1\nproperties.plan: team\n');
  });

  it('piped, it is key<TAB>value lines (properties as properties.<key>); with --fields one line of values', async () => {
    const plain = new Collector();
    await writeRecord({ format: 'table', color: true, stdout: plain }, PERSON, { columns: [] });
    expect(plain.text).toBe(
      'id\tu1\nname\tAda\nproperties.email\tada@example.com\nproperties.nested\t{"a":[1,2]}\nproperties.plan\tteam\nempty\t\n',
    );
    expect(plain.text).not.toMatch(ANSI);
    const fields = new Collector();
    await writeRecord({ format: 'table', fields: ['id', 'properties.plan'], color: false, stdout: fields }, record, SHAPE);
    expect(fields.text).toBe('u1\tteam\n');
  });

  it('csv has a header', async () => {
    const csv = new Collector();
    await writeRecord({ format: 'csv', fields: ['id', 'properties.plan'], color: false, stdout: csv }, record, SHAPE);
    expect(csv.text).toBe('id,properties.plan\nu1,team\n');
  });
});
