// The plan's lines on the requests a selection takes and how long PostHog's limits make them:
// 10 creates an hour and 5 active requests per project, one weekly deletion per batch of five.
import { describe, expect, it } from 'vitest';
import { requestLines } from '../../../../../src/commands/events/shared/plan.js';

describe('requestLines', () => {
  it('one request: no wait, one weekly deletion', () => {
    expect(requestLines(1)).toEqual([
      "requests: 1 (each query within PostHog's 100,000 bytes)",
      'estimate: no wait to send; deleted in about 1 weekly deletion (about 1 week once PostHog approves each request)',
    ]);
  });

  it('seven requests (20,000 distinct ids): two batches of five, so two weekly deletions', () => {
    const lines = requestLines(7);
    expect(lines[1]).toMatch(/the first 5 go now, the rest with --resume/);
    expect(lines.at(-1)).toBe(
      'estimate: no wait to send; deleted in about 2 weekly deletions (about 2 weeks once PostHog approves each request)',
    );
  });

  it('more than ten an hour: the sending waits too', () => {
    expect(requestLines(25).at(-1)).toBe(
      'estimate: at least 2 h to send; deleted in about 5 weekly deletions (about 5 weeks once PostHog approves each request)',
    );
  });
});
