// Several projects in one organisation (an erasure is repeated in each), cohorts as a selection of
// persons, and the control endpoint that plays PostHog's weekly event-deletion job.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../src/server.js';
import { cohortsOf } from '../src/cohorts.js';
import { call, errorBody, withSandbox } from './helpers.js';

let sb: Sandbox;
beforeAll(async () => {
  sb = await withSandbox({ persons: 300, projectPersons: { 2: 120, 4: 40 } });
});
afterAll(() => sb.close());

const list = (project: number, properties: unknown, limit = 1000) =>
  call(sb, `/api/projects/${project}/persons/?limit=${limit}&properties=${encodeURIComponent(JSON.stringify(properties))}`);

describe('projectPersons', () => {
  it('seeds other projects, and an id above 3 adds a project to the user organisation', async () => {
    expect([...sb.stores].map(([id, s]) => [id, s.size])).toEqual([
      [1, 300],
      [2, 120],
      [3, 5],
      [4, 40],
    ]);
    const projects = (await call(sb, '/api/projects/')).json().results.map((p: { id: number; name: string }) => [p.id, p.name]);
    expect(projects).toEqual([
      [1, 'Default project'],
      [2, 'Staging'],
      [4, 'Project 4'],
    ]);
    expect((await call(sb, '/api/projects/4/persons/?limit=1')).status).toBe(200);
  });

  it('gives a person id the same e-mail address in every project where both persons have one', () => {
    let shared = 0;
    for (const p of sb.stores.get(2)!) {
      const twin = sb.store.getById(p.id);
      if (typeof p.properties.email === 'string' && typeof twin?.properties.email === 'string') {
        expect(twin.properties.email).toBe(p.properties.email);
        shared++;
      }
    }
    expect(shared).toBeGreaterThan(50);
  });

  it('refuses an invalid option', async () => {
    await expect(withSandbox({ projectPersons: { 2: -1 } })).rejects.toThrow(/projectPersons\[2\]/);
  });
});

describe('cohorts', () => {
  it('serves a project cohort, deleted ones too, and 404 for one of another project', async () => {
    const [paying] = cohortsOf(1);
    const reply = await call(sb, `/api/projects/1/cohorts/${paying.id}/`);
    expect(reply.status).toBe(200);
    const expected = [...sb.store].filter((p) => paying.matches(p)).length;
    expect(reply.json()).toMatchObject({ id: paying.id, name: 'Paying customers', deleted: false, count: expected });
    const deleted = cohortsOf(1).find((c) => c.deleted)!;
    expect((await call(sb, `/api/projects/1/cohorts/${deleted.id}/`)).json()).toMatchObject({ deleted: true });
    expect((await call(sb, `/api/projects/2/cohorts/${paying.id}/`)).status).toBe(404);
    const names = (await call(sb, '/api/projects/1/cohorts/')).json().results.map((c: { name: string }) => c.name);
    expect(names).not.toContain(deleted.name);
  });

  it('filters the persons list by cohort membership, and by its negation', async () => {
    const [, enterprise] = cohortsOf(1);
    const members = (await list(1, [{ type: 'cohort', key: 'id', value: enterprise.id }])).json().results;
    expect(members.length).toBeGreaterThan(0);
    expect(members.every((p: { properties: { plan?: string } }) => p.properties.plan === 'enterprise')).toBe(true);
    expect(members).toHaveLength([...sb.store].filter((p) => p.properties.plan === 'enterprise').length);
    const others = (await list(1, [{ type: 'cohort', key: 'id', value: String(enterprise.id), operator: 'not_in' }])).json().results;
    expect(others.length + members.length).toBe(sb.store.size);
  });

  it('answers an unknown cohort with a 500 (Cohort.DoesNotExist) and a bad value with a 400', async () => {
    expect((await list(1, [{ type: 'cohort', key: 'id', value: 999 }])).status).toBe(500);
    const bad = await list(1, [{ type: 'cohort', key: 'id', value: [1] }]);
    expect(bad.status).toBe(400);
    expect(bad.json()).toEqual(errorBody('validation_error', 'invalid_input', 'Cohort property value must be a cohort ID'));
  });
});

describe('POST /_sandbox/deletions/run', () => {
  it('completes the queued event deletions, of one project or of all', async () => {
    const [a] = sb.store.list({}, 0, 1);
    const [b] = sb.stores.get(2)!.list({}, 0, 1);
    for (const [project, person] of [
      [1, a],
      [2, b],
    ] as const) {
      const reply = await call(sb, `/api/projects/${project}/persons/bulk_delete/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ids: [person.uuid], delete_events: true }),
      });
      expect(reply.status).toBe(202);
    }
    const status = async (project: number, uuid: string) =>
      (await call(sb, `/api/projects/${project}/persons/deletion_status/?person_uuid=${uuid}`)).json().results[0].status;
    expect(await status(1, a.uuid)).toBe('pending');
    expect((await call(sb, '/_sandbox/deletions/run/1', { method: 'POST' })).json()).toEqual({
      completed: 1,
      data_deletion_requests_completed: 0,
    });
    expect(await status(1, a.uuid)).toBe('completed');
    expect(await status(2, b.uuid)).toBe('pending');
    expect((await call(sb, '/_sandbox/deletions/run', { method: 'POST' })).json()).toEqual({
      completed: 1,
      data_deletion_requests_completed: 0,
    });
    expect(await status(2, b.uuid)).toBe('completed');
  });
});
