// Every comment's citation resolves inside the repository. A section sign names its document
// (ARCHITECTURE.md, docs/server-contract.md, or an outside one such as an RFC); inside one of
// those two documents a bare one means that document. Every section sign in a line is read,
// lists and ranges included (the last test shows the forms), and each section cited in the two
// documents must exist; the server contract's section 0 only lists what changed lately and
// points to the sections of the topics, so nothing cites it. Every document named by its file
// name (a markdown file's) is one the repository holds, found from the root or from the naming
// file's folder upwards, unless the line says whose repository holds it ("in PostHog/posthog"):
// a reader must be able to open what a comment relies on. This file writes the sign as an
// escape, and the markdown extension too, so that its own examples are not read as citations.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../../..');
const DOCS = ['ARCHITECTURE.md', 'docs/server-contract.md'];
const SIGN = '\u00a7';
const MD = '\x2emd';
const NUMBER = String.raw`\d+(?:\.\d+)*`;
/** A document, then a section, then more sections joined by a list word or a range dash. */
const CITATION = new RegExp(
  String.raw`(?:(ARCHITECTURE\.md|docs/server-contract\.md|RFC \d+)\s+)?${SIGN}(${NUMBER})((?:(?:,\s*|\s+and\s+|\s+or\s+)${SIGN}${NUMBER}|(?:\s*[–-]\s*|\s+to\s+)${SIGN}?${NUMBER})*)`,
  'g',
);

/** Citations known not to resolve yet, each with the change that will fix it. */
const PENDING: { file: string; problem: string }[] = [];

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (e.name === 'node_modules' || e.name.startsWith('.')) return [];
    const path = join(dir, e.name);
    return e.isDirectory() ? files(path) : /\.([cm]?[jt]s|md)$/.test(e.name) ? [path] : [];
  });
}

