// The JSON a dry run prints is what a CI gate reads before it lets a deletion run: it carries
// what the plan found, not the zero of a run that sent nothing.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVirtualWorld, type VirtualWorld } from '../virtual-harness.js';

let world: VirtualWorld;
beforeAll(async () => {
  world = await startVirtualWorld({ persons: 40 });
});
afterAll(() => world.close());

describe('bulk-delete --dry-run -o json', () => {
  it('says how many persons the addresses name, as the plan on stderr does', async () => {
    const emails = [...world.sandbox.store]
      .map((p) => p.properties.email)
      .filter((e) => typeof e === 'string')
      .slice(0, 5);
    const file = join(world.configDir, 'emails.txt');
    writeFileSync(file, `${emails.join('\n')}\nnobody@example.com\n`);
    const res = await world.run(['persons', 'bulk-delete', '--emails', file, '--dry-run', '-o', 'json']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toContain('5 e-mail addresses name 5 persons');
    expect(JSON.parse(res.stdout)).toMatchObject({ status: 'dry_run', persons_found: 5, persons_deleted: 0, unmatched_identifiers: 1 });
  });

  it('says null, not 0, for a plain file of ids, which goes out as given without a lookup', async () => {
    const file = join(world.configDir, 'ids.txt');
    writeFileSync(
      file,
      `${[...world.sandbox.store]
        .slice(0, 3)
        .map((p) => p.uuid)
        .join('\n')}\n`,
    );
    const res = await world.run(['persons', 'bulk-delete', '--file', file, '--dry-run', '-o', 'json']);
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ status: 'dry_run', persons_found: null, unique: 3 });
  });
});
