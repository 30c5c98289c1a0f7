// Reliability: Ctrl-C while bulk-delete verifies. Every deletion was answered by then, so the
// run writes its receipt (verification: interrupted) and prints the resume command, as an
// interrupt while sending does; --resume sends nothing and verifies only what was left.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, startWorld, until, type World } from '../e2e/harness.js';

let world: World;
let dir: string;

beforeAll(async () => {
  world = await startWorld({ persons: 2500, seed: 53 });
  dir = mkdtempSync(join(tmpdir(), 'hogctl-verify-interrupt-'));
});
afterAll(async () => {
  await world.close();
  rmSync(dir, { recursive: true, force: true });
});

const reads = () => world.sandbox.requests.filter((r) => r.path.endsWith('/batch_by_uuids/')).length;
const posts = () => world.sandbox.requests.filter((r) => r.path.endsWith('/bulk_delete/')).length;

describe('Ctrl-C during the verification', () => {
  it('writes the receipt (verification: interrupted), prints the resume command, and the resume verifies only what is left', async () => {
    const ids = world.sandbox.store.listUuids(0, 2000);
    const path = join(dir, 'ids.txt');
    writeFileSync(path, `${ids.join('\n')}\n`);
    const receiptPath = join(dir, 'ids.receipt.json');
    // 10 reads of 200 at 30 a minute: one every 2 s, time enough to interrupt in the middle.
    const args = ['persons', 'bulk-delete', '--file', path, '--receipt', receiptPath, '--read-rate', '30', '-y'];
    const child = spawn(process.execPath, [BIN, ...args], { env: cleanEnv(world.env), stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    await until(() => reads() >= 2, 'two reads of the verification');
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(stderr).toMatch(/interrupted while verifying: .*every request was answered/);
    const resume = /^\s+hogctl (persons bulk-delete .* --resume)$/m.exec(stderr)?.[1];
    expect(resume, stderr).toBeDefined();
    const receipt = JSON.parse(readFileSync(receiptPath, 'utf8'));
    expect(receipt.status).toBe('completed');
    expect(receipt.counts).toMatchObject({ sent: 2000, persons_deleted: 2000 });
    expect(receipt.verification.status).toBe('interrupted');
    const readBefore = reads();
    const checkedBefore = receipt.verification.checked as number;
    expect(checkedBefore).toBeGreaterThanOrEqual(200);
    expect(checkedBefore).toBeLessThan(2000);

    const postsBefore = posts();
    const resumed = await world.run([...resume!.split(' '), '--read-rate', '6000', '-y']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(posts()).toBe(postsBefore);
    // Only the ids not yet found gone are read again.
    expect(reads() - readBefore).toBe(Math.ceil((2000 - checkedBefore) / 200));
    const after = JSON.parse(readFileSync(receiptPath, 'utf8'));
    expect(after.verification).toMatchObject({ status: 'gone', checked: 2000, still_present: 0 });
  });
});
