// The built binary on a real pseudo-terminal: `hogctl persons bulk-delete` asks with the exact
// words, has a count typed to confirm more than 100 persons (from a file or a selection), and ends
// a run with one line that points at the receipt. What it shows off a terminal is tested in this
// process: test/cli/persons/bulk-delete.plan.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startWorld, type World } from './harness.js';
import { runInTerminal } from './terminal.js';
import { bulkRequests } from '../cli/persons/bulk-delete-fixtures.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'hogctl-bulk-terminal-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the plan and the question on a terminal', () => {
  let world: World;
  beforeAll(async () => {
    world = await startWorld({ persons: 300 });
  });
  afterAll(() => world.close());

  const uuids = (from: number, n: number) => world.sandbox.store.listUuids(from, n);

  it('asks with the exact words: "3 persons and their events"', async () => {
    const path = join(dir, 'ask.txt');
    writeFileSync(path, uuids(10, 3).join('\n'));
    const res = await runInTerminal(['persons', 'bulk-delete', '--file', path, '--delete-events'], world.env, [
      { when: 'Go ahead?', send: 'n\r' },
    ]);
    expect(res.output).toContain(`This deletes 3 persons and their events in project 1 on ${world.sandbox.url}.`);
    expect(res.code).toBe(130);
    expect(bulkRequests(world, 0)).toEqual([]);
  });

  it('more than 100 persons from a file are confirmed by typing the count, as a selection is', async () => {
    const path = join(dir, 'typed.txt');
    writeFileSync(path, uuids(100, 150).join('\n'));
    const res = await runInTerminal(
      ['persons', 'bulk-delete', '--file', path],
      world.env,
      [
        { when: 'Type 150 to confirm', send: '15\r' },
        { when: 'that is not 150', send: '\x15\r' },
      ],
      30_000,
      { columns: 80, rows: 24 },
    );
    expect(res.output).toContain('This deletes 150 persons');
    expect(res.code).toBe(130);
    expect(bulkRequests(world, 0)).toEqual([]);
  });
});

describe('the end of a run on a terminal', () => {
  let world: World;
  beforeAll(async () => {
    world = await startWorld({ persons: 30 });
  });
  afterAll(() => world.close());

  it('on a terminal a run ends with a line that points at the receipt, not thirty fields', async () => {
    const path = join(dir, 'short.txt');
    writeFileSync(
      path,
      world.sandbox.store
        .list({}, 20, 3)
        .map((p) => p.uuid)
        .join('\n'),
    );
    const receipt = join(dir, 'short.receipt.json');
    const res = await runInTerminal(
      ['persons', 'bulk-delete', '--file', path, '--receipt', receipt, '-y', '--no-verify'],
      world.env,
      [],
      30_000,
      {
        columns: 80,
        rows: 24,
      },
    );
    expect(res.code, res.output).toBe(0);
    expect(res.output).toContain('completed: every count is in the receipt, and -o json prints them here');
    expect(res.output).not.toMatch(/^(chunks_failed|id_list_sha256|persons_deleted)\b/m);
    const lines = res.output.replace(/\r/g, '').split('\n').filter(Boolean);
    expect(lines.length).toBeLessThanOrEqual(24);
    // Piped, the record keeps every field for scripts.
    const piped = await world.run([
      'persons',
      'bulk-delete',
      '--file',
      path,
      '--receipt',
      join(dir, 'piped.receipt.json'),
      '-y',
      '--no-verify',
    ]);
    expect(piped.stdout).toMatch(/^id_list_sha256\t/m);
  });
});

describe('a selection on a terminal', () => {
  let world: World;
  beforeAll(async () => {
    world = await startWorld({ persons: 20, projectPersons: { 2: 1000 }, seed: 57 });
  });
  afterAll(() => world.close());

  const store = (project: number) => world.sandbox.stores.get(project)!;

  it('on a terminal, a selection of more than 100 persons is confirmed by typing the count', async () => {
    const free = [...store(2)].filter((p) => p.properties.plan === 'free');
    expect(free.length).toBeGreaterThan(100);
    const declined = await runInTerminal(
      ['persons', 'bulk-delete', '--where', 'plan=free', '--project', '2'],
      world.env,
      [
        { when: `Type ${free.length} to confirm`, send: '100\r' },
        // A typo is asked again; an empty answer cancels.
        { when: `that is not ${free.length}: type ${free.length} exactly, or nothing to cancel`, send: '\x15\r' },
      ],
      30_000,
      { columns: 60, rows: 24 },
    );
    expect(declined.code).toBe(130);
    // The plan fits the terminal: its long lines (the sample) wrap at spaces. A word longer than a
    // line (the journal's path) stays whole, alone after its label, for the terminal to wrap.
    const plan = declined.output.slice(declined.output.indexOf('Plan:'), declined.output.indexOf('This deletes')).split(/\r?\n/);
    expect(plan.length).toBeGreaterThan(8);
    for (const line of plan) expect(line.length <= 60 || line.trim().split(/\s+/).length <= 2, line).toBe(true);
    expect(plan.some((line) => /^ {2}journal {3}\/\S+selection-\S+\.ndjson$/.test(line))).toBe(true);
    expect(declined.output.replace(/\s*\r?\n\s*/g, ' ')).toContain(
      `This deletes ${free.length} persons (their events and recordings stay) in project 2`,
    );
    expect(store(2).getByUuid(free[0].uuid)).toBeDefined();
    const typed = await runInTerminal(
      ['persons', 'bulk-delete', '--where', 'plan=free', '--project', '2', '--journal', join(dir, 'typed.ndjson')],
      world.env,
      [{ when: `Type ${free.length} to confirm`, send: `${free.length}\r` }],
    );
    expect(typed.code, typed.output).toBe(0);
    for (const p of free) expect(store(2).getByUuid(p.uuid)).toBeUndefined();
  });
});
