// Reliability, in this process on virtual time (test/cli/virtual-harness.ts): `persons update` and
// `persons delete` when every attempt meets the fault, so the retries and their backoff (0.5 s
// doubling, six attempts) run out. On the real clock each of these waited 15 s or more. Against
// the built binary: test/reliability/write-faults.test.ts keeps "persons update, database
// unavailable" with its retries spent, and meets every fault once per command ("under <kind>").
import { describe, expect, it } from 'vitest';
import type { Person } from '@hogctl/sandbox';
import { errorLine, eventually, expectCleanFailure } from './helpers.js';
import { startVirtualWorld, type VirtualRun, type VirtualWorld } from '../cli/virtual-harness.js';

// Each test has a sandbox of its own, so that they can run side by side (one waits out real
// timeouts of slow answers).
describe.concurrent('when every retry meets the fault', () => {
  async function spent(
    spec: string,
    command: (p: Person) => string[],
    check: (w: VirtualWorld, p: Person, res: VirtualRun) => Promise<void>,
  ) {
    const own = await startVirtualWorld({ persons: 2, seed: 9, applyDelayMs: 0 });
    try {
      const person = own.sandbox.store.list({}, 0, 1)[0]!;
      own.sandbox.setFaults(spec);
      const res = await own.run(command(person));
      own.sandbox.setFaults();
      expectCleanFailure(own, res);
      expect(errorLine(res)).toMatch(/\(after 6 attempts\)$/);
      await check(own, person, res);
    } finally {
      await own.close();
    }
  }
  const update = (p: Person) => ['persons', 'update', p.uuid, '--set', 'plan=spent', '--timeout', '1'];
  const remove = (p: Person) => ['persons', 'delete', p.uuid, '--yes', '--timeout', '1'];

  it('persons update, still throttled: exit 6, nothing applied (a 429 is a refusal), a rerun applies it', async () => {
    await spent('429=1', update, async (w, p, res) => {
      expect(res.code).toBe(6);
      expect(errorLine(res)).toMatch(/failed with 429/);
      expect(res.stderr).not.toMatch(/may or may not/);
      expect(w.sandbox.store.getByUuid(p.uuid)!.properties.plan).not.toBe('spent');
      expect((await w.run(update(p))).code).toBe(0);
      await eventually(() => w.sandbox.store.getByUuid(p.uuid)!.properties.plan === 'spent', 'the rerun applied');
    });
  });

  it('persons delete, throttled without Retry-After: exit 6, the person still there; a rerun deletes it', async () => {
    await spent('429-no-retry=1', remove, async (w, p, res) => {
      expect(res.code).toBe(6);
      expect(w.sandbox.store.getByUuid(p.uuid)).toBeDefined();
      expect((await w.run(remove(p))).code).toBe(0);
      expect(w.sandbox.store.getByUuid(p.uuid)).toBeUndefined();
    });
  });

  it('persons delete, connection dropped every time: exit 7 saying it may not have happened; a rerun deletes the person', async () => {
    await spent('drop=1', remove, async (w, p, res) => {
      expect(res.code).toBe(7);
      expect(errorLine(res)).toMatch(
        new RegExp(`^error: the deletion of person ${p.uuid} may or may not have been applied: .*connection was closed`),
      );
      expect(w.sandbox.store.getByUuid(p.uuid)).toBeDefined();
      expect((await w.run(remove(p))).code).toBe(0);
      expect(w.sandbox.store.getByUuid(p.uuid)).toBeUndefined();
    });
  });

  it('persons delete, every answer too slow: exit 7 though the server deleted the person; a rerun says it is gone', async () => {
    // The timeouts are real (1 s each, the answers take 1.5 s); the backoff between them is not.
    await spent('slow=1@1500', remove, async (w, p, res) => {
      expect(res.code).toBe(7);
      expect(errorLine(res)).toMatch(
        new RegExp(`^error: the deletion of person ${p.uuid} may or may not have been applied: .*timed out after 1s`),
      );
      expect(res.stderr).toMatch(/if it says the person is not found, it is gone/);
      await eventually(() => w.sandbox.store.getByUuid(p.uuid) === undefined, 'the slow deletion applied');
      const again = await w.run(remove(p));
      expect(again.code).toBe(3);
      expect(errorLine(again)).toContain(`person ${p.uuid} not found`);
    });
  });
});
