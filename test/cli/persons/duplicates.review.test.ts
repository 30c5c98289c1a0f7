// The review shows who is who, and the default rule keeps the person a reviewer would: an
// anonymous device person created first (no name, an address with spaces around it, not
// identified) and the identified person who signed in later with the same address. The terminal
// review, the CSV rows and the merge plan name each by e-mail, name, identified or not, events,
// created and last seen; the merge keeps the identified one. In this process against the sandbox.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Person } from '@hogctl/sandbox';
import { startVirtualWorld, type VirtualWorld } from '../virtual-harness.js';

let world: VirtualWorld;
let device: Person;
let signedIn: Person;

beforeAll(async () => {
  world = await startVirtualWorld({ persons: 10 });
  const store = world.sandbox.store;
  device = store.addPerson({
    uuid: '01920000-0000-7000-8000-0000000000d1',
    createdAtUs: Date.UTC(2025, 0, 1) * 1000,
    distinctIds: ['device-7f3a'],
    properties: { email: ' mia@corp.example ', $browser: 'Safari' },
  });
  signedIn = store.addPerson({
    uuid: '01920000-0000-7000-8000-0000000000d2',
    createdAtUs: Date.UTC(2025, 5, 1) * 1000,
    distinctIds: ['mia-42'],
    properties: { email: 'mia@corp.example', name: 'Mia Rossi', plan: 'team' },
    isIdentified: true,
  });
});
afterAll(() => world.close());

describe('who is who', () => {
  it('the terminal review names each candidate by e-mail, name and whether identified', async () => {
    const res = await world.run(['persons', 'duplicates'], { terminal: { columns: 100 } });
    expect(res.code, res.stderr).toBe(0);
    const lines = res.stdout.split('\n');
    const at = (uuid: string) => lines.findIndex((l) => l.startsWith(`  ${uuid}`));
    expect(lines[at(device.uuid)]).toBe(`  ${device.uuid}  not identified`);
    expect(lines[at(device.uuid) + 1]).toBe('    email " mia@corp.example ", name (none)');
    expect(lines[at(signedIn.uuid)]).toBe(`  ${signedIn.uuid}  identified`);
    expect(lines[at(signedIn.uuid) + 1]).toBe('    email "mia@corp.example", name "Mia Rossi"');
  });

  it('the CSV rows carry the e-mail address and the name', async () => {
    const res = await world.run(['persons', 'duplicates', '-o', 'csv']);
    expect(res.code, res.stderr).toBe(0);
    const [header, ...rows] = res.stdout.trim().split('\n');
    expect(header).toBe('group,project_id,key,uuid,email,name,distinct_ids,created_at,last_seen,event_count,is_identified,differing');
    expect(rows.find((r) => r.includes(signedIn.uuid))).toContain(`${signedIn.uuid},mia@corp.example,Mia Rossi,mia-42,`);
    expect(rows.find((r) => r.includes(device.uuid))).toContain(`${device.uuid}, mia@corp.example ,,device-7f3a,`);
  });

  it('the plan keeps the identified person by default, says the rule, and names who each person is', async () => {
    const dup = await world.run(['persons', 'duplicates', '-o', 'ndjson']);
    const res = await world.run(['persons', 'merge', '--groups', '-', '--dry-run'], { stdin: dup.stdout });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toContain('by --keep identified (an identified person, then the one with the most events, then the oldest)');
    expect(res.stderr).toContain(
      `keep ${signedIn.uuid} (mia-42): email "mia@corp.example", name "Mia Rossi", identified, 0 events, created 2025-06-01 00:00, last seen never`,
    );
    expect(res.stderr).toContain(
      `← ${device.uuid} (device-7f3a): email " mia@corp.example ", name (none), not identified, 0 events, created 2025-01-01 00:00, last seen never`,
    );
    const oldest = await world.run(['persons', 'merge', '--groups', '-', '--dry-run', '--keep', 'oldest'], { stdin: dup.stdout });
    expect(oldest.stderr).toContain(`keep ${device.uuid} (device-7f3a): email " mia@corp.example "`);
    expect(oldest.stderr).toContain('by --keep oldest (the earliest created)');
  });
});
