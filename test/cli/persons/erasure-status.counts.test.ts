// `persons erasure-status` counts what the erasure deleted: ids that named no person were never
// persons, and are not "still gone".
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVirtualWorld, type VirtualWorld } from '../virtual-harness.js';

let world: VirtualWorld;
beforeAll(async () => {
  world = await startVirtualWorld({ persons: 30 });
});
afterAll(() => world.close());

async function erase(ids: string[], name: string): Promise<string> {
  const file = join(world.configDir, `${name}.txt`);
  writeFileSync(file, `${ids.join('\n')}\n`);
  const receipt = join(world.configDir, `${name}.receipt.json`);
  const res = await world.run(['persons', 'bulk-delete', '--file', file, '--yes', '--receipt', receipt]);
  expect(res.code, res.stderr).toBe(0);
  return receipt;
}

describe('persons erasure-status', () => {
  it('of an erasure whose ids named no one says it deleted no one, not that they are still gone', async () => {
    const receipt = await erase(
      Array.from({ length: 2_000 }, () => randomUUID()),
      'nobody',
    );
    const res = await world.run(['persons', 'erasure-status', '--receipt', receipt]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toContain('✔ the erasure deleted no one: none of the 2,000 ids it sent names a person now');
    expect(res.stderr).not.toContain('still gone');
  });

  it('counts the persons deleted apart from the ids that named no one', async () => {
    const persons = [...world.sandbox.store].slice(0, 3).map((p) => p.uuid);
    const receipt = await erase([...persons, randomUUID(), randomUUID()], 'some');
    const res = await world.run(['persons', 'erasure-status', '--receipt', receipt]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toContain(
      '✔ the erasure is complete: the 3 persons it deleted are still gone; the other 2 ids it sent named no person',
    );
  });
});
