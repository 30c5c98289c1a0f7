// Concurrent work whose answers are used in the order it was asked for.

/**
 * The answers of `count` calls of `start`, yielded in order while up to `ahead` more are on their
 * way. A failure is thrown when its turn comes; the calls after it may still be running then.
 */
export async function* inOrder<T>(count: number, ahead: number, start: (i: number) => Promise<T>): AsyncGenerator<T> {
  const started: Promise<T>[] = [];
  let next = 0;
  for (let i = 0; i < count; i++) {
    while (next < count && started.length < Math.max(1, ahead)) {
      const answer = start(next++);
      // Awaited below, in order: a later one failing while an earlier one's failure is being
      // thrown must not end the process as an unhandled rejection.
      answer.catch(() => {});
      started.push(answer);
    }
    yield await started.shift()!;
  }
}
