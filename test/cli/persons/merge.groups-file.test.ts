// A groups file can come from anywhere (an edit, a script, an older hogctl): `persons merge
// --groups` refuses, before anything is sent and naming the line, a person in two groups, a group
// larger than --max-group, a person its group's project does not hold and a UUID that was never
// there; it leaves out a group joined through a placeholder, and a person merged into its own
// group since it was listed. In this process against the sandbox (test/cli/virtual-harness.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Person } from '@hogctl/sandbox';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startVirtualWorld, type VirtualWorld } from '../virtual-harness.js';

let world: VirtualWorld;
let seq = 0;
function person(properties: Record<string, unknown> = {}): Person {
  seq++;
  return world.sandbox.store.addPerson({
    uuid: `0191${String(seq).padStart(4, '0')}-0000-7000-8000-00000000cafe`,
    createdAtUs: Date.UTC(2026, 0, 1 + seq) * 1000,
    distinctIds: [`groups-file-${seq}`],
    properties,
  });
}
const entry = (p: Person) => ({ uuid: p.uuid, distinct_ids: [...p.distinctIds], properties: p.properties });
const line = (persons: Person[], extra: Record<string, unknown> = {}) =>
  JSON.stringify({ project_id: '1', persons: persons.map(entry), ...extra });
const captures = () => world.sandbox.requests.filter((r) => r.path === '/batch/').length;

beforeAll(async () => {
  world = await startVirtualWorld({ persons: 10 });
});
afterAll(() => world.close());

describe('persons merge --groups: the file is checked before anything is sent', () => {
  it('refuses a person in two groups, naming both lines (exit 2)', async () => {
    const [a, b, c] = [person(), person(), person()];
    const before = captures();
    const res = await world.run(['persons', 'merge', '--groups', '-', '--yes'], { stdin: `${line([a, b])}\n${line([b, c])}\n` });
    expect(res.code, res.stderr).toBe(2);
    expect(res.stderr).toContain(
      `standard input line 2 person 1 (${b.uuid}) is also standard input line 1 person 2: a person can be in one group only`,
    );
    expect(captures()).toBe(before);
    expect(world.sandbox.store.getByUuid(a.uuid)).toBeDefined();
    expect(world.sandbox.store.getByUuid(c.uuid)).toBeDefined();
  });

  it('refuses a group larger than --max-group (default 100), and --max-group raises the limit', async () => {
    const many = Array.from({ length: 101 }, () => person());
    const res = await world.run(['persons', 'merge', '--groups', '-', '--yes'], { stdin: `[${line(many)}]` });
    expect(res.code, res.stderr).toBe(2);
    expect(res.stderr).toContain('standard input group 1 has 101 persons: more than --max-group 100; nothing was sent');
    const raised = await world.run(['persons', 'merge', '--groups', '-', '--dry-run', '--max-group', '101'], { stdin: `[${line(many)}]` });
    expect(raised.code, raised.stderr).toBe(0);
    expect(raised.stderr).toContain('groups    1 (100 persons merged away');
  });

  it('refuses a person of another project and a UUID never there, naming the group and the person (exit 3)', async () => {
    const [a, b] = [person(), person()];
    const elsewhere = [...world.sandbox.stores.get(2)!].at(-1)!;
    const invented = { uuid: '0191ffff-0000-7000-8000-00000000dead', distinct_ids: ['never-seen-anywhere'], properties: {} };
    const before = captures();
    const res = await world.run(['persons', 'merge', '--groups', '-', '--yes'], {
      stdin: `${line([a, elsewhere])}\n${JSON.stringify({ project_id: '1', persons: [entry(b), invented] })}\n`,
    });
    expect(res.code, res.stderr).toBe(3);
    expect(res.stderr).toContain(
      `no person in project 1 is standard input line 1 person 2 (${elsewhere.uuid}), standard input line 2 person 2 (${invented.uuid}): neither its UUID nor its distinct ids name a person there; nothing was sent`,
    );
    expect(captures()).toBe(before);
  });

  it('leaves out a group joined through a placeholder, and a person merged into its own group since it was listed', async () => {
    const [a, b] = [person({ email: 'null' }), person({ email: 'null' })];
    const [k, m, o] = [person(), person(), person()];
    const listed = `${line([a, b], { key: { email: 'null' } })}\n${line([k, m, o])}\n`;
    // m is merged into k after the listing.
    world.sandbox.store.moveDistinctId(m.distinctIds[0], k.id);
    world.sandbox.store.removeMerged(m.id);
    const res = await world.run(['persons', 'merge', '--groups', '-', '--dry-run'], { stdin: listed });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toContain(
      `${a.uuid} (project 1): its group shares email="null", a placeholder, not one person's (PostHog refuses to merge on it)`,
    );
    expect(res.stderr).toContain(`${m.uuid} (project 1): merged into ${k.uuid}, of its group, since it was listed`);
    expect(res.stderr).toContain('groups    1 (1 person merged away');
  });
});

describe('persons merge --plan-out: the plan is signed, and --groups applies it only as it was signed', () => {
  it('refuses a plan edited after it was signed, and one written unsigned, sending nothing', async () => {
    const [a, b] = [person({ email: 'signed@example.com' }), person({ email: 'signed@example.com' })];
    const dir = mkdtempSync(join(tmpdir(), 'merge-plan-'));
    const path = join(dir, 'plan.json');
    const made = await world.run(['persons', 'merge', '--groups', '-', '--dry-run', '--plan-out', path], { stdin: line([a, b]) });
    expect(made.code, made.stderr).toBe(0);
    const signed = readFileSync(path, 'utf8');
    expect(JSON.parse(signed)).toMatchObject({ key_id: expect.any(String), hmac_sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const before = captures();
    // The kept person swapped: the signature no longer matches.
    const edited = join(dir, 'edited.json');
    writeFileSync(edited, signed.replace(`"keep": "${a.uuid}"`, `"keep": "${b.uuid}"`));
    const refused = await world.run(['persons', 'merge', '--groups', edited, '--yes']);
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain('was changed after it was signed (its signature does not match its content); nothing was sent');
    // Unsigned, as an earlier hogctl wrote it.
    const { hmac_sha256: _h, key_id: _k, ...body } = JSON.parse(signed) as Record<string, unknown>;
    const unsigned = join(dir, 'unsigned.json');
    writeFileSync(unsigned, `${JSON.stringify(body, null, 2)}\n`);
    const old = await world.run(['persons', 'merge', '--groups', unsigned, '--yes']);
    expect(old.code, old.stderr).toBe(2);
    expect(old.stderr).toContain('is not signed');
    expect(captures()).toBe(before);
    // As signed, it applies.
    const applied = await world.run(['persons', 'merge', '--groups', path, '--yes', '--verify-timeout', '1s']);
    expect(applied.code, applied.stderr).not.toBe(2);
    expect(captures()).toBeGreaterThan(before);
  });
});
