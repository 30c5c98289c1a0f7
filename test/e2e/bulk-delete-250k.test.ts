// End-to-end: `hogctl persons bulk-delete` of 250,000 distinct ids, the built binary against a
// sandbox of its own. Apart from test/e2e/bulk-delete.test.ts, so that the two long files run
// side by side.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startWorld, type World } from './harness.js';
import type { RecordedRequest } from '@hogctl/sandbox';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'hogctl-bulk-250k-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A value of each of the first `n` persons, a page at a time so that few persons are held at once. */
function collect(w: World, n: number, pick: (p: { uuid: string; distinctIds: string[] }) => string): string[] {
  const out: string[] = [];
  for (let offset = 0; offset < n; offset += 1000)
    for (const p of w.sandbox.store.list({}, offset, Math.min(1000, n - offset))) out.push(pick(p));
  return out;
}

function bulkRequests(since: number, w: World): RecordedRequest[] {
  return w.sandbox.requests.slice(since).filter((r) => r.path.endsWith('/persons/bulk_delete/'));
}

function sentIds(requests: RecordedRequest[]): string[] {
  return requests.flatMap((r) => {
    const body = JSON.parse(r.body);
    return body.ids ?? body.distinct_ids;
  });
}

describe('250,000 distinct ids', () => {
  it('deletes every person, sends each id once in at most 250 requests, and the receipt matches the sandbox', async () => {
    const big = await startWorld({ persons: 250_000, seed: 5 });
    try {
      const ids = collect(big, 250_000, (p) => p.distinctIds[0]);
      expect(new Set(ids).size).toBe(250_000);
      // 3% duplicates spread through the file, some CRLF lines, a BOM and a comment.
      const lines: string[] = ['# GDPR erasure, ticket 4711'];
      let dupes = 0;
      ids.forEach((id, i) => {
        lines.push(i % 10 === 3 ? `${id}\r` : id);
        if (i % 100 < 3) {
          lines.push(ids[Math.floor(i / 2)]);
          dupes++;
        }
      });
      expect(dupes).toBe(7500);
      const path = join(dir, 'big.txt');
      writeFileSync(path, `\uFEFF${lines.join('\n')}\n`);
      const receiptPath = join(dir, 'big-receipt.json');
      const before = big.sandbox.requests.length;
      const res = await big.run(
        [
          'persons',
          'bulk-delete',
          '--file',
          path,
          '--distinct-ids',
          // Distinct ids are looked up first (1,250 reads of 200): not at PostHog's 240 a minute here.
          '--read-rate',
          '1000000',
          '--rate',
          '100000',
          '--concurrency',
          '8',
          '-y',
          // Verifying 250,000 persons reads at PostHog's 240 requests a minute: 5 minutes.
          '--no-verify',
          '-o',
          'json',
          '--receipt',
          receiptPath,
        ],
        { timeoutMs: 120_000 },
      );
      expect(res.stderr).not.toMatch(/error/);
      expect(res.code).toBe(0);

      expect(big.sandbox.store.size).toBe(0);
      expect(big.sandbox.store.deletedCount).toBe(250_000);
      const requests = bulkRequests(before, big);
      expect(requests.length).toBeLessThanOrEqual(250);
      const sent = sentIds(requests);
      expect(sent).toHaveLength(250_000);
      expect(new Set(sent).size).toBe(250_000);
      // Looked up, the persons go by UUID.
      expect(requests.every((r) => r.status === 202 && 'ids' in JSON.parse(r.body))).toBe(true);

      const receiptText = readFileSync(receiptPath, 'utf8');
      const receipt = JSON.parse(receiptText);
      expect(receipt.status).toBe('completed');
      expect(receipt.counts).toMatchObject({
        requested: 257_500,
        unique: 250_000,
        duplicates: 7500,
        invalid: 0,
        sent: 250_000,
        failed: 0,
        not_sent: 0,
        persons_found: big.sandbox.store.deletedCount,
        persons_deleted: big.sandbox.store.deletedCount,
      });
      expect(receipt.not_reported).toEqual([]);
      expect(receipt.id_list_sha256).toBe(
        createHash('sha256')
          .update(`${[...ids].sort().join('\n')}\n`)
          .digest('hex'),
      );
      expect(JSON.parse(res.stdout)).toMatchObject({ status: 'completed', sent: 250_000, persons_deleted: 250_000, receipt: receiptPath });
      // The journal and the receipt hold ids, never the key.
      expect(receiptText).not.toContain(big.env.HOGCTL_API_KEY);
      expect(readFileSync(receipt.journal, 'utf8')).not.toContain(big.env.HOGCTL_API_KEY);
    } finally {
      await big.close();
    }
    // 250,000 persons seeded, looked up by distinct id (1,250 reads) and deleted: up to a minute
    // and a half on a loaded two-core machine; a limit of its own, never a measure.
  }, 240_000);
});
