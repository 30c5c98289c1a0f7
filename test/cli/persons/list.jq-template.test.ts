// In this process (test/cli/harness.ts): --jq and --template, as gh has them, on the commands that print data. jq runs over
// the JSON the command would print with -o json (a listing's whole array, across pages with
// --all); strings print raw, other values as JSON. A bad expression or template is exit 2 before
// any request, and both refuse an -o other than json.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type World } from '../harness.js';

let world: World;
beforeAll(async () => {
  world = await startWorld({ persons: 60, seed: 16 });
});
afterAll(() => world.close());

const newestFirst = () => world.sandbox.store.list({}, 0, 1000);
const lines = (text: string) => text.split('\n').filter(Boolean);

function sentSince(): () => number {
  const before = world.sandbox.requests.length;
  return () => world.sandbox.requests.length - before;
}

describe('--jq', () => {
  it('filters a listing as one array and prints strings raw', async () => {
    const res = await world.run(['persons', 'list', '--limit', '5', '--jq', '.[].properties.email']);
    expect(res.code, res.stderr).toBe(0);
    const expected = newestFirst()
      .slice(0, 5)
      .map((p) => String(p.properties.email ?? null));
    expect(lines(res.stdout)).toEqual(expected);
    expect(expected.filter((e) => e.includes('@')).length).toBeGreaterThan(0);
    expect(res.stdout).not.toContain('"');
    // Nothing from node either (jq is WebAssembly, compiled at run time).
    expect(res.stderr).toBe('');
  });

  it('runs over every page of --all at once, so length counts them all', async () => {
    const res = await world.run(['persons', 'list', '--all', '--page-size', '25', '--jq', 'length']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toBe('60\n');
  });

  it('prints one record the command gets, and values that are not strings as JSON', async () => {
    const person = newestFirst()[3];
    const uuid = await world.run(['persons', 'get', person.uuid, '--jq', '.uuid']);
    expect(uuid.code, uuid.stderr).toBe(0);
    expect(uuid.stdout).toBe(`${person.uuid}\n`);
    const object = await world.run(['persons', 'get', person.uuid, '--jq', '{uuid, n: (.distinct_ids | length), null: .nothing}']);
    expect(object.code, object.stderr).toBe(0);
    expect(object.stdout).toBe(`${JSON.stringify({ uuid: person.uuid, n: person.distinctIds.length, null: null })}\n`);
  });

  it('sees only the fields --fields picked', async () => {
    const res = await world.run(['persons', 'list', '--limit', '2', '--fields', 'uuid', '--jq', '.[0] | keys']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toBe('["uuid"]\n');
  });

  it('filters what hogctl api prints', async () => {
    const res = await world.run(['api', 'get', '/api/projects/{project_id}/persons/', '-f', 'limit=3', '--jq', '.results | length']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toBe('3\n');
  });

  it('refuses an expression jq cannot compile with exit 2, naming it and jq’s message, before any request', async () => {
    const sent = sentSince();
    const res = await world.run(['persons', 'list', '--jq', '.[] | .email |']);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('--jq ".[] | .email |"');
    expect(res.stderr).toMatch(/syntax error/);
    expect(res.stdout).toBe('');
    expect(sent()).toBe(0);
  });

  it('an expression that fails on the data is exit 2 with jq’s message', async () => {
    const res = await world.run(['persons', 'list', '--limit', '2', '--jq', '.foo']);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/^error: --jq "\.foo" failed on the data: Cannot index array with string \("foo"\)$/m);
    expect(res.stdout).toBe('');
  });

  it('refuses -o csv, -o ndjson and -o table, and --template beside it, before any request', async () => {
    const sent = sentSince();
    for (const format of ['csv', 'ndjson', 'table']) {
      const res = await world.run(['persons', 'list', '-o', format, '--jq', '.[]']);
      expect(res.code, format).toBe(2);
      expect(res.stderr).toContain(`--jq prints JSON: it cannot be combined with -o ${format}`);
    }
    const both = await world.run(['persons', 'list', '--jq', '.[]', '--template', '{{id}}']);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--jq and --template cannot be combined');
    expect(sent()).toBe(0);
    const json = await world.run(['persons', 'list', '--limit', '1', '-o', 'json', '--jq', '.[0].id']);
    // PostHog's persons API gives the UUID as `id`.
    expect(json.code, json.stderr).toBe(0);
    expect(json.stdout).toBe(`${newestFirst()[0].uuid}\n`);
  });

  it('wins over HOGCTL_OUTPUT, which is only a default', async () => {
    const res = await world.run(['persons', 'list', '--limit', '1', '--jq', '.[0].uuid'], { env: { HOGCTL_OUTPUT: 'csv' } });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toBe(`${newestFirst()[0].uuid}\n`);
  });
});

describe('a command that prints no JSON', () => {
  it('says on stderr that --jq was not used, rather than dropping it silently', async () => {
    const res = await world.run(
      ['profile', 'add', 'jq-test', '--base-url', world.sandbox.url, '--project', '1', '--api-key-stdin', '--jq', '.'],
      {
        stdin: world.env.HOGCTL_API_KEY,
      },
    );
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toContain('warning: --jq was not used: `hogctl profile add` prints no JSON data');
  });
});

describe('--template', () => {
  it('formats a listing with a Handlebars template over the array', async () => {
    const res = await world.run([
      'persons',
      'list',
      '--limit',
      '3',
      '--template',
      '{{#each this}}{{uuid}} {{properties.email}}\n{{/each}}',
    ]);
    expect(res.code, res.stderr).toBe(0);
    const expected = newestFirst()
      .slice(0, 3)
      .map((p) => `${p.uuid} ${String(p.properties.email)}\n`)
      .join('');
    expect(res.stdout).toBe(expected);
  });

  it('formats one record, with the json and join helpers, and never escapes HTML', async () => {
    const person = newestFirst()[1];
    const record = JSON.parse((await world.run(['persons', 'get', person.uuid, '-o', 'json'])).stdout);
    const res = await world.run(['persons', 'get', person.uuid, '--template', '<{{uuid}}> {{join distinct_ids ","}} {{json properties}}']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toBe(`<${person.uuid}> ${record.distinct_ids.join(',')} ${JSON.stringify(record.properties)}`);
  });

  it('refuses a template that does not parse with exit 2, before any request', async () => {
    const sent = sentSince();
    const res = await world.run(['persons', 'list', '--template', '{{#each this}}{{id}}']);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('--template "{{#each this}}{{id}}"');
    expect(sent()).toBe(0);
  });
});