/** The section numbers of a document: "## 6." and "### 6.1" headings. */
function sections(text: string): Set<string> {
  return new Set([...text.matchAll(/^#{2,4} (\d+(?:\.\d+)*)\.? /gm)].map((m) => m[1]));
}

/** A document named by its file name: not part of a longer path or a URL (no `/` or `.` before). */
const DOCUMENT = /(?<![\w/.:-])((?:[\w.-]+\/)*[\w-]+\.md)\b(?!\w)/g;
/** After a document's name, the repository outside this one that holds it. */
const OUTSIDE = /^\S*\s+in\s+[\w-]+\/[\w.-]+/;

/** The documents `line` of `file` names that the repository does not hold. */
function missingDocuments(file: string, line: string, exists: (path: string) => boolean = (p) => existsSync(join(root, p))): string[] {
  const missing: string[] = [];
  for (const m of line.matchAll(DOCUMENT)) {
    if (OUTSIDE.test(line.slice(m.index + m[1].length))) continue;
    const folders: string[] = [''];
    for (let dir = dirname(file); dir !== '.' && dir !== ''; dir = dirname(dir)) folders.push(dir);
    if (!folders.some((dir) => exists(join(dir, m[1])))) missing.push(`${m[1]} is not in the repository`);
  }
  return missing;
}

interface Cited {
  doc: string;
  section: string;
}

/**
 * The citations of one line of `file` (a path from the root), and what is wrong in it: a
 * section sign that names no document, or one this reading cannot place.
 */
function citationsOf(file: string, line: string): { cited: Cited[]; problems: string[] } {
  const cited: Cited[] = [];
  const problems: string[] = [];
  let read = 0;
  for (const m of line.matchAll(CITATION)) {
    read += m[0].split(SIGN).length - 1;
    const doc = m[1] ?? (DOCS.includes(file) ? file : undefined);
    const numbers = [m[2], ...(m[3].match(new RegExp(NUMBER, 'g')) ?? [])];
    if (doc === undefined) problems.push(`${m[0].trim()} names no document`);
    else for (const section of numbers) cited.push({ doc, section });
  }
  const signs = line.split(SIGN).length - 1;
  if (read < signs) problems.push(`${signs - read} of its ${signs} section signs are not a citation this test can read`);
  return { cited, problems };
}

describe('citations', () => {
  it('every section sign in the code, tests, scripts and docs names its document, and a section of it that exists', () => {
    const known = new Map(DOCS.map((d) => [d, sections(readFileSync(join(root, d), 'utf8'))]));
    const everyFile = [
      ...['src', 'packages', 'test', 'scripts', 'bin', 'docs', 'examples'].flatMap((dir) => files(join(root, dir))),
      ...['ARCHITECTURE.md', 'README.md', 'CHANGELOG.md'].map((f) => join(root, f)),
    ];
    let count = 0;
    const broken: string[] = [];
    for (const path of everyFile) {
      const file = relative(root, path);
      readFileSync(path, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          const { cited, problems } = citationsOf(file, line);
          count += cited.length;
          problems.push(...missingDocuments(file, line));
          for (const problem of problems) broken.push(`${file}:${i + 1}: ${problem}`);
          for (const { doc, section } of cited) {
            if (known.has(doc) && !known.get(doc)!.has(section)) broken.push(`${file}:${i + 1}: ${doc} has no ${SIGN}${section}`);
            // The contract's section 0 is an index of what changed lately, pointing to the topics.
            else if (doc === 'docs/server-contract.md' && section === '0' && file !== doc)
              broken.push(`${file}:${i + 1}: cites ${doc} ${SIGN}0, the index of what changed lately: cite the section of the topic`);
          }
        });
    }
    expect(count).toBeGreaterThan(100);
    expect(broken.filter((b) => !PENDING.some((p) => b.startsWith(p.file) && b.endsWith(p.problem)))).toEqual([]);
    // An entry whose citation has been fixed goes too.
    expect(PENDING.filter((p) => !broken.some((b) => b.startsWith(p.file) && b.endsWith(p.problem)))).toEqual([]);
  });

  it('reads lists and ranges, and refuses a section sign without its document', () => {
    const s = SIGN;
    const read = (line: string, file = 'src/x.ts') => {
      const { cited, problems } = citationsOf(file, line);
      return [...cited.map((c) => `${c.doc} ${c.section}`), ...problems];
    };
    expect(read(`// the cap (docs/server-contract.md ${s}6.6, ${s}6.7) and ARCHITECTURE.md ${s}4`)).toEqual([
      'docs/server-contract.md 6.6',
      'docs/server-contract.md 6.7',
      'ARCHITECTURE.md 4',
    ]);
    expect(read(`docs/server-contract.md ${s}6.4–${s}6.7; see ${s}9`)).toEqual([
      'docs/server-contract.md 6.4',
      'docs/server-contract.md 6.7',
      `${s}9 names no document`,
    ]);
    expect(read(`docs/server-contract.md ${s}4 and ${s}13`)).toEqual(['docs/server-contract.md 4', 'docs/server-contract.md 13']);
    expect(read(`RFC 6265 ${s}5.1.3`)).toEqual(['RFC 6265 5.1.3']);
    expect(read(`the cap (${s}6.6)`)).toEqual([`${s}6.6 names no document`]);
    expect(read(`the cap (${s}6.6)`, 'docs/server-contract.md')).toEqual(['docs/server-contract.md 6.6']);
    expect(read(`see ${s} 6`)).toEqual([`1 of its 1 section signs are not a citation this test can read`]);
  });

  it('finds the documents a line names, from the root or the folders above the file, and refuses one the repository does not hold', () => {
    const held = new Set([`docs/server-contract${MD}`, `scripts/bundle/README${MD}`, `README${MD}`]);
    const missing = (line: string, file = 'scripts/bundle/undici/load.mjs') => missingDocuments(file, line, (p) => held.has(p));
    expect(missing(`see ../README${MD} and docs/server-contract${MD}, and README${MD}`)).toEqual([]);
    expect(missing(`merged away (posthog-ingestion${MD} B.3.1)`)).toEqual([`posthog-ingestion${MD} is not in the repository`]);
    expect(missing(`the split (posthog-deletion-and-geoip${MD} H.1)`)).toEqual([
      `posthog-deletion-and-geoip${MD} is not in the repository`,
    ]);
    expect(missing(`as docs/plans/x${MD} in PostHog/posthog PR #1 says`)).toEqual([]);
    expect(missing(`https://github.com/PostHog/posthog/blob/master/docs/x${MD}`)).toEqual([]);
  });
});
