import { describe, expect, it } from 'vitest';
import { describeHttpError, readErrorBody } from '../../../src/http/describe-error.js';
import { ApiError } from '../../../src/errors.js';

const URL_ = 'https://app.posthog.test/api/projects/1/persons/abc/?secret=1';

describe('readErrorBody', () => {
  it('reads the standard shape', () => {
    expect(readErrorBody({ type: 'validation_error', code: 'required', detail: 'This field is required.', attr: 'email' })).toEqual({
      type: 'validation_error',
      code: 'required',
      detail: 'This field is required.',
      attr: 'email',
    });
  });

  it('unswaps code and detail from the persons update view', () => {
    expect(readErrorBody({ type: 'validation_error', code: 'This field is required.', detail: 'required', attr: 'properties' })).toEqual({
      type: 'validation_error',
      code: 'required',
      detail: 'This field is required.',
      attr: 'properties',
    });
  });

  it('leaves a one-word detail alone when the code is a code', () => {
    expect(readErrorBody({ code: 'invalid_input', detail: 'nope' })).toMatchObject({ code: 'invalid_input', detail: 'nope' });
  });

  it('joins message and detail', () => {
    expect(readErrorBody({ message: 'Cohort failed', detail: 'timeout' }).detail).toBe('Cohort failed: timeout');
    expect(readErrorBody({ message: 'Only a message' }).detail).toBe('Only a message');
  });

  it('reads {error} and {success: false, detail}', () => {
    expect(readErrorBody({ error: 'no such time' }).detail).toBe('no such time');
    expect(readErrorBody({ success: false, detail: 'Unable to delete property' }).detail).toBe('Unable to delete property');
  });

  it('is empty for non-objects', () => {
    expect(readErrorBody(null)).toEqual({});
    expect(readErrorBody('text')).toEqual({});
    expect(readErrorBody([1, 2])).toEqual({});
  });
});

describe('describeHttpError', () => {
  it('names method, path (without query), status, code, detail and field', () => {
    const err = describeHttpError('POST', URL_, 400, {
      type: 'validation_error',
      code: 'blank',
      detail: 'May not be blank.',
      attr: 'name',
    });
    expect(err).toBeInstanceOf(ApiError);
    expect(err.message).toBe('POST /api/projects/1/persons/abc/ failed with 400 blank: May not be blank. (field "name")');
    expect(err.exitCode).toBe(5);
    expect(err.status).toBe(400);
  });

  it('maps statuses to exit codes', () => {
    expect(describeHttpError('GET', URL_, 404, { detail: 'Not found.' }).exitCode).toBe(3);
    expect(describeHttpError('GET', URL_, 401, {}).exitCode).toBe(4);
    expect(describeHttpError('GET', URL_, 403, {}).exitCode).toBe(4);
    expect(describeHttpError('POST', URL_, 409, {}).exitCode).toBe(5);
    expect(describeHttpError('POST', URL_, 415, {}).exitCode).toBe(5);
    expect(describeHttpError('POST', URL_, 422, {}).exitCode).toBe(5);
    expect(describeHttpError('GET', URL_, 429, {}).exitCode).toBe(6);
    expect(describeHttpError('GET', URL_, 500, {}).exitCode).toBe(7);
    expect(describeHttpError('GET', URL_, 504, {}).exitCode).toBe(7);
  });

  it('gives a distinct hint for each kind of auth failure', () => {
    const hint = (status: number, body: object) => describeHttpError('GET', URL_, status, body).hint;
    expect(hint(401, { code: 'not_authenticated', detail: 'Authentication credentials were not provided.' })).toContain('HOGCTL_API_KEY');
    expect(hint(401, { code: 'authentication_failed', detail: 'Personal API key found in request is invalid.' })).toContain(
      'personal API key',
    );
    expect(hint(403, { code: 'authentication_failed', detail: 'x y' })).toContain('personal API key');
    expect(hint(403, { code: 'permission_denied', detail: 'This action does not support Personal API Key access' })).toContain(
      'hogctl auth login',
    );
    expect(hint(403, { code: 'permission_denied', detail: 'THIS ACTION DOES NOT SUPPORT PERSONAL API KEY ACCESS' })).toContain(
      'hogctl auth login',
    );
    expect(hint(403, { code: 'permission_denied', detail: "API key missing required scope 'person:write'" })).toContain('scope');
    expect(hint(403, { code: 'permission_denied', detail: 'You do not have permission to perform this action.' })).toContain(
      'hogctl projects list',
    );
  });

  it('summarises an HTML page by its title', () => {
    const err = describeHttpError('GET', URL_, 502, '<html><head><title> 502 Bad Gateway </title></head><body><h1>oops</h1></body></html>');
    expect(err.message).toBe('GET /api/projects/1/persons/abc/ failed with 502: 502 Bad Gateway (an HTML page, probably from a proxy)');
  });

  it('shortens long plain text and says so when there is nothing', () => {
    const long = 'x '.repeat(300);
    const err = describeHttpError('GET', URL_, 500, long);
    expect(err.message.endsWith('…')).toBe(true);
    expect(err.message.length).toBeLessThan(300);
    expect(describeHttpError('GET', URL_, 500, null).message).toContain('no details given');
  });
});
