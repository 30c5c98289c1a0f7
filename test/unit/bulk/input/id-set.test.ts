import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { IdSet } from '../../../../src/bulk/input/id-set.js';

describe('IdSet', () => {
  it("sorts a long list (bucketed by the UUIDs' first bytes) as the default sort does", () => {
    // Sharing first bytes, so that buckets hold several UUIDs; and ids that sort between them.
    const ids = Array.from({ length: 6000 }, (_, i) =>
      i % 7 === 0 ? `user-${i}` : `${(i % 300).toString(16).padStart(4, '0')}${randomUUID().slice(4)}`,
    );
    expect([...new IdSet(ids).sorted()]).toEqual([...new Set(ids)].sort());
  });

  it('keeps canonical UUIDs and other ids, each once, in the order first added', () => {
    const a = randomUUID();
    const b = randomUUID();
    const set = new IdSet();
    expect(set.add(a)).toBe(true);
    expect(set.add('user-1')).toBe(true);
    expect(set.add(b)).toBe(true);
    expect(set.add(a)).toBe(false);
    expect(set.add('user-1')).toBe(false);
    expect(set.size).toBe(3);
    expect([...set]).toEqual([a, 'user-1', b]);
    expect([a, 'user-1', b].map((id) => set.indexOf(id))).toEqual([0, 1, 2]);
    expect(set.indexOf(randomUUID())).toBe(-1);
    expect(set.has('user-2')).toBe(false);
  });

  it('is the list of its ids: each by its place, a slice of them, and JSON as an array', () => {
    const uuids = Array.from({ length: 5 }, () => randomUUID());
    // Only UUIDs, then both kinds mixed: the order of the set is kept either way.
    for (const ids of [uuids, [uuids[0], 'user-1', uuids[1], 'user-2', uuids[2]]]) {
      const set = new IdSet(ids);
      expect(set.length).toBe(ids.length);
      expect(ids.map((_, i) => set.at(i))).toEqual(ids);
      expect([set.at(-1), set.at(ids.length)]).toEqual([undefined, undefined]);
      expect(set.slice(1, 4)).toEqual(ids.slice(1, 4));
      expect(set.slice(3)).toEqual(ids.slice(3));
      expect(JSON.stringify(set)).toBe(JSON.stringify(ids));
    }
  });

  it('finds and adds its other ids as before once it has let their lookup go', () => {
    const u = [randomUUID(), randomUUID()];
    for (const ids of [
      ['a@x.org', 'b@x.org'],
      [u[0], 'a@x.org', u[1], 'b@x.org'],
    ]) {
      const set = new IdSet(ids);
      set.letLookupGo();
      expect(ids.map((id) => set.indexOf(id))).toEqual(ids.map((_, i) => i));
      expect([set.has('b@x.org'), set.has('c@x.org'), set.add('a@x.org'), set.add('c@x.org')]).toEqual([true, false, false, true]);
      expect([...set]).toEqual([...ids, 'c@x.org']);
      expect(set.indexOf('c@x.org')).toBe(ids.length);
    }
  });

  it('gives back an upper-case UUID, or a UUID without hyphens, exactly as given', () => {
    const id = randomUUID();
    const set = new IdSet([id.toUpperCase(), id.replaceAll('-', ''), `${id} `]);
    expect(set.has(id)).toBe(false);
    expect([...set]).toEqual([id.toUpperCase(), id.replaceAll('-', ''), `${id} `]);
  });

  it('holds 200,000 UUIDs across pages and table growths', () => {
    const set = new IdSet();
    const ids: string[] = [];
    for (let i = 0; i < 200_000; i++) {
      // Version 7 style: the leading bytes are shared, so the hash must mix the rest.
      const id = `01890000-0000-7000-8000-${i.toString(16).padStart(12, '0')}`;
      ids.push(id);
      set.add(id);
    }
    expect(set.size).toBe(200_000);
    expect(set.has(ids[199_999])).toBe(true);
    expect(set.indexOf(ids[154_321])).toBe(154_321);
    let k = 0;
    for (const id of set) if (id !== ids[k++]) throw new Error(`order broken at ${k - 1}`);
    expect(k).toBe(200_000);
  });
});
