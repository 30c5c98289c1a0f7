// An empty --where value is refused by every verb that selects with it (exit 2, nothing sent):
// `DOMAIN=""; hogctl persons bulk-delete --where "email~$DOMAIN" -y` once deleted every person
// with an address. Shared by the tests of bulk-delete, bulk-update and list.
import { expect, it } from 'vitest';
import type { World } from '../harness.js';

export const EMPTY_WHERE_TITLE = 'an empty --where value: exit 2 and nothing sent, where it would have chosen almost everyone';

/** One test for each operator left without its value, for `persons <verb> ...extra`. */
export function itRefusesEveryEmptyWhere(world: () => World, verb: 'bulk-delete' | 'bulk-update' | 'list', extra: string[] = []): void {
  for (const where of ['email~', 'plan!=', 'plan=', 'email!~', 'age>', 'age<']) {
    it(`persons ${verb} --where ${where}`, async () => {
      const w = world();
      const before = w.sandbox.requests.length;
      const count = w.sandbox.store.count();
      const res = await w.run(['persons', verb, '--where', where, ...extra, ...(verb === 'list' ? [] : ['-y'])]);
      expect(res.code).toBe(2);
      expect(res.stderr).toContain(`invalid --where "${where}": the value after`);
      expect(res.stderr).toContain('has:');
      expect(res.stdout).toBe('');
      expect(w.sandbox.requests.length).toBe(before);
      expect(w.sandbox.store.count()).toBe(count);
    });
  }
}
