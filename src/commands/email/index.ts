// The verbs of `hogctl email`, by name. Each verb's code is loaded only when the command line
// names it (all of them for help, typos, completion scripts and docs), so that start-up stays
// fast; this list itself is part of the entry chunk.
import type { LazyVerb } from '../lazy-verb.js';

export const emailVerbs: LazyVerb[] = [
  { name: 'verify', load: async () => (await import('./verify.js')).emailVerifyCommand() },
  { name: 'request-verification', load: async () => (await import('./request-verification.js')).emailRequestVerificationCommand() },
  { name: 'cancel-change', load: async () => (await import('./cancel-change.js')).emailCancelChangeCommand() },
];
