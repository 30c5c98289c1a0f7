// The person action calls against answers the sandbox does not give: older servers' 204, the
// other delete_property failure statuses, and 404s that name the project.
import { afterEach, describe, expect, it } from 'vitest';
import { deletePerson, deleteProperty, updatePerson } from '../../../src/api/person-actions.js';
import { ApiError, ExitCode, NotFoundError } from '../../../src/errors.js';
import { FakeApi, makeClient, rejection } from '../helpers.js';

let api: FakeApi;
afterEach(async () => {
  await api?.close();
});

const person = '/api/projects/7/persons/42/';

const NO_FLAGS = { deleteEvents: false, deleteRecordings: false, keepPerson: false };

describe('deletePerson', () => {
  it("accepts an older server's 204 as well as 202, sending only the flags that are set", async () => {
    api = new FakeApi().on('DELETE', `${person}?delete_events=true`, [{ status: 204 }]).on('DELETE', person, [{ status: 202 }]);
    const { client } = makeClient(api);
    expect(await deletePerson(client, '7', '42', { deleteEvents: true, deleteRecordings: false, keepPerson: false })).toEqual({
      status: 204,
      goneEarlier: false,
    });
    expect(await deletePerson(client, '7', '42', NO_FLAGS)).toEqual({ status: 202, goneEarlier: false });
    expect(api.pending()).toBe(0);
  });

  it('tells an unknown project from an unknown person', async () => {
    api = new FakeApi()
      .on('DELETE', person, [
        { status: 404, body: { type: 'invalid_request', code: 'not_found', detail: 'Project not found.', attr: null } },
      ])
      .on('PATCH', person, [{ status: 404, body: { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null } }]);
    const { client } = makeClient(api);
    const project = await rejection(() => deletePerson(client, '7', '42', NO_FLAGS));
    expect(project).toBeInstanceOf(NotFoundError);
    expect(project.message).toBe('project 7 not found');
    const missing = await rejection(() => updatePerson(client, '7', '42', { plan: 'team' }));
    expect(missing.message).toBe('person 42 not found in project 7');
  });
});

describe('deleteProperty', () => {
  it('reports {success: false} with its detail as a rejection (5), whatever the status', async () => {
    api = new FakeApi().on('POST', `${person}delete_property/`, [
      { status: 400, body: { success: false, detail: 'Unable to delete property' } },
    ]);
    const { client } = makeClient(api);
    const error = await rejection(() => deleteProperty(client, '7', '42', 'plan'));
    expect(error).toBeInstanceOf(ApiError);
    expect(error.exitCode).toBe(ExitCode.rejected);
    expect(error.message).toContain('Unable to delete property');
    expect(api.requests[0].body).toEqual({ $unset: 'plan' });
  });

  it('a capture failure passed on as 502 is a server failure (7), not retried', async () => {
    api = new FakeApi().on('POST', `${person}delete_property/`, [
      { status: 502, body: { success: false, detail: 'Unable to delete property' } },
    ]);
    const { client } = makeClient(api);
    const error = await rejection(() => deleteProperty(client, '7', '42', 'plan'));
    expect(error.exitCode).toBe(ExitCode.unavailable);
    expect(error.message).toContain('Unable to delete property');
    expect(api.requests).toHaveLength(1);
  });

  it('after a bare 500, reads the person: gone → not found (3), there → the 500 stands (7)', async () => {
    const failure = { status: 500, body: { type: 'server_error', code: 'error', detail: 'A server error occurred.', attr: null } };
    api = new FakeApi().on('POST', `${person}delete_property/`, [failure, failure]).on('GET', person, [
      { status: 404, body: { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null } },
      { status: 200, body: { id: 42, uuid: 'u', distinct_ids: [], properties: {}, created_at: '' } },
    ]);
    const { client } = makeClient(api);
    const gone = await rejection(() => deleteProperty(client, '7', '42', 'plan'));
    expect(gone).toBeInstanceOf(NotFoundError);
    const there = await rejection(() => deleteProperty(client, '7', '42', 'plan'));
    expect(there.exitCode).toBe(ExitCode.unavailable);
    expect(there.message).toContain('A server error occurred.');
  });
});
