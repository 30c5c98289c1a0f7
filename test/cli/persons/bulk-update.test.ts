// `persons bulk-update`, in this process: properties set, set once or unset on many persons through capture (or the
// REST API), every person looked up first so that none is created, read back afterwards.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Person } from '@hogctl/sandbox';
import { startWorld, type World } from '../harness.js';
import { ingestionUrl } from '../../../src/api/capture.js';
import { EMPTY_WHERE_TITLE, itRefusesEveryEmptyWhere } from './empty-where.js';

let world: World;
let dir: string;
let cursor = 0;

beforeAll(async () => {
  world = await startWorld({ persons: 3000, seed: 71, applyDelayMs: 20 });
  dir = mkdtempSync(join(tmpdir(), 'hogctl-update-'));
});
afterAll(async () => {
  await world.close();
  rmSync(dir, { recursive: true, force: true });
});

const store = () => world.sandbox.store;
/** Persons with an e-mail address and a user-<id> distinct id, not used by another test yet. */
function take(n: number): Person[] {
  const all = [...store()].filter((p) => typeof p.properties.email === 'string' && p.distinctIds.includes(`user-${p.id}`));
  const out = all.slice(cursor, cursor + n);
  cursor += n;
  return out;
}
const props = (p: Person) => store().getById(p.id)!.properties;
const batches = (from: number) => world.sandbox.requests.slice(from).filter((r) => r.path === '/batch/');

