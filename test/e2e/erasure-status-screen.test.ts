// End-to-end, on a real 80-column terminal: `persons erasure-status` of an erasure whose event
// deletions wait for PostHog's weekly job shows the counts that explain "pending", and says the
// wait is normal (exit 8 for scripts) without a red "error:".
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type World } from './harness.js';
import { runInTerminal } from './terminal.js';

let world: World;
let dir: string;
beforeAll(async () => {
  world = await startWorld({ persons: 50 });
  dir = mkdtempSync(join(tmpdir(), 'hogctl-erasure-screen-'));
});
afterAll(async () => {
  await world.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('erasure-status at 80 columns', () => {
  it('shows events_pending beside pending, and says the weekly wait without error:', async () => {
    const emails = join(dir, 'emails.txt');
    writeFileSync(emails, 'user5@example.com\nuser7@example.com\n');
    const receipt = join(dir, 'r.json');
    const erase = await world.run(['persons', 'bulk-delete', '--emails', emails, '--delete-events', '-y', '--receipt', receipt]);
    expect(erase.code, erase.stderr).toBe(0);

    const res = await runInTerminal(['persons', 'erasure-status', '--receipt', receipt], world.env, [], 30_000, { columns: 80, rows: 24 });
    expect(res.code).toBe(8);
    const lines = res.output.replace(/\r/g, '').split('\n').filter(Boolean);
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80);
    const header = lines.find((l) => l.startsWith('project'))!;
    expect(header.split(/\s+/)).toEqual(['project', 'status', 'persons_checked', 'events_pending']);
    expect(lines[lines.indexOf(header) + 1].split(/\s+/)).toEqual(['1', 'pending', '2', '2']);
    expect(res.output).not.toContain('left out to fit');
    expect(res.output).toContain('the erasure is not done yet: project 1: the deletion of the events of 2');
    expect(res.output).not.toContain('error:');
  });
});
