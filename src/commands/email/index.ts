// The verbs of `hogctl email`, by name, each loaded only when needed (see src/cli/lazy-verb.ts).
import type { LazyVerb } from '../../cli/lazy-verb.js';

export const emailVerbs: LazyVerb[] = [
  { name: 'verify', load: async () => (await import('./verify.js')).emailVerifyCommand() },
  { name: 'request-verification', load: async () => (await import('./request-verification.js')).emailRequestVerificationCommand() },
  { name: 'cancel-change', load: async () => (await import('./cancel-change.js')).emailCancelChangeCommand() },
];
