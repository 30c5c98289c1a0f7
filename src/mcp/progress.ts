// Progress of plan_apply as MCP progress notifications, when the client asked for them (a
// progressToken): each line the job notes, and while nothing is said (a person reading the
// approval page, a rate limit waited out, a merge read back) a notification every
// HEARTBEAT_MS, so that a client that resets its timeout on progress keeps the request alive for
// as long as the job runs.
import type { CallExtra } from './tool.js';

export const HEARTBEAT_MS = 5_000;

const senders = new WeakMap<CallExtra, (message: string) => void>();

function sender(extra: CallExtra): ((message: string) => void) | undefined {
  const token = extra._meta?.progressToken;
  if (token === undefined) return undefined;
  let made = senders.get(extra);
  if (!made) {
    let progress = 0;
    made = (message) => {
      progress += 1;
      void extra
        .sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress, message } })
        .catch(() => undefined);
    };
    senders.set(extra, made);
  }
  return made;
}

/** Each line of the job's notes as a progress notification. */
export function progressSender(extra: CallExtra): ((line: string) => void) | undefined {
  return sender(extra);
}

/** Runs `work`, sending a progress notification every HEARTBEAT_MS until it ends. */
export async function keepAlive<T>(extra: CallExtra, work: () => Promise<T>): Promise<T> {
  const send = sender(extra);
  if (!send) return work();
  let beats = 0;
  const timer = setInterval(() => send(`still working (${(++beats * HEARTBEAT_MS) / 1000} s)`), HEARTBEAT_MS);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}
