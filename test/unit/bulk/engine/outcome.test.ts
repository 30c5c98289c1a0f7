// How a bulk run ends: each way of stopping maps to its exit code and says what was done before
// it and how to continue; a completed run prints its closing line; the receipt's caveats become
// warnings.
import { describe, expect, it } from 'vitest';
import { ApiError, AuthError, CancelledError, NotPostHogApiError, PartialFailureError, RateLimitedError } from '../../../../src/errors.js';
import { outcome, type OutcomeFacts } from '../../../../src/bulk/engine/outcome.js';
import { deletionVerdict } from '../../../../src/bulk/kinds/delete/delete-persons.js';
import type { DeletionReceipt } from '../../../../src/bulk/kinds/delete/delete-receipt.js';
import type { Receipt } from '../../../../src/bulk/engine/receipt.js';
import type { RunResult } from '../../../../src/bulk/engine/runner.js';

const facts: OutcomeFacts = {
  account: '2,000 persons deleted (2,000 found) from 2,000 ids sent',
  resume: 'hogctl persons bulk-delete --file ids.txt --resume',
  requests: 4,
  receiptPath: '/tmp/ids.receipt.json',
  maxWaitMs: 15 * 60_000,
  now: Date.UTC(2026, 10, 22, 10, 0, 0),
  done: 'deleted',
  verdict: (r) =>
    deletionVerdict(r as DeletionReceipt, {
      resume: 'hogctl persons bulk-delete --file ids.txt --resume',
      retries: 3,
      receiptPath: '/tmp/ids.receipt.json',
      account: '2,000 persons deleted (2,000 found) from 2,000 ids sent',
    }),
};

function receipt(counts: Partial<Receipt['counts']> = {}, over: Partial<Receipt> = {}): Receipt {
  return {
    counts: { sent: 2000, not_sent: 0, failed: 0, unconfirmed: 0, persons_deleted: 2000, persons_found: 2000, ...counts },
    failed_chunks: [],
    not_reported: [],
    ...over,
  } as unknown as Receipt;
}

const result = (reason: RunResult['reason'], over: Partial<RunResult> = {}): RunResult => ({
  reason,
  answered: 2,
  failed: 0,
  unsent: [],
  ...over,
});

