// `hogctl persons deletion-status` (of what `delete-events` queued) run in this process (test/cli/harness.ts) against a
// sandbox of its own. Each test asserts the request the server received, the state afterwards,
// and its error path.
import { describe, expect, it } from 'vitest';
import { PERSONS_PATH, usePersonsWorld } from './fixtures.js';

const { world, fresh, mark } = usePersonsWorld();
const base = PERSONS_PATH;

describe('persons deletion-status', () => {
  it('sends --status, pages by limit/offset, and shows completed deletions', async () => {
    const a = fresh();
    const b = fresh();
    for (const p of [a, b]) await world.run(['persons', 'delete-events', String(p.id), '-y']);
    world.sandbox.deletions.runBatch();
    const sent = mark();
    const res = await world.run(['persons', 'deletion-status', '--status', 'completed', '--page-size', '1', '--limit', '2', '-o', 'csv']);
    expect(res.code).toBe(0);
    const [header, ...lines] = res.stdout.trim().split('\n');
    expect(header).toBe('person_uuid,status,created_at,delete_verified_at');
    expect(lines).toHaveLength(2);
    expect(lines.every((l) => l.includes(',completed,'))).toBe(true);
    const reqs = sent();
    expect(reqs[0].path).toBe(`${base}deletion_status/`);
    expect(reqs[0].query).toEqual({ limit: '1', status: 'completed' });
    expect(reqs[1].query).toEqual({ limit: '1', offset: '1', status: 'completed' });
  });

  it('rejects a --person that is not a UUID and an unknown --status before sending (2)', async () => {
    const sent = mark();
    expect((await world.run(['persons', 'deletion-status', '--person', '42'])).code).toBe(2);
    expect((await world.run(['persons', 'deletion-status', '--status', 'done'])).code).toBe(2);
    expect(sent()).toEqual([]);
  });

  it('exits 4 for a key without person:read', async () => {
    const res = await world.run(['persons', 'deletion-status'], { env: { HOGCTL_API_KEY: world.sandbox.addKey(['project:read']) } });
    expect(res.code).toBe(4);
  });
});
