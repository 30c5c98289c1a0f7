// A reviewer applying a signed plan reads the addresses that named no one as they were given (the
// plan keeps them encrypted under the evidence key), not as 64-hex hashes that fill a screen; so
// does the summary of a run stopped with Ctrl-C. A plan that keeps only their hashes shows a count.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVirtualWorld, type VirtualWorld } from '../virtual-harness.js';

let world: VirtualWorld;
// Every deletion answers 503: the run retries until it is stopped.
let failing: VirtualWorld;
beforeAll(async () => {
  world = await startVirtualWorld({ persons: 30, applyDelayMs: 0 });
  failing = await startVirtualWorld({ persons: 30, applyDelayMs: 0, faults: '503=1,path=bulk_delete' });
});
afterAll(async () => {
  await world.close();
  await failing.close();
});

const nobody = Array.from({ length: 20 }, (_, i) => `nobody${i + 1}@example.org`);
const HEX64 = /\b[0-9a-f]{64}\b/;

/** A plan of an erasure of `persons` stored addresses and the 20 addresses of no one. */
async function makePlan(name: string, persons: string[], world: VirtualWorld): Promise<string> {
  const emails = join(world.configDir, `${name}.txt`);
  const stored = persons.map((d) => world.sandbox.store.getByDistinctId(d)!.properties.email as string);
  writeFileSync(emails, [...stored, ...nobody].join('\n') + '\n');
  const plan = join(world.configDir, `${name}.plan.json`);
  const made = await world.run(['persons', 'bulk-delete', '--emails', emails, '--dry-run', '--plan-out', plan]);
  expect(made.code, made.stderr).toBe(0);
  return plan;
}

/** What a person reads, the lines a terminal wrapped joined again. */
const unwrapped = (text: string) => text.replace(/ *\n */g, ' ');

/** The rows a line of text takes on a terminal `columns` wide. */
const rows = (text: string, columns: number) =>
  text.split('\n').reduce((k, line) => k + Math.max(1, Math.ceil([...line].length / columns)), 0);

describe('a signed plan applied', () => {
  it('shows the addresses that named no one to the holder of the evidence key, and the plan fits a 24-row screen', async () => {
    const plan = await makePlan('review', ['user-1'], world);
    // In the file they are neither in clear nor only hashed: sealed.
    const text = readFileSync(plan, 'utf8');
    expect(text).not.toContain('nobody1@example.org');
    expect(JSON.parse(text).identifiers.unmatched_sealed).toHaveLength(20);

    const res = await world.run(['persons', 'bulk-delete', '--plan', plan, '--dry-run'], { terminal: { columns: 80 } });
    expect(res.code, res.stderr).toBe(0);
    expect(unwrapped(res.stderr)).toContain(
      '20 e-mail addresses name no person (the receipt lists them): nobody1@example.org, nobody2@example.org',
    );
    expect(unwrapped(res.stderr)).toContain('nobody8@example.org, … and 12 more');
    expect(res.stderr).not.toMatch(HEX64);
    const planShown = res.stderr.slice(res.stderr.indexOf('Plan:'));
    expect(rows(planShown, 80)).toBeLessThanOrEqual(24);
  });

  it('says the addresses in the summary of a run stopped with Ctrl-C', async () => {
    const plan = await makePlan('stopped', ['user-2', 'user-3'], failing);
    const res = await failing.run(['persons', 'bulk-delete', '--plan', plan, '--yes'], {
      terminal: { columns: 80 },
      interruptWhen: /retry/i,
    });
    expect(res.code, res.stderr).toBe(130);
    const planShown = res.stderr.slice(res.stderr.indexOf('Plan:'), res.stderr.indexOf('\u001b'));
    expect(rows(planShown, 80)).toBeLessThanOrEqual(24);
    expect(unwrapped(res.stderr)).toContain('20 named no one (nobody1@example.org, nobody2@example.org');
    expect(res.stderr).not.toMatch(HEX64);
  });

  it('made before the addresses were kept sealed shows their count, never their hashes', async () => {
    const plan = await makePlan('older', ['user-4'], world);
    const body = JSON.parse(readFileSync(plan, 'utf8'));
    delete body.identifiers.unmatched_sealed;
    // Signed again under the same key, as an earlier hogctl would have written it.
    const { planFileText } = await import('../../../src/bulk/engine/plan-file.js');
    const { readEvidenceKey } = await import('../../../src/config/evidence-key.js');
    delete body.hmac_sha256;
    writeFileSync(plan, planFileText(body, readEvidenceKey(world.env)!.plan));
    const res = await world.run(['persons', 'bulk-delete', '--plan', plan, '--dry-run'], { terminal: { columns: 80 } });
    expect(res.code, res.stderr).toBe(0);
    expect(unwrapped(res.stderr)).toContain('20 e-mail addresses name no person (the plan keeps them by hash only');
    expect(res.stderr).not.toMatch(HEX64);
  });
});
