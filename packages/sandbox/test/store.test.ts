import { describe, expect, it } from 'vitest';
import { canonicalUuid, formatTimestampUs, SandboxStore } from '../src/store.js';
import { startSandbox } from '../src/server.js';
import { call } from './helpers.js';

describe('SandboxStore', () => {
  it('generates identical persons for the same seed and different ones for another seed', () => {
    const a = new SandboxStore({ persons: 300, seed: 7 });
    const b = new SandboxStore({ persons: 300, seed: 7 });
    const c = new SandboxStore({ persons: 300, seed: 8 });
    expect(a.list({}, 0, 300)).toEqual(b.list({}, 0, 300));
    expect(a.getById(42)).toEqual(b.getById(42));
    expect(a.getById(42)!.uuid).not.toBe(c.getById(42)!.uuid);
    expect(a.getById(42)!.createdAt).not.toBe(c.getById(42)!.createdAt);
  });

  it('lists the UUIDs of a page as the listing has them, without generating the persons', () => {
    const store = new SandboxStore({ persons: 3000, seed: 11 });
    const uuids = (offset: number, limit: number) => store.list({}, offset, limit).map((p) => p.uuid);
    expect(store.listUuids(0, 3000)).toEqual(uuids(0, 3000));
    // Deleted, changed and added persons: the listing changes, and the UUIDs with it.
    for (const p of store.list({}, 100, 50)) store.delete(p);
    store.setProperties(store.list({}, 7, 1)[0].id, { plan: 'changed' });
    store.addPerson({
      uuid: '0190ffff-0000-7000-8000-000000000001',
      createdAtUs: store.list({}, 20, 1)[0].createdAtUs,
      distinctIds: ['added-1'],
    });
    expect(store.listUuids(0, 3000)).toEqual(uuids(0, 3000));
    expect(store.listUuids(0, 3000)).toContain('0190ffff-0000-7000-8000-000000000001');
    expect(store.listUuids(2900, 500)).toEqual(uuids(2900, 500));
    expect(store.listUuids(5000, 10)).toEqual([]);
  });

  it('orders by created_at DESC, id DESC and has duplicate created_at values', () => {
    const store = new SandboxStore({ persons: 2000, seed: 1 });
    const all = store.list({}, 0, 5000);
    expect(all).toHaveLength(2000);
    let duplicates = 0;
    let outOfIdOrder = 0;
    for (let i = 1; i < all.length; i++) {
      const prev = all[i - 1];
      const cur = all[i];
      expect(prev.createdAtUs).toBeGreaterThanOrEqual(cur.createdAtUs);
      if (prev.createdAtUs === cur.createdAtUs) {
        duplicates++;
        expect(prev.id).toBeGreaterThan(cur.id);
      }
      if (prev.id < cur.id) outOfIdOrder++;
    }
    // Ties exist (so tie-breaking matters) and id order is not simply created_at order.
    expect(duplicates).toBeGreaterThan(10);
    expect(outOfIdOrder).toBeGreaterThan(10);
    expect(new Set(all.map((p) => p.id)).size).toBe(2000);
    expect(new Set(all.map((p) => p.uuid)).size).toBe(2000);
  });

  it('has the promised data shapes: UUIDv7 ids, emails, anonymous persons, 1-3 distinct ids', () => {
    const store = new SandboxStore({ persons: 1000, seed: 1 });
    const all = [...store];
    for (const p of all) {
      expect(p.uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      // UUIDv7 carries created_at's milliseconds.
      expect(parseInt(p.uuid.replace(/-/g, '').slice(0, 12), 16)).toBe(Math.floor(p.createdAtUs / 1000));
      expect(p.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
      expect(p.distinctIds.length).toBeGreaterThanOrEqual(1);
      expect(p.distinctIds.length).toBeLessThanOrEqual(3);
      if (p.properties.email !== undefined) expect(p.properties.email).toBe(`user${p.id}@example.com`);
    }
    const anonymous = all.filter((p) => !p.isIdentified);
    expect(anonymous.length).toBeGreaterThan(50);
    expect(anonymous.every((p) => p.properties.email === undefined)).toBe(true);
    expect(new Set(all.map((p) => p.properties.plan).filter(Boolean))).toEqual(new Set(['free', 'team', 'enterprise']));
    const span = all[0].createdAtUs - all[all.length - 1].createdAtUs;
    expect(span / 1e6 / 86400).toBeGreaterThan(300);
    expect(span / 1e6 / 86400).toBeLessThan(400);
  });

  it('finds persons by id, uuid (any case, no hyphens) and every distinct id', () => {
    const store = new SandboxStore({ persons: 500, seed: 3 });
    for (const id of [1, 2, 250, 499, 500]) {
      const p = store.getById(id)!;
      expect(store.getByUuid(p.uuid)!.id).toBe(id);
      expect(store.getByIdOrUuid(p.uuid.toUpperCase())!.id).toBe(id);
      expect(store.getByIdOrUuid(p.uuid.replace(/-/g, ''))!.id).toBe(id);
      expect(store.getByIdOrUuid(String(id))!.id).toBe(id);
      for (const d of p.distinctIds) expect(store.getByDistinctId(d)!.id).toBe(id);
    }
    expect(store.getById(0)).toBeUndefined();
    expect(store.getById(501)).toBeUndefined();
    expect(store.getByDistinctId('user-501')).toBeUndefined();
    expect(store.getByDistinctId('nobody')).toBeUndefined();
    // A well-formed UUID that is not one of ours.
    expect(store.getByUuid('0190aaaa-aaaa-7aaa-8aaa-aaaaaaaaaaaa')).toBeUndefined();
  });

  it('deleting a person read earlier blocks the distinct ids it has now, not those it had then', () => {
    const store = new SandboxStore({ persons: 10, seed: 1 });
    const [read, other] = store.list({}, 0, 2);
    // Between the read and the deletion (a queued bulk delete runs later), a distinct id moved in.
    const moved = other.distinctIds[0];
    expect(store.moveDistinctId(moved, read.id)).toBe(true);
    expect(store.delete(read)).toBe(true);
    for (const d of [...read.distinctIds, moved]) expect(store.isDistinctIdBlocked(d), d).toBe(true);
    expect(store.delete(read)).toBe(false);
  });

  it('deletes in O(1) and keeps listing, counting and lookups consistent', () => {
    const store = new SandboxStore({ persons: 100, seed: 1 });
    const before = store.list({}, 0, 100);
    const victim = before[10];
    expect(store.delete(victim.uuid)).toBe(true);
    expect(store.delete(victim.uuid)).toBe(false);
    expect(store.size).toBe(99);
    expect(store.deletedCount).toBe(1);
    expect(store.getByUuid(victim.uuid)).toBeUndefined();
    expect(store.getById(victim.id)).toBeUndefined();
    expect(store.getByDistinctId(victim.distinctIds[0])).toBeUndefined();
    const after = store.list({}, 0, 100);
    expect(after.map((p) => p.id)).toEqual(before.filter((p) => p.id !== victim.id).map((p) => p.id));
    expect(store.list({}, 10, 1)[0].id).toBe(before[11].id);
    expect(store.count({ search: victim.uuid })).toBe(0);
  });

  it('filters by email, distinct id, search and predicates; keeps changes made through mutate', () => {
    const store = new SandboxStore({ persons: 400, seed: 1 });
    const withEmail = [...store].find((p) => p.properties.email)!;
    expect(store.list({ email: withEmail.properties.email as string }).map((p) => p.id)).toEqual([withEmail.id]);
    expect(store.list({ email: String(withEmail.properties.email).toUpperCase() })).toHaveLength(0);
    expect(store.list({ distinctId: `user-${withEmail.id}` }).map((p) => p.id)).toEqual([withEmail.id]);
    expect(store.count({ search: withEmail.uuid.toUpperCase() })).toBe(1);
    expect(store.count({ search: withEmail.uuid.slice(9, 18) })).toBe(0);
    const enterprise = store.count({ match: (p) => p.properties.plan === 'enterprise', matchKey: 'ent' });
    expect(enterprise).toBe([...store].filter((p) => p.properties.plan === 'enterprise').length);
    expect(store.setProperties(withEmail.id, { plan: 'enterprise', extra: 1 })).toBe(true);
    expect(store.getById(withEmail.id)!.properties).toMatchObject({ plan: 'enterprise', extra: 1 });
    // The cached scan is invalidated by the change.
    expect(store.count({ match: (p) => p.properties.plan === 'enterprise', matchKey: 'ent' })).toBe(
      [...store].filter((p) => p.properties.plan === 'enterprise').length,
    );
    expect(store.unsetProperties(withEmail.id, ['extra'])).toBe(true);
    expect(store.getById(withEmail.id)!.properties.extra).toBeUndefined();
  });

  it('formats timestamps like DRF and canonicalises UUIDs like Python', () => {
    expect(formatTimestampUs(Date.UTC(2024, 1, 29, 23, 59, 58) * 1000 + 7)).toBe('2024-02-29T23:59:58.000007Z');
    expect(canonicalUuid('{0190AAAA-AAAA-7AAA-8AAA-AAAAAAAAAAAA}')).toBe('0190aaaa-aaaa-7aaa-8aaa-aaaaaaaaaaaa');
    expect(canonicalUuid('urn:uuid:0190aaaaaaaa7aaa8aaaaaaaaaaaaaaa')).toBe('0190aaaa-aaaa-7aaa-8aaa-aaaaaaaaaaaa');
    expect(canonicalUuid('user-1')).toBeNull();
  });

  it('starts with 100,000 persons (time logged, not asserted)', async () => {
    const started = performance.now();
    const sandbox = await startSandbox({ persons: 100_000, quiet: true });
    const elapsed = performance.now() - started;
    try {
      console.log(`startSandbox({persons: 100000}) took ${elapsed.toFixed(1)} ms`);
      expect(sandbox.store.size).toBe(100_000);
      const reply = await call(sandbox, '/api/projects/1/persons/?limit=1&include_total');
      expect(reply.status).toBe(200);
      expect(reply.json().count).toBe(100_000);
    } finally {
      await sandbox.close();
    }
  });
});
