// The "find it" table of ARCHITECTURE.md §2 stays a map of the tree: every path it names exists,
// and every verb file under src/commands/ has its row. The paths are read from the table, so a test
// or a module that moves fails here until the table follows.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../../..');

/** The rows of the table under "### Find it": its cells, header and rule left out. */
function findItRows(markdown: string): string[][] {
  const start = markdown.indexOf('### Find it');
  if (start === -1) return [];
  const lines = markdown.slice(start).split('\n');
  const table = lines.slice(lines.findIndex((l) => l.startsWith('|')));
  const rows = table
    .slice(
      0,
      table.findIndex((l) => !l.startsWith('|')),
    )
    .slice(2);
  return rows.map((row) =>
    row
      .split('|')
      .slice(1, -1)
      .map((cell) => cell.trim()),
  );
}

/** The repository paths a cell names: code spans that start with a top-level folder. */
function pathsOf(cell: string): string[] {
  return [...cell.matchAll(/`((?:src|test|packages|scripts|bin|docs)\/[^`\s]+)`/g)].map((m) => m[1]);
}

/** Every verb file: src/commands/<group>/(<sub>/)<verb>.ts, without index.ts and shared/. */
function verbFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'shared' ? [] : verbFiles(path);
    return e.name.endsWith('.ts') && e.name !== 'index.ts' ? [relative(root, path)] : [];
  });
}

const rows = findItRows(readFileSync(join(root, 'ARCHITECTURE.md'), 'utf8'));

describe('ARCHITECTURE.md find-it table', () => {
  it('has six columns in every row', () => {
    expect(rows.length).toBeGreaterThan(40);
    expect(rows.filter((r) => r.length !== 6).map((r) => r.join(' | '))).toEqual([]);
  });

  it('names only paths that exist', () => {
    const missing = rows.flatMap((row) => row.flatMap(pathsOf)).filter((path) => !existsSync(join(root, path)));
    expect(missing).toEqual([]);
  });

  it('gives every verb of src/commands a row, by its command file, and every row a test', () => {
    const commands = rows.map((row) => pathsOf(row[1])[0]);
    expect([...commands].sort()).toEqual(verbFiles(join(root, 'src/commands')).sort());
    expect(rows.filter((row) => pathsOf(row[4]).length === 0).map((row) => row[0])).toEqual([]);
  });

  it('reads paths from code spans only', () => {
    expect(pathsOf('`deleteOnePerson` in `src/api/delete-one.ts`, `POST P/persons/`')).toEqual(['src/api/delete-one.ts']);
  });
});
