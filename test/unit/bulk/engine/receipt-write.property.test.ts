// The receipt is written piece by piece (its id lists can hold ten million ids), yet its text is
// exactly what JSON.stringify(receipt, null, 2) would give, whatever the values and however long
// the lists.
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { binaryText } from '../../binary-text.js';
import type { Receipt } from '../../../../src/bulk/engine/receipt.js';
import { writeReceipt } from '../../../../src/bulk/engine/receipt-write.js';

const dir = mkdtempSync(join(tmpdir(), 'hogctl-receipt-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const longList = <T>(item: fc.Arbitrary<T>) => fc.array(item, { minLength: 250, maxLength: 700 });
const receiptLike = fc.record(
  {
    status: fc.string(),
    counts: fc.dictionary(fc.string(), fc.oneof(fc.integer(), fc.constant(null), fc.constant(undefined))),
    projects: fc.array(
      fc.record({
        project: fc.string(),
        ids_sent: longList(fc.oneof(fc.uuid(), fc.string(), binaryText())),
        distinct_ids: fc.oneof(fc.constant(null), longList(fc.string())),
        verification: fc.jsonValue(),
      }),
      { maxLength: 3 },
    ),
    failed_chunks: longList(fc.record({ chunk: fc.nat(), ids: fc.array(fc.uuid(), { maxLength: 3 }) })),
    mixed: longList(fc.oneof(fc.jsonValue(), fc.constant(undefined))),
    empty: fc.constantFrom({}, []),
    anything: fc.jsonValue(),
  },
  { requiredKeys: ['status', 'projects'] },
);

describe('writeReceipt (properties)', () => {
  it('writes the text JSON.stringify(receipt, null, 2) gives, and leaves no temporary file', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(receiptLike, async (value) => {
        const path = join(dir, `r${n++}.json`);
        await writeReceipt(path, value as unknown as Receipt);
        expect(readFileSync(path, 'utf8')).toBe(`${JSON.stringify(value, null, 2)}\n`);
      }),
      { numRuns: 60 },
    );
    expect(readdirSync(dir).filter((f) => f.includes('.tmp-'))).toEqual([]);
  });

  it('keeps the order of text larger than its buffer, and of many ids past it', async () => {
    const value = {
      error: 'é'.repeat(700_000),
      projects: [{ ids_sent: Array.from({ length: 60_000 }, (_, i) => (i % 7 === 0 ? `"quoted\\${i}\u2028` : `id-${i}-\ud83d\ude00`)) }],
      note: 'x'.repeat(2_000_000),
    };
    const path = join(dir, 'big.json');
    await writeReceipt(path, value as unknown as Receipt);
    expect(readFileSync(path, 'utf8')).toBe(`${JSON.stringify(value, null, 2)}\n`);
  });
});
