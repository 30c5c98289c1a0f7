import { describe, expect, it } from 'vitest';
import { readCaptureAnswer } from '../../../src/api/capture.js';

// PostHog/posthog rust/capture/src/api.rs: CaptureResponse { status: Ok | NoContent, quota_limited }.
describe('readCaptureAnswer', () => {
  it('accepts {"status": "Ok"}, the older {"status": 1}, and an empty 204', () => {
    expect(readCaptureAnswer(200, { status: 'Ok' })).toEqual({ accepted: true });
    expect(readCaptureAnswer(200, { status: 1 })).toEqual({ accepted: true });
    expect(readCaptureAnswer(204, null)).toEqual({ accepted: true });
    expect(readCaptureAnswer(200, { status: 'Ok', quota_limited: [] })).toEqual({ accepted: true });
  });

  it('reads quota_limited as a refusal that names the quotas', () => {
    expect(readCaptureAnswer(200, { status: 'Ok', quota_limited: ['events'] })).toEqual({ accepted: false, quotaLimited: ['events'] });
  });

  it('takes nothing else as an acceptance', () => {
    for (const [status, body] of [
      [200, { status: 0, error: 'ingestion is paused' }],
      [200, { status: 'Ok', error: 'partly' }],
      [200, { status: 2 }],
      [200, {}],
      [200, ['Ok']],
      [200, null],
      [201, { status: 'Ok' }],
      [202, null],
      [204, { status: 'Ok' }],
    ] as const) {
      const answer = readCaptureAnswer(status, body);
      expect(answer.accepted, JSON.stringify([status, body])).toBe(false);
      expect(answer).toHaveProperty('unknown');
    }
    expect(readCaptureAnswer(200, { status: 0, error: 'x' })).toEqual({ accepted: false, unknown: '200 {"status":0,"error":"x"}' });
  });
});
