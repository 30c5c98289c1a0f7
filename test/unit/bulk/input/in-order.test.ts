import { describe, expect, it } from 'vitest';
import { inOrder } from '../../../../src/bulk/input/in-order.js';

/** A call that ends when told to, with a log of the calls on their way. */
function calls() {
  const ends: (() => void)[] = [];
  let onTheirWay = 0;
  let most = 0;
  const start = (i: number) =>
    new Promise<number>((resolve, reject) => {
      onTheirWay++;
      most = Math.max(most, onTheirWay);
      ends[i] = () => {
        onTheirWay--;
        if (i === 3) reject(new Error('read 3 failed'));
        else resolve(i * 10);
      };
    });
  return { start, ends, most: () => most };
}

/** Runs inOrder to its end in the background, keeping the answers as they come. */
function drain(count: number, ahead: number, start: (i: number) => Promise<number>) {
  const got: number[] = [];
  const done = (async () => {
    for await (const answer of inOrder(count, ahead, start)) got.push(answer);
  })();
  return { got, done };
}

describe('inOrder', () => {
  it('keeps up to `ahead` calls on their way and yields their answers in the order asked', async () => {
    const c = calls();
    const { got, done } = drain(3, 2, c.start);
    await new Promise((r) => setImmediate(r));
    expect(c.most()).toBe(2);
    // The second ends first; the first's answer still comes first.
    c.ends[1]();
    await new Promise((r) => setImmediate(r));
    expect(got).toEqual([]);
    c.ends[0]();
    await new Promise((r) => setImmediate(r));
    c.ends[2]();
    await done;
    expect(got).toEqual([0, 10, 20]);
    expect(c.most()).toBe(2);
  });

  it('throws a failure at its turn, and a later failure is no unhandled rejection', async () => {
    const c = calls();
    const { got, done } = drain(6, 4, c.start);
    await new Promise((r) => setImmediate(r));
    for (const i of [3, 2, 1, 0]) c.ends[i]();
    await expect(done).rejects.toThrow('read 3 failed');
    expect(got).toEqual([0, 10, 20]);
  });
});
