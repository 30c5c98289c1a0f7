// A receipt is evidence handed to someone else: it says who ran the job (the key's user) and
// which request it answered (--reference), for a deletion, an update and a merge alike.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVirtualWorld, type VirtualWorld } from '../virtual-harness.js';

let world: VirtualWorld;
beforeAll(async () => {
  world = await startVirtualWorld({ persons: 12, duplicates: 1, applyDelayMs: 0 });
});
afterAll(() => world.close());

const read = (file: string) => JSON.parse(readFileSync(file, 'utf8'));
const uuids = () => [...world.sandbox.store].map((p) => p.uuid);

describe('a receipt', () => {
  it('of an erasure names who ran it and the ticket, and a resume keeps the ticket', async () => {
    const file = join(world.configDir, 'erase.txt');
    writeFileSync(file, `${uuids()[0]}\n`);
    const receipt = join(world.configDir, 'erase.receipt.json');
    const args = ['persons', 'bulk-delete', '--file', file, '--yes', '--receipt', receipt];
    const res = await world.run([...args, '--reference', ' DPO-1234 ']);
    expect(res.code, res.stderr).toBe(0);
    expect(read(receipt)).toMatchObject({ reference: 'DPO-1234', run_by: world.sandbox.login.email });
    // The project by name, though the run was given only its id.
    expect(read(receipt).projects[0]).toMatchObject({ project: '1', name: world.sandbox.world.projects[0].name });
    const again = await world.run([...args, '--resume']);
    expect(again.code, again.stderr).toBe(0);
    expect(read(receipt).reference).toBe('DPO-1234');
  });

  it('of an update and of a merge keeps the ticket too', async () => {
    const file = join(world.configDir, 'update.txt');
    writeFileSync(file, `${uuids()[1]}\n`);
    const updated = join(world.configDir, 'update.receipt.json');
    const res = await world.run([
      'persons',
      'bulk-update',
      '--file',
      file,
      '--set',
      'plan=pro',
      '--yes',
      '--receipt',
      updated,
      '--reference',
      'CRM-7',
    ]);
    expect(res.code, res.stderr).toBe(0);
    expect(read(updated)).toMatchObject({ reference: 'CRM-7', run_by: world.sandbox.login.email });

    const groups = join(world.configDir, 'groups.json');
    writeFileSync(groups, (await world.run(['persons', 'duplicates', '-o', 'json'])).stdout);
    const merged = join(world.configDir, 'merge.receipt.json');
    const merge = await world.run(['persons', 'merge', '--groups', groups, '--yes', '--receipt', merged, '--reference', 'DUP-9']);
    expect(merge.code, merge.stderr).toBe(0);
    expect(read(merged)).toMatchObject({ reference: 'DUP-9', run_by: world.sandbox.login.email });
  });

  it('of a reviewed plan applied names the input the plan was made from, and the plan', async () => {
    const emails = join(world.configDir, 'erasure-emails.txt');
    writeFileSync(emails, `${world.sandbox.store.getByDistinctId('user-3')!.properties.email}\n`);
    const plan = join(world.configDir, 'plan.json');
    const made = await world.run(['persons', 'bulk-delete', '--emails', emails, '--dry-run', '--plan-out', plan]);
    expect(made.code, made.stderr).toBe(0);
    const receipt = join(world.configDir, 'plan.receipt.json');
    const res = await world.run(['persons', 'bulk-delete', '--plan', plan, '--yes', '--receipt', receipt, '--reference', 'DPO-2']);
    expect(res.code, res.stderr).toBe(0);
    expect(read(receipt).input).toMatchObject({ file: emails, plan });
  });

  it('refuses a reference of only spaces before anything is sent', async () => {
    const res = await world.run(['persons', 'bulk-delete', '--file', 'none.txt', '--yes', '--reference', '  ']);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('invalid --reference');
  });
});