describe('persons bulk-update', () => {
  it('sets, sets once and unsets through capture, in batches, and reads the persons back', async () => {
    const persons = take(120);
    const file = join(dir, 'ids.txt');
    writeFileSync(file, `${persons.map((p) => p.uuid).join('\n')}\n`);
    store().setProperties(persons[0].id, { source: 'signup' });
    const from = world.sandbox.requests.length;
    const receipt = join(dir, 'capture.receipt.json');
    const res = await world.run([
      'persons',
      'bulk-update',
      '--file',
      file,
      '--set',
      'tier=2',
      '--set-once',
      'source=import',
      '--unset',
      'country',
      '-y',
      '--receipt',
      receipt,
    ]);
    expect(res.code, res.stderr).toBe(0);
    expect(batches(from)).toHaveLength(1);
    for (const p of persons) {
      expect(props(p).tier).toBe(2);
      expect(props(p).country).toBeUndefined();
    }
    expect(props(persons[0]).source).toBe('signup');
    expect(props(persons[1]).source).toBe('import');
    expect(res.stderr).toContain('✔ verified: all 120 persons show the changes');
    expect(JSON.parse(readFileSync(receipt, 'utf8'))).toMatchObject({ update: { persons_applied: 120, persons_pending: 0 } });
  });

  it('creates no one: an identifier that names no person is listed, and nothing is sent for it', async () => {
    const [person] = take(1);
    const file = join(dir, 'mixed.csv');
    writeFileSync(file, `email,distinct_id\n${person.properties.email},\n,device-that-never-was\nnobody@example.org,\n`);
    const created = world.sandbox.capture.personsCreated;
    const res = await world.run(['persons', 'bulk-update', '--file', file, '--set', 'checked=true', '-y']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toContain(
      '  missing   2 identifiers name no person (the receipt lists them): distinct_id:device-that-never-was, email:nobody@example.org',
    );
    expect(props(person).checked).toBe(true);
    expect(store().getByDistinctId('device-that-never-was')).toBeUndefined();
    expect(world.sandbox.capture.personsCreated).toBe(created);
  });

  it("speaks of changing, not deleting: an address stored with a stray space is not changed, in the plan's words", async () => {
    const [spaced, exact] = take(2);
    const address = String(spaced.properties.email);
    store().setProperties(spaced.id, { email: ` ${address}` });
    const file = join(dir, 'near.txt');
    writeFileSync(file, `${address}\n${exact.properties.email}\n`);
    const res = await world.run(['persons', 'bulk-update', '--emails', file, '--set', 'near=1', '--dry-run']);
    expect(res.code, res.stderr).toBe(0);
    const plan = res.stderr.replace(/\s+/g, ' ');
    expect(plan).toContain('1 stored address differs from one given only by surrounding spaces or a trailing dot; it will not be changed:');
    expect(plan).toContain(`If it is the same person, change it by person id (a person_id column beside email)`);
    expect(plan).toContain('dry run: nothing was changed');
    // The engine's words for every kind: nothing here deletes.
    expect(plan).not.toMatch(/delet/i);
    expect(props(spaced).near).toBeUndefined();
  });

  it('--values-from gives each person their own values, typed as --set types them', async () => {
    const [a, b] = take(2);
    const csv = join(dir, 'values.csv');
    writeFileSync(
      csv,
      `email,plan,seats,note\n${a.properties.email},enterprise,25,\n${String(b.properties.email).toUpperCase()},team,3,"hello, world"\n`,
    );
    const res = await world.run(['persons', 'bulk-update', '--values-from', csv, '-y']);
    expect(res.code, res.stderr).toBe(0);
    expect(props(a)).toMatchObject({ plan: 'enterprise', seats: 25 });
    expect(props(a).note).toBeUndefined();
    expect(props(b)).toMatchObject({ plan: 'team', seats: 3, note: 'hello, world' });
    const [c] = take(1);
    const ndjson = join(dir, 'values.ndjson');
    writeFileSync(ndjson, `${JSON.stringify({ person_id: c.uuid, flags: { beta: true }, score: '07' })}\n`);
    expect((await world.run(['persons', 'bulk-update', '--values-from', ndjson, '-y'])).code).toBe(0);
    expect(props(c)).toMatchObject({ flags: { beta: true }, score: '07' });
  });

  it('--via api uses the REST endpoints within their budget; set-once needs capture', async () => {
    const persons = take(3);
    const file = join(dir, 'api.txt');
    writeFileSync(file, `${persons.map((p) => p.uuid).join('\n')}\n`);
    const from = world.sandbox.requests.length;
    const res = await world.run([
      'persons',
      'bulk-update',
      '--file',
      file,
      '--set',
      'via=rest',
      '--unset',
      'sessions',
      '--via',
      'api',
      '-y',
    ]);
    expect(res.code, res.stderr).toBe(0);
    const sent = world.sandbox.requests.slice(from).map((r) => `${r.method} ${r.path.replace(/[0-9a-f-]{36}/, '<uuid>')}`);
    expect(sent.filter((r) => r === 'PATCH /api/projects/1/persons/<uuid>/')).toHaveLength(3);
    expect(sent.filter((r) => r === 'POST /api/projects/1/persons/<uuid>/delete_property/')).toHaveLength(3);
    expect(batches(from)).toHaveLength(0);
    for (const p of persons) expect(props(p)).toMatchObject({ via: 'rest' });
    for (const p of persons) expect(props(p).sessions).toBeUndefined();
    const once = await world.run(['persons', 'bulk-update', '--file', file, '--set-once', 'a=b', '--via', 'api', '-y']);
    expect(once.code).toBe(2);
    expect(once.stderr).toContain('--set-once needs capture: the REST API has no set-once');
  });

  it('changes that do not show in time are pending (exit 8), and --resume reads them back again', async () => {
    const journal = join(dir, 'slow.ndjson');
    const slow = await startWorld({ persons: 50, seed: 3, applyDelayMs: 3000 });
    try {
      const [p] = [...slow.sandbox.store].filter((x) => x.distinctIds.length > 0).slice(0, 1);
      const one = join(dir, 'one.txt');
      writeFileSync(one, `${p.uuid}\n`);
      const res = await slow.run([
        'persons',
        'bulk-update',
        '--file',
        one,
        '--set',
        'late=true',
        '--verify-timeout',
        '1s',
        '--journal',
        journal,
        '-y',
      ]);
      expect(res.code).toBe(8);
      expect(res.stderr).toContain(
        '1 person did not show the changes when the read-back stopped (capture accepted them: ingestion may be slow',
      );
      await new Promise((r) => setTimeout(r, 3000));
      const again = await slow.run(['persons', 'bulk-update', '--file', one, '--journal', journal, '--resume']);
      expect(again.code, again.stderr).toBe(0);
      expect(again.stderr).toContain('this update already completed');
      expect(again.stderr).toContain('✔ verified: the person shows the changes');
    } finally {
      await slow.close();
    }
  });

  it('refuses what it cannot do before sending anything', async () => {
    const before = world.sandbox.requests.length;
    const none = await world.run(['persons', 'bulk-update', '--where', 'plan=free', '-y']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('nothing to change: give --set key=value');
    const both = await world.run(['persons', 'bulk-update', '--where', 'plan=free', '--set', 'a=1', '--unset', 'a', '-y']);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--unset a and --set a: a property is either set or unset');
    // The job flags have one set of limits, whichever bulk verb takes them.
    const many = await world.run(['persons', 'bulk-update', '--where', 'plan=free', '--set', 'a=1', '--concurrency', '1000', '--dry-run']);
    expect(many.code, many.stderr).toBe(2);
    expect(many.stderr).toContain('invalid --concurrency "1000": at most 64 requests can be in flight');
    expect(world.sandbox.requests.length).toBe(before);
  });
});

describe('an input that names no one', () => {
  it('changes nothing, says so, and warns of no --no-verify it was not given', async () => {
    const file = join(dir, 'nobody.txt');
    writeFileSync(file, 'nobody-1@example.com\nnobody-2@example.com\n');
    const from = world.sandbox.requests.length;
    const res = await world.run(['persons', 'bulk-update', '--emails', file, '--set', 'vip=true', '-y']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).not.toContain('--no-verify');
    expect(res.stderr).toContain('nothing to send');
    expect(batches(from)).toEqual([]);
  });
});

describe('the ingestion host', () => {
  it('is us.i or eu.i for PostHog Cloud, the site itself when self-hosted', () => {
    expect(ingestionUrl('https://us.posthog.com')).toBe('https://us.i.posthog.com');
    expect(ingestionUrl('https://app.posthog.com')).toBe('https://us.i.posthog.com');
    expect(ingestionUrl('https://eu.posthog.com')).toBe('https://eu.i.posthog.com');
    expect(ingestionUrl('https://posthog.example.com/')).toBe('https://posthog.example.com');
  });

  it('HOGCTL_CAPTURE_URL sends the events elsewhere (the personal key never goes there)', async () => {
    const [p] = take(1);
    const file = join(dir, 'elsewhere.txt');
    writeFileSync(file, `${p.uuid}\n`);
    const from = world.sandbox.requests.length;
    const other = world.sandbox.url.replace('127.0.0.1', 'localhost');
    const res = await world.run(['persons', 'bulk-update', '--file', file, '--set', 'routed=true', '-y'], {
      env: { HOGCTL_CAPTURE_URL: other },
    });
    expect(res.code, res.stderr).toBe(0);
    const [batch] = batches(from);
    expect(batch.headers.host).toBe(new URL(other).host);
    expect(batch.headers.authorization).toBeUndefined();
    expect(props(p).routed).toBe(true);
  });
});

describe('a run continued sends the rest of its events where the first went', () => {
  it('the journal records the capture host: a resume without HOGCTL_CAPTURE_URL goes on there, and a --capture-url elsewhere is refused', async () => {
    const persons = take(3);
    const file = join(dir, 'routed-resume.txt');
    writeFileSync(file, `${persons.map((p) => p.uuid).join('\n')}\n`);
    const other = world.sandbox.url.replace('127.0.0.1', 'localhost');
    const res = await world.withFaults('odd-200=1,path=/batch/', () =>
      world.run(['persons', 'bulk-update', '--file', file, '--set', 'routed_resume=1', '--no-verify', '-y'], {
        env: { HOGCTL_CAPTURE_URL: other },
      }),
    );
    expect(res.code, res.stderr).toBe(7);
    const line = /hogctl persons bulk-update .*--resume/.exec(res.stderr)?.[0];
    expect(line, res.stderr).toBeDefined();
    const args = [...line!.split(' ').slice(1), '-y'];

    const from = world.sandbox.requests.length;
    const elsewhere = await world.run([...args, '--no-verify', '--capture-url', 'http://127.0.0.1:9']);
    expect(elsewhere.code, elsewhere.stderr).toBe(2);
    expect(elsewhere.stderr).toContain(`sent its capture requests to ${other}, not to http://127.0.0.1:9`);
    expect(batches(from)).toEqual([]);

    // Read back this time: the changes arrived.
    const again = await world.run(args);
    expect(again.code, again.stderr).toBe(0);
    expect(batches(from).map((r) => r.headers.host)).toEqual([new URL(other).host]);
    for (const p of persons) expect(props(p).routed_resume).toBe(1);
  });
});

/** The events of the /batch/ requests since `from` (the sandbox keeps capture bodies decoded). */
function eventsSent(from: number): { uuid: string; distinct_id: string; timestamp: string; properties: Record<string, unknown> }[] {
  return batches(from).flatMap((r) => JSON.parse(r.body).batch);
}

describe('what capture answers is read, not assumed', () => {
  it('a 200 that is no acceptance stops the run (exit 7), and --resume sends those persons again', async () => {
    const persons = take(4);
    const file = join(dir, 'odd.txt');
    writeFileSync(file, `${persons.map((p) => p.uuid).join('\n')}\n`);
    const journal = join(dir, 'odd.ndjson');
    const receipt = join(dir, 'odd.receipt.json');
    const res = await world.withFaults('odd-200=1,path=/batch/', () =>
      world.run([
        'persons',
        'bulk-update',
        '--file',
        file,
        '--set',
        'odd=1',
        '--no-verify',
        '--journal',
        journal,
        '--receipt',
        receipt,
        '-y',
      ]),
    );
    expect(res.code, res.stderr).toBe(7);
    expect(res.stderr).toContain('{"status":0,"error":"ingestion is paused for this project"}');
    expect(res.stderr).toContain('not an acceptance');
    expect(JSON.parse(readFileSync(receipt, 'utf8')).status).not.toBe('completed');
    for (const p of persons) expect(props(p).odd).toBeUndefined();

    const from = world.sandbox.requests.length;
    const again = await world.run(['persons', 'bulk-update', '--file', file, '--journal', journal, '--resume', '--no-verify', '-y']);
    expect(again.code, again.stderr).toBe(0);
    expect(batches(from)).toHaveLength(1);
    // Nothing was read back: the closing line does not claim a count of persons read back.
    expect(again.stderr).toContain('✔ 4 persons sent their changes in 1 request; receipt:');
    expect(again.stderr).not.toMatch(/read back: \d/);
    await new Promise((r) => setTimeout(r, 200));
    for (const p of persons) expect(props(p).odd).toBe(1);
  });

  it('over the billing limit capture answers 200 and drops the events: pending (exit 8) with the words to check, and a new run applies them', async () => {
    const persons = take(3);
    const file = join(dir, 'quota.txt');
    writeFileSync(file, `${persons.map((p) => p.uuid).join('\n')}\n`);
    const journal = join(dir, 'quota.ndjson');
    const res = await world.withFaults('quota-limited=1,path=/batch/', () =>
      world.run(['persons', 'bulk-update', '--file', file, '--set', 'quota=1', '--verify-timeout', '2s', '--journal', journal, '-y']),
    );
    expect(res.code, res.stderr).toBe(8);
    expect(res.stderr).toContain('3 persons did not show the changes when the read-back stopped');
    expect(res.stderr).toContain('over its billing limit, for which capture answers 200 and drops the events');
    expect(res.stderr).toContain("check the organization's billing limits and the project's ingestion warnings");
    for (const p of persons) expect(props(p).quota).toBeUndefined();

    // Once the project is under its limit again, a new run sends the changes again.
    const from = world.sandbox.requests.length;
    const again = await world.run(['persons', 'bulk-update', '--file', file, '--set', 'quota=1', '-y']);
    expect(again.code, again.stderr).toBe(0);
    expect(eventsSent(from)).toHaveLength(3);
    expect(again.stderr).toContain('✔ verified: all 3 persons show the changes');
    for (const p of persons) expect(props(p).quota).toBe(1);
  });

  it('refuses a project that does not process person profiles, before sending anything', async () => {
    const [person] = take(1);
    const file = join(dir, 'personless.txt');
    writeFileSync(file, `${person.uuid}\n`);
    const project = world.sandbox.world.projects.find((p) => p.id === 1)!;
    project.personProcessingOptOut = true;
    const from = world.sandbox.requests.length;
    try {
      for (const via of ['capture', 'api']) {
        const res = await world.run([
          'persons',
          'bulk-update',
          '--file',
          file,
          '--set',
          'personless=1',
          '--via',
          via,
          '--verify-timeout',
          '2s',
          '-y',
        ]);
        expect(res.code, res.stderr).toBe(2);
        expect(res.stderr).toContain('project 1 does not process person profiles (person_processing_opt_out)');
      }
    } finally {
      project.personProcessingOptOut = false;
    }
    const writes = world.sandbox.requests
      .slice(from)
      .filter((r) => r.path === '/batch/' || r.method === 'PATCH' || r.path.endsWith('/delete_property/'));
    expect(writes).toHaveLength(0);
    // --via api needs no project:read: a key without it goes on, warned that the setting is unknown.
    const key = world.sandbox.addKey(['person:read', 'person:write']);
    const api = await world.run(['persons', 'bulk-update', '--file', file, '--set', 'unread=1', '--via', 'api', '-y'], {
      env: { HOGCTL_API_KEY: key },
    });
    expect(api.code, api.stderr).toBe(0);
    expect(api.stderr).toContain('cannot read the settings of project 1 with this key');
  });
});

describe('event uuids', () => {
  it('differ between two runs that change the same person', async () => {
    const [person] = take(1);
    const file = join(dir, 'twice.txt');
    writeFileSync(file, `${person.uuid}\n`);
    const from = world.sandbox.requests.length;
    for (const value of ['one', 'two']) {
      const res = await world.run([
        'persons',
        'bulk-update',
        '--file',
        file,
        '--set',
        `round=${value}`,
        '--journal',
        join(dir, `twice-${value}.ndjson`),
        '-y',
      ]);
      expect(res.code, res.stderr).toBe(0);
    }
    const [first, second] = eventsSent(from);
    expect(first.distinct_id).toBe(second.distinct_id);
    expect(first.uuid).not.toBe(second.uuid);
  });

  it('and timestamps stay the same when a resumed run sends a change again', async () => {
    const persons = take(2);
    const file = join(dir, 'resent.txt');
    writeFileSync(file, `${persons.map((p) => p.uuid).join('\n')}\n`);
    const journal = join(dir, 'resent.ndjson');
    const from = world.sandbox.requests.length;
    const res = await world.withFaults('500=1,path=/batch/', () =>
      world.run(['persons', 'bulk-update', '--file', file, '--set', 'resent=1', '--retries', '1', '--journal', journal, '-y']),
    );
    expect(res.code, res.stderr).toBe(8);
    const middle = world.sandbox.requests.length;
    const again = await world.run(['persons', 'bulk-update', '--file', file, '--journal', journal, '--resume', '-y']);
    expect(again.code, again.stderr).toBe(0);
    const stamp = (e: { uuid: string; distinct_id: string; timestamp: string }) => `${e.distinct_id} ${e.uuid} ${e.timestamp}`;
    const tried = eventsSent(from).slice(0, 2).map(stamp);
    const retried = world.sandbox.requests.slice(from, middle).filter((r) => r.path === '/batch/');
    expect(retried).toHaveLength(2);
    expect(JSON.parse(retried[1].body).batch.map(stamp)).toEqual(tried);
    expect(eventsSent(middle).map(stamp)).toEqual(tried);
  });
});

describe('reading back', () => {
  it('compares values as values: an object whose keys the database reorders is applied', async () => {
    const [person] = take(1);
    const ndjson = join(dir, 'object.ndjson');
    writeFileSync(ndjson, `${JSON.stringify({ person_id: person.uuid, meta: { zeta: 1, alpha: { yy: 2, x: 3 } } })}\n`);
    const res = await world.run(['persons', 'bulk-update', '--values-from', ndjson, '--verify-timeout', '3s', '-y']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toContain('✔ verified: the person shows the changes');
    expect(JSON.stringify(props(person).meta)).toBe('{"zeta":1,"alpha":{"x":3,"yy":2}}');
  });

  it('--values-from refuses two rows that give one person different values, naming both lines', async () => {
    const [a, b] = take(2);
    const csv = join(dir, 'conflict.csv');
    writeFileSync(
      csv,
      `email,plan\n${a.properties.email},team\n${b.properties.email},free\n${String(a.properties.email).toUpperCase()},enterprise\n`,
    );
    const before = world.sandbox.requests.length;
    const res = await world.run(['persons', 'bulk-update', '--values-from', csv, '-y']);
    expect(res.code, res.stderr).toBe(2);
    expect(res.stderr).toContain(`${csv}:4: lines 2 and 4 give ${a.properties.email} different values of plan ("team" and "enterprise")`);
    expect(world.sandbox.requests.length).toBe(before);
    // The same values twice are a duplicate, not a conflict.
    writeFileSync(csv, `email,plan\n${a.properties.email},team\n${a.properties.email},team\n`);
    const same = await world.run(['persons', 'bulk-update', '--values-from', csv, '-y']);
    expect(same.code, same.stderr).toBe(0);
  });
});

describe('the plan', () => {
  it('the plan of an update names the changes it writes, and a dry run changes nothing', async () => {
    const res = await world.run([
      'persons',
      'bulk-update',
      '--where',
      'plan=free',
      '--set',
      'plan=starter',
      '--unset',
      'sessions',
      '--dry-run',
    ]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toMatch(/\(dry run: nothing will be changed\)$/m);
    expect(res.stderr).toMatch(/^ {2}changes {3}set plan="starter" · unset sessions \(through capture\)$/m);
  });
});

describe(EMPTY_WHERE_TITLE, () => {
  itRefusesEveryEmptyWhere(() => world, 'bulk-update', ['--set', 'plan=x']);
});
