// The verbs of `hogctl users`, by name. Each verb's code is loaded only when the command line
// names it (all of them for help, typos, completion scripts and docs), so that start-up stays
// fast; this list itself is part of the entry chunk.
import type { LazyVerb } from '../lazy-verb.js';

export const usersVerbs: LazyVerb[] = [
  { name: 'me', load: async () => (await import('./me.js')).usersMeCommand() },
  { name: 'update', load: async () => (await import('./update.js')).usersUpdateCommand() },
  { name: '2fa', load: async () => (await import('./2fa/index.js')).twoFactorGroup() },
];