describe('the end of a bulk run', () => {
  it('completed: the closing line with the account and the receipt, exit 0', () => {
    const end = outcome(result('completed'), receipt(), facts);
    expect(end).toEqual({
      warnings: [],
      success: '✔ 2,000 persons deleted (2,000 found) from 2,000 ids sent; receipt: /tmp/ids.receipt.json',
    });
  });

  it('a refused key: exit 4, what was done before, the hint, then how to continue', () => {
    const end = outcome(
      result('auth', { error: new AuthError('the API key was refused (401)', 'check HOGCTL_API_KEY') }),
      receipt(),
      facts,
    );
    expect(end.error).toBeInstanceOf(AuthError);
    expect(end.error!.exitCode).toBe(4);
    expect(end.error!.message).toBe(`the API key was refused (401); stopped at once, nothing more was sent (${facts.account} before that)`);
    expect(end.error!.hint).toBe(`check HOGCTL_API_KEY; then continue with:\n  ${facts.resume}`);
  });

  it('a rejected request keeps the server error and its exit code; an answer that is not PostHog stays exit 7', () => {
    const api = outcome(
      result('rejected', {
        error: new ApiError(
          'bad request',
          400,
          { type: 'validation_error', code: 'invalid_input', detail: 'bad request', attr: null },
          undefined,
          5,
        ),
      }),
      receipt(),
      facts,
    ).error!;
    expect(api).toBeInstanceOf(ApiError);
    expect(api.exitCode).toBe(5);
    expect(api.message).toMatch(/^bad request; stopped, nothing more was sent \(2,000 persons deleted/);
    const foreign = outcome(
      result('rejected', { error: new NotPostHogApiError('this does not look like a PostHog API') }),
      receipt(),
      facts,
    ).error!;
    expect(foreign).toBeInstanceOf(NotPostHogApiError);
    expect(foreign.exitCode).toBe(7);
  });

  it('interrupted: exit 130, counting what is not done yet and the lost answers the next run checks', () => {
    const end = outcome(result('interrupted'), receipt({ not_sent: 1000, unconfirmed: 1000 }), facts);
    expect(end.error).toBeInstanceOf(CancelledError);
    expect(end.error!.exitCode).toBe(130);
    expect(end.error!.message).toBe(
      `interrupted: ${facts.account}; 1,000 ids were on the way, without an answer (the next run takes them up first); 1,000 ids not done yet`,
    );
    expect(end.error!.hint).toBe(`continue with:\n  ${facts.resume}`);
  });

  it('a wait past --max-wait: exit 6, saying until when and how long', () => {
    const until = facts.now + 50 * 60_000;
    const end = outcome(result('rate_limited', { until }), receipt(), facts);
    expect(end.error).toBeInstanceOf(RateLimitedError);
    expect(end.error!.exitCode).toBe(6);
    expect(end.error!.message).toMatch(
      /^the server asks to wait until \d\d:\d\d:\d\d \(50m00s\), longer than --max-wait 15m00s; stopped, nothing more was sent \(2,000 persons deleted/,
    );
    expect(end.error!.hint).toBe(`resume then (or pass a longer --max-wait):\n  ${facts.resume}`);
  });

  it('failed chunks or deletion errors: exit 8, pointing to the receipt', () => {
    const failed = outcome(result('partial'), receipt({ failed: 1000 }, { failed_chunks: [{}] as never }), facts).error!;
    expect(failed).toBeInstanceOf(PartialFailureError);
    expect(failed.exitCode).toBe(8);
    expect(failed.message).toBe(
      `1 of 4 requests failed after retries (1,000 ids): ${facts.account}; the receipt /tmp/ids.receipt.json lists them`,
    );
    const errors = outcome(result('completed'), receipt({ deletion_errors: 3 }), facts).error!;
    expect(errors).toBeInstanceOf(PartialFailureError);
    expect(errors.message).toMatch(/^3 persons could not be deleted: the server reported an error deleting them/);
    expect(errors.hint).toBe(`the server asks for them to be sent again: do so later with\n  ${facts.resume}`);
  });

  it("turns the receipt's caveats into warnings", () => {
    const end = outcome(
      result('completed'),
      receipt({}, {
        unclear_requests: { ids: 1000 },
        not_reported: [{ count: 'persons_deleted', chunks: 2, ids: 2000, why: 'an older server answers with an empty body' }],
      } as never),
      facts,
    );
    expect(end.warnings).toHaveLength(2);
    expect(end.warnings[0]).toMatch(/^1,000 ids went out in requests that had an attempt without a clear answer/);
    expect(end.warnings[0]).toContain('persons such an attempt deleted are not counted as deleted or found; the receipt says so');
    expect(end.warnings[1]).toBe(
      'the server did not report persons_deleted (2 requests): an older server answers with an empty body; the receipt says so',
    );
    expect(end.success).toBeDefined();
  });

  it('says what an unclear attempt may have done in the words of the kind, which may not delete', () => {
    const end = outcome(result('completed'), receipt({}, { unclear_requests: { ids: 500 } } as never), { ...facts, done: 'changed' });
    expect(end.warnings[0]).toContain('persons such an attempt changed are not counted as changed or found; the receipt says so');
    expect(end.warnings[0]).not.toMatch(/delet/);
  });

  it('persons still there after the run: exit 8 when the server said it deleted them, a warning when it queued them', () => {
    const verification = { status: 'still_present', at: '', checked: 2000, still_present: 3, still_present_ids: ['a', 'b', 'c'], note: '' };
    const told = outcome(result('completed'), receipt({}, { verification } as never), facts);
    expect(told.error).toBeInstanceOf(PartialFailureError);
    expect(told.error!.exitCode).toBe(8);
    expect(told.error!.message).toMatch(
      /^3 of the 2,000 persons still exist on the server, though the server answered that it deleted them/,
    );
    const queued = facts.verdict(receipt({ persons_queued_for_deletion: 2000 }, { verification } as never));
    expect(queued.error).toBeUndefined();
    expect(queued.warnings[0]).toBe(
      `3 of the 2,000 persons still exist on the server: the server queued their deletion and has not carried it out yet; check again later with:\n  ${facts.resume}`,
    );
    expect(
      outcome(result('completed'), receipt({}, { verification: { ...verification, status: 'gone', still_present: 0 } } as never), facts)
        .success,
    ).toBeDefined();
  });
});
