// `hogctl persons funnel-correlation` in this process (test/cli/harness.ts) against the sandbox. Cohorts works
// with a key; the other legacy lists refuse keys on current servers, so with a key each must send
// the right request and then say plainly that it needs a signed-in session (exit 4).
import { describe, expect, it } from 'vitest';
import { P, useLegacyWorld } from './legacy-fixtures.js';

const { world, since } = useLegacyWorld();

describe('persons funnel-correlation', () => {
  it('says the newest server no longer offers it (404 → exit 3), for GET and POST', async () => {
    const before = world.sandbox.requests.length;
    const get = await world.run([
      'persons',
      'funnel-correlation',
      '--param',
      'funnel_correlation_person_converted=TRUE',
      '--funnel-step',
      '2',
    ]);
    expect(get.code).toBe(3);
    expect(get.stderr).toContain('this server no longer offers funnel correlation persons');
    const post = await world.run([
      'persons',
      'funnel-correlation',
      '--post',
      '--params',
      '{"funnel_correlation_person_entity": {"id": "paid", "type": "events"}}',
    ]);
    expect(post.code).toBe(3);
    const [a, b] = since(before);
    expect([a.method, a.path, a.query, a.status]).toEqual([
      'GET',
      `${P}/funnel/correlation/`,
      { funnel_correlation_person_converted: 'TRUE', funnel_step: '2' },
      404,
    ]);
    expect([b.method, b.path, JSON.parse(b.body)]).toEqual([
      'POST',
      `${P}/funnel/correlation/`,
      { funnel_correlation_person_entity: { id: 'paid', type: 'events' } },
    ]);
  });
});
