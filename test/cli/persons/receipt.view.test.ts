// `persons receipt` shows a receipt as a person reads it: on an 80-column terminal, and as a
// one-page HTML report that holds no key and nothing but the request's own facts.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVirtualWorld, type VirtualWorld } from '../virtual-harness.js';

let world: VirtualWorld;
let receipt = '';
beforeAll(async () => {
  world = await startVirtualWorld({ persons: 8 });
  const file = join(world.configDir, 'erasure-emails.txt');
  writeFileSync(file, 'user1@example.com\nnobody@example.org\n');
  receipt = join(world.configDir, 'erasure.receipt.json');
  const args = ['persons', 'bulk-delete', '--emails', file, '--delete-events', '--yes', '--receipt', receipt, '--reference', 'DPO-1234'];
  const res = await world.run(args);
  expect(res.code, res.stderr).toBe(0);
});
afterAll(() => world.close());

describe('persons receipt', () => {
  it('says what was asked, by whom, what was done and what PostHog still holds, within 80 columns', async () => {
    const res = await world.run(['persons', 'receipt', receipt], { terminal: { columns: 80 } });
    expect(res.code, res.stderr).toBe(0);
    const lines = res.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('persons bulk-delete: completed');
    const text = res.stdout.replace(/\s+/g, ' ');
    expect(text).toContain('reference DPO-1234');
    expect(text).toContain(`run by ${world.sandbox.login.email}`);
    expect(text).toContain('found 1 identifier matched 1 person; 1 named no one');
    expect(text).toContain('persons deleted 1');
    expect(text).toContain("their events until PostHog's weekly deletion runs (Saturday night UTC, after the person-overrides squash)");
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(80);
  });

  it('writes a one-page HTML report with no key and no identifiers', async () => {
    const html = join(world.configDir, 'report.html');
    const res = await world.run(['persons', 'receipt', receipt, '--html', html]);
    expect(res.code, res.stderr).toBe(0);
    const page = readFileSync(html, 'utf8');
    expect(page).toContain('<td>DPO-1234</td>');
    expect(page).toContain(world.sandbox.login.email);
    expect(page).not.toContain(world.sandbox.defaultKey);
    for (const secretish of ['user1@example.com', 'nobody@example.org', 'user-1', '<script']) expect(page).not.toContain(secretish);
  });

  it('refuses a file that is not a receipt', async () => {
    const other = join(world.configDir, 'other.json');
    writeFileSync(other, '{"a": 1}');
    const res = await world.run(['persons', 'receipt', other]);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('is not a receipt of a hogctl bulk job');
  });
});
