// One attempt at one chunk: the bulk_delete request, and what its answer means for the runner.
import { bulkDeletePersons, bulkDeleteSummaryOf, type BulkDeleteRequest } from '../../../api/bulk-delete.js';
import { describeHttpError } from '../../../http/describe-error.js';
import { parseRetryAfter } from '../../../http/retry.js';
import { NotPostHogApiError, TlsError, UnavailableError } from '../../../errors.js';
import type { ApiClient } from '../../../http/client.js';
import type { BulkDeleteFlags } from './delete-receipt.js';
import type { Attempt, Chunk } from '../../engine/runner.js';
import { mayHaveBeenDone } from '../../engine/capture-attempt.js';
import type { IdKind } from '../../input/validate.js';

export interface SendSettings {
  client: ApiClient;
  /** The project of chunks that name none. */
  projectId: string;
  kind: IdKind;
  flags: BulkDeleteFlags;
  timeoutMs: number;
  now: () => number;
}

export function requestBody(kind: IdKind, ids: string[], flags: BulkDeleteFlags): BulkDeleteRequest {
  return { ...(kind === 'distinct_ids' ? { distinct_ids: ids } : { ids }), ...flags };
}

export function sender(s: SendSettings): (chunk: Chunk) => Promise<Attempt> {
  return async (chunk) => {
    let res;
    try {
      res = await bulkDeletePersons(s.client, chunk.project ?? s.projectId, requestBody(s.kind, chunk.ids, s.flags), {
        timeoutMs: s.timeoutMs,
      });
    } catch (err) {
      // Timeouts, refused or dropped connections, answers cut short: nothing says it was not
      // done, and doing it again is harmless.
      // Whatever answered is not PostHog, or no TLS connection could be made: nothing was deleted,
      // and every other chunk would go the same way.
      if (err instanceof NotPostHogApiError || err instanceof TlsError) return { kind: 'rejected', status: 0, error: err };
      if (err instanceof UnavailableError) return { kind: 'retry', status: null, error: err.message, unclear: !err.notSent };
      throw err;
    }
    const { status } = res;
    if (status >= 200 && status < 300) {
      let summary;
      try {
        summary = bulkDeleteSummaryOf(res);
      } catch (err) {
        // Not PostHog's answer: nothing can be claimed, and every other chunk would go the same way.
        if (err instanceof NotPostHogApiError) return { kind: 'rejected', status, error: err };
        throw err;
      }
      return { kind: 'ok', status, summary };
    }
    const error = describeHttpError('POST', res.url, status, res.body);
    if (status === 429)
      return { kind: 'throttled', status, retryAfterMs: parseRetryAfter(res.headers['retry-after'], s.now()), error: error.message };
    if (status === 401 || status === 403) return { kind: 'auth', status, error };
    // 408 and 503 refuse before any work; another 5xx may come after some persons were deleted.
    if (status === 408 || status >= 500) return { kind: 'retry', status, error: error.message, unclear: mayHaveBeenDone(status) };
    return { kind: 'rejected', status, error };
  };
}
