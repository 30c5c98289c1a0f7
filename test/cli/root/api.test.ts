// In this process (test/cli/harness.ts): `hogctl api` against the sandbox — the request it sends, what it prints, and the
// exit codes of a failed request.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RecordedRequest } from '@hogctl/sandbox';
import { startWorld, type World } from '../harness.js';

let world: World;

beforeAll(async () => {
  world = await startWorld({ persons: 120, seed: 5, applyDelayMs: 20 });
});
afterAll(async () => {
  await world.close();
});

const base = '/api/projects/1/persons/';

function mark(): () => RecordedRequest[] {
  const before = world.sandbox.requests.length;
  return () => world.sandbox.requests.slice(before);
}

describe('hogctl api: requests', () => {
  it('GET fills in {project_id}, turns --field into query parameters and prints the body as JSON', async () => {
    const sent = mark();
    const res = await world.run(['api', 'get', '/api/projects/{project_id}/persons/', '--field', 'limit=2', '-f', 'search=user']);
    expect(res.code).toBe(0);
    const [req] = sent();
    expect(req.method).toBe('GET');
    expect(req.path).toBe(base);
    expect(req.query).toEqual({ limit: '2', search: 'user' });
    const body = JSON.parse(res.stdout);
    expect(body.results).toHaveLength(2);
    expect(body.next).toContain('offset=2');
    expect(res.stdout).toContain('\n  "results"'); // indented
  });

  it('PATCH sends --field values as a JSON body, values parsed as JSON', async () => {
    const person = world.sandbox.store.list({}, 3, 1)[0];
    const sent = mark();
    const res = await world.run([
      'api',
      'PATCH',
      `api/projects/{project_id}/persons/${person.id}/`,
      '--field',
      'properties={"plan": "max", "seats": 3}',
    ]);
    expect(res.code).toBe(0);
    expect(res.stdout).toBe('');
    expect(res.stderr).toContain('202 (empty body)');
    const [req] = sent();
    expect(req.path).toBe(`${base}${person.id}/`);
    expect(req.headers['content-type']).toBe('application/json');
    expect(JSON.parse(req.body)).toEqual({ properties: { plan: 'max', seats: 3 } });
    for (let i = 0; i < 400 && world.sandbox.store.getById(person.id)!.properties.seats !== 3; i++)
      await new Promise((r) => setTimeout(r, 5));
    expect(world.sandbox.store.getById(person.id)!.properties).toMatchObject({ plan: 'max', seats: 3 });
  });

  it('--input reads the body from a file or from standard input; fields then go in the query', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hogctl-api-'));
    const file = join(dir, 'body.json');
    const [a, b] = world.sandbox.store.list({}, 10, 2);
    writeFileSync(file, JSON.stringify({ key: 'tier', value: 'gold' }));
    const sent = mark();
    const fromFile = await world.run(['api', 'POST', `${base}${a.uuid}/update_property/`, '--input', file, '--field', 'format=json']);
    expect(fromFile.code).toBe(0);
    const fromStdin = await world.run(['api', 'POST', `${base}${b.uuid}/delete_property/`, '--input', '-'], {
      stdin: '{"$unset": "plan"}',
    });
    expect(fromStdin.code).toBe(0);
    expect(JSON.parse(fromStdin.stdout)).toEqual({ success: true });
    const [first, second] = sent();
    expect(JSON.parse(first.body)).toEqual({ key: 'tier', value: 'gold' });
    expect(first.query).toEqual({ format: 'json' });
    expect(JSON.parse(second.body)).toEqual({ $unset: 'plan' });
    const broken = await world.run(['api', 'POST', `${base}${a.uuid}/split/`, '--input', '-'], { stdin: '{"distinct_ids_to_split": [' });
    expect(broken.code).toBe(2);
    expect(broken.stderr).toContain('--input standard input is not valid JSON');
  });

  it('--paginate follows next: one record stream in ndjson, the raw pages in json', async () => {
    const sent = mark();
    const res = await world.run(['api', 'GET', '/api/projects/{project_id}/persons/', '--paginate', '-f', 'limit=50', '-o', 'ndjson']);
    expect(res.code).toBe(0);
    const rows = res.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rows).toHaveLength(world.sandbox.store.size);
    expect(new Set(rows.map((r) => r.uuid)).size).toBe(rows.length);
    expect(sent().map((r) => r.query.offset)).toEqual([undefined, '50', '100']);

    const pages = await world.run(['api', 'GET', `${base}?limit=100`, '--paginate']);
    expect(pages.code).toBe(0);
    const chunks = pages.stdout.split(/\n(?=\{)/).map((c) => JSON.parse(c));
    expect(chunks).toHaveLength(2);
    expect(chunks[0].results.length + chunks[1].results.length).toBe(world.sandbox.store.size);
  });

  it('-o csv and table print results as records; a non-JSON answer prints as it came', async () => {
    const csv = await world.run(['api', 'GET', base, '-f', 'limit=3', '-o', 'csv', '--fields', 'uuid,name']);
    expect(csv.code).toBe(0);
    const lines = csv.stdout.trim().split('\n');
    expect(lines[0]).toBe('uuid,name');
    expect(lines).toHaveLength(4);
    const serverCsv = await world.run(['api', 'GET', base, '-f', 'format=csv']);
    expect(serverCsv.code).toBe(0);
    expect(serverCsv.stdout.split('\n')[0]).toContain('distinct_ids.0');
  });
});

