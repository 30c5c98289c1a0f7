// Which signal stopped a command, for the words that answer it: a CI job cancelled with SIGTERM
// is not told about a Ctrl-C nobody pressed. The bin names the signal in the abort's reason
// (`{ signal: 'SIGTERM' }`, bin/hogctl.cjs).

/** How to quit at once after the first stop: the same signal again. */
export function quitAgainHint(signal: AbortSignal | undefined): string {
  const name = (signal?.reason as { signal?: unknown } | undefined)?.signal;
  return typeof name === 'string' && name !== 'SIGINT' ? `a second ${name} quits now` : 'Ctrl-C again to quit now';
}
