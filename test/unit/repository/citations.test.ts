// Every comment's citation resolves inside the repository: `ARCHITECTURE.md §N` and
// `docs/server-contract.md §N` name a section that exists.
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../../..');
const DOCS = ['ARCHITECTURE.md', 'docs/server-contract.md'];

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (e.name === 'node_modules' || e.name.startsWith('.')) return [];
    const path = join(dir, e.name);
    return e.isDirectory() ? files(path) : /\.(ts|mjs|cjs|md)$/.test(e.name) ? [path] : [];
  });
}

/** The section numbers of a document: "## 6." and "### 6.1" headings. */
function sections(doc: string): Set<string> {
  return new Set([...readFileSync(join(root, doc), 'utf8').matchAll(/^#{2,3} (\d+(?:\.\d+)?)\.? /gm)].map((m) => m[1]));
}

describe('citations', () => {
  it('every "<doc> §N" in the code, tests, scripts and docs names a section of that doc', () => {
    const known = new Map(DOCS.map((d) => [d, sections(d)]));
    const cited: string[] = [];
    const broken: string[] = [];
    for (const dir of ['src', 'packages', 'test', 'scripts', 'bin']) {
      for (const file of files(join(root, dir))) {
        for (const m of readFileSync(file, 'utf8').matchAll(/(ARCHITECTURE\.md|docs\/server-contract\.md) §(\d+(?:\.\d+)?)/g)) {
          cited.push(m[0]);
          if (!known.get(m[1])!.has(m[2])) broken.push(`${file.slice(root.length + 1)}: ${m[0]}`);
        }
      }
    }
    expect(cited.length).toBeGreaterThan(50);
    expect(broken).toEqual([]);
  });
});
