// What `hogctl mcp` sends its client has every secret of its settings replaced: the tool's result,
// and the progress notifications plan_apply sends while a job runs (the verbs' own notes).
import { describe, expect, it } from 'vitest';
import { redacted, redactingNotifications } from '../../../src/mcp/server.js';
import type { CallExtra } from '../../../src/mcp/tool.js';

const KEY = 'phx_secretpersonalkey0123456789';

describe('redaction', () => {
  it('replaces the key in a result', () => {
    expect(redacted({ content: [{ type: 'text', text: `refused: ${KEY}` }] }, [KEY])).toEqual({
      content: [{ type: 'text', text: 'refused: [redacted]' }],
    });
  });

  it('replaces the key in a progress notification, and passes the rest of the call on', async () => {
    const sent: unknown[] = [];
    const extra = {
      signal: new AbortController().signal,
      sendNotification: async (n: unknown) => void sent.push(n),
    } as unknown as CallExtra;
    const wrapped = redactingNotifications(extra, [KEY]);
    expect(wrapped.signal).toBe(extra.signal);
    await wrapped.sendNotification({
      method: 'notifications/progress',
      params: { progressToken: 1, progress: 1, message: `a note with ${KEY}` },
    });
    expect(sent).toEqual([
      { method: 'notifications/progress', params: { progressToken: 1, progress: 1, message: 'a note with [redacted]' } },
    ]);
  });
});
