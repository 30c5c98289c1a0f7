// The two pages a DPO hands over, the erasure report (`persons receipt --html`) and the summary of
// a subject-access bundle (summary.html), hold no key (the personal key, a project's key, the
// evidence key) and no data of anyone but the person asked about.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readEvidenceKey } from '../../../src/config/evidence-key.js';
import { startVirtualWorld, type VirtualWorld } from '../virtual-harness.js';

let world: VirtualWorld;
beforeAll(async () => {
  world = await startVirtualWorld({ persons: 8, applyDelayMs: 0 });
});
afterAll(() => world.close());

interface StoredPerson {
  uuid: string;
  distinctIds: string[];
  properties: Record<string, unknown>;
}
const persons = () => [...world.sandbox.store] as StoredPerson[];

/** What no page may hold: every key this world has. */
function keys(): string[] {
  const evidence = readEvidenceKey(world.env);
  return [world.sandbox.defaultKey, ...world.sandbox.world.projects.map((p) => p.apiToken), ...(evidence ? [evidence.hex] : [])];
}

/** Fails on any key, and on any uuid, distinct id or address of a person but `subject`. */
function expectOnlySubject(page: string, subject: string | null): void {
  for (const key of keys()) expect(page).not.toContain(key);
  for (const p of persons().filter((x) => x.uuid !== subject)) {
    for (const mark of [p.uuid, ...p.distinctIds, String(p.properties.email ?? p.uuid)]) expect(page, mark).not.toContain(mark);
  }
}

describe('the pages handed over', () => {
  it('the erasure report holds no key, and no one but the erased person', async () => {
    const erased = persons().find((p) => p.distinctIds.includes('user-4'))!;
    const emails = join(world.configDir, 'erasure-emails.txt');
    writeFileSync(emails, `${String(erased.properties.email)}\nnobody@example.org\n`);
    const receipt = join(world.configDir, 'erasure.receipt.json');
    const run = await world.run(['persons', 'bulk-delete', '--emails', emails, '--yes', '--receipt', receipt, '--reference', 'DPO-77']);
    expect(run.code, run.stderr).toBe(0);
    const html = join(world.configDir, 'erasure.html');
    const res = await world.run(['persons', 'receipt', receipt, '--html', html]);
    expect(res.code, res.stderr).toBe(0);
    const page = readFileSync(html, 'utf8');
    expect(page).toContain('DPO-77');
    expectOnlySubject(page, erased.uuid);
    // Nor the addresses asked about: the receipt names them by a keyed hash.
    expect(page).not.toContain(String(erased.properties.email));
    expect(page).not.toContain('nobody@example.org');
  });

  it("the subject-access summary shows the subject's data, holds no key, and no one else's", async () => {
    const subject = persons().find((p) => p.distinctIds.includes('user-2'))!;
    const out = join(world.configDir, 'sar');
    const res = await world.run(['persons', 'export', '--email', String(subject.properties.email), '--out', out]);
    expect(res.code, res.stderr).toBe(0);
    const page = readFileSync(join(out, 'summary.html'), 'utf8');
    expect(page).toContain(subject.uuid);
    expect(page).toContain(String(subject.properties.email));
    for (const id of subject.distinctIds) expect(page).toContain(id);
    expectOnlySubject(page, subject.uuid);
  });
});