describe('hogctl api: failures keep the exit codes of every command', () => {
  it('5 for the swapped-field 400 of PATCH without properties', async () => {
    const res = await world.run(['api', 'PATCH', '/api/projects/{project_id}/persons/1/', '--field', 'foo=1']);
    expect(res.code).toBe(5);
    expect(res.stderr).toContain('This field is required.');
    expect(res.stderr).toContain('(field "properties")');
  });

  it("5 for delete_property's {success: false} body", async () => {
    const res = await world.run(['api', 'POST', `${base}2/delete_property/`, '--field', '$unset=5']);
    expect(res.code).toBe(5);
    expect(res.stderr).toContain('Unable to delete property');
  });

  it('3 for not found, 4 for a refused key, 4 for a missing scope', async () => {
    expect((await world.run(['api', 'GET', `${base}99999999/`])).code).toBe(3);
    const bad = await world.run(['api', 'GET', base], { env: { HOGCTL_API_KEY: 'phx_nope' } });
    expect(bad.code).toBe(4);
    const scope = await world.run(['api', 'DELETE', `${base}5/`], { env: { HOGCTL_API_KEY: world.sandbox.addKey(['person:read']) } });
    expect(scope.code).toBe(4);
    expect(scope.stderr).toContain("missing required scope 'person:write'");
    expect(world.sandbox.store.getById(5)).toBeDefined();
  });

  it('2 for a bad method, a URL instead of a path, --paginate on POST, --input on GET; nothing sent', async () => {
    const sent = mark();
    for (const args of [
      ['FETCH', base],
      ['GET', 'https://example.com/api/'],
      ['POST', base, '--paginate'],
      ['GET', base, '--input', '-'],
      ['GET', base, '--field', 'novalue'],
      ['POST', `${base}3/delete_events/`, '-o', 'xml'],
    ]) {
      const res = await world.run(['api', ...args]);
      expect(res.code, args.join(' ')).toBe(2);
    }
    expect(sent()).toEqual([]);
  });

  it('never shows a key passed as a field, even with --debug', async () => {
    const key = world.sandbox.defaultKey;
    const res = await world.run(['api', 'GET', base, '--field', `personal_api_key=${key}`, '-f', 'limit=1', '--debug']);
    expect(res.code).toBe(0);
    expect(res.stderr).toContain('warning: --field personal_api_key');
    expect(res.stderr).toContain('personal_api_key=[redacted]');
    expect(res.stderr + res.stdout).not.toContain(key);
  });
});
