// The built binary: `hogctl persons query --all` stopped by the query limit prints the command that
// continues, and that command line pasted into a shell finishes the walk. The run that prints it
// needs no process of its own (runCli of test/cli/harness.ts); the rest of `persons query` is
// tested in this process: test/cli/persons/query.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPrinted, startWorld, type World } from './harness.js';
import { runCli } from '../cli/harness.js';

const PERSONS = 30_000;
let world: World;

beforeAll(async () => {
  world = await startWorld({ persons: PERSONS, seed: 11 });
});
afterAll(async () => {
  await world.close();
});

/** The sandbox's persons in the order --all pages them: created_at DESC, then the UUID DESC. */
function inKeysetOrder() {
  return [...world.sandbox.store].sort((a, b) => b.createdAtUs - a.createdAtUs || (a.uuid < b.uuid ? 1 : a.uuid > b.uuid ? -1 : 0));
}

const lines = (text: string) => text.trim().split('\n').filter(Boolean);
const inProcess = (args: string[]) => runCli(args, { env: world.env });

describe('--all under the legacy HogQL limit (120 queries an hour, scaled down here)', () => {
  // Waiting the limit out, each wait within --max-wait, runs on virtual time:
  // test/cli/persons/query.limits.test.ts.
  it('stopped by a wait past --max-wait, prints the command with every flag given and the cursor; run as printed, it continues there', async () => {
    const text = "SELECT id, properties.email FROM persons WHERE properties.plan = {plan} AND properties.country != 'XX'";
    world.sandbox.setRateLimit('query=3/1h');
    let first;
    try {
      first = await inProcess([
        '--project',
        '1',
        '--base-url',
        world.sandbox.url,
        'persons',
        'query',
        text,
        '--values',
        '{"plan": "free"}',
        '--value',
        'plan=team',
        '--all',
        '--page-size',
        '2000',
        '--max-wait',
        '10s',
        '-o',
        'ndjson',
        '--fields',
        'id',
      ]);
    } finally {
      world.sandbox.setRateLimit();
    }
    expect(first.code).toBe(6);
    expect(first.stderr).toMatch(
      /^error: the server limits queries and asks to wait \S+, longer than --max-wait 10s \(stopped after 3 queries\)$/m,
    );
    expect(first.stderr).toContain('6,000 rows printed; continue after the last one with:');
    const printed = /^\s+(hogctl .*)$/m.exec(first.stderr)?.[1] ?? '';
    const cursor = /--after (\S+)$/.exec(printed)?.[1];
    expect(cursor).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z,[0-9a-f-]{36}$/);
    expect(printed).toBe(
      `hogctl --base-url ${world.sandbox.url} --project 1 --output ndjson --fields id persons query ` +
        `'SELECT id, properties.email FROM persons WHERE properties.plan = {plan} AND properties.country != '\\''XX'\\''' ` +
        `--all --page-size 2000 --max-wait 10s --values '{"plan": "free"}' --value plan=team --after ${cursor}`,
    );
    expect(lines(first.stdout)).toHaveLength(6000);
    const rest = await runPrinted(printed, world.env);
    expect(rest.code, rest.stderr).toBe(0);
    const rows = [...lines(first.stdout), ...lines(rest.stdout)].map((l) => JSON.parse(l));
    expect(Object.keys(rows[0])).toEqual(['id']);
    expect(rows.map((r) => r.id)).toEqual(
      inKeysetOrder()
        .filter((p) => p.properties.plan === 'team' && p.properties.country !== 'XX')
        .map((p) => p.uuid),
    );
  });

  it('-o csv: the continuation (--after) prints no header, so the two outputs appended are one CSV', async () => {
    world.sandbox.setRateLimit('query=2/1h');
    let first;
    try {
      first = await inProcess([
        'persons',
        'query',
        'SELECT id FROM persons',
        '--all',
        '--page-size',
        '5000',
        '--max-wait',
        '5s',
        '-o',
        'csv',
      ]);
    } finally {
      world.sandbox.setRateLimit();
    }
    expect(first.code).toBe(6);
    const printed = /^\s+(hogctl .*--after \S+)$/m.exec(first.stderr)?.[1] ?? '';
    const rest = await runPrinted(printed, world.env);
    expect(rest.code, rest.stderr).toBe(0);
    expect(lines(rest.stdout)[0]).not.toBe('id');
    expect(lines(first.stdout + rest.stdout)).toEqual(['id', ...inKeysetOrder().map((p) => p.uuid)]);
  });
});
