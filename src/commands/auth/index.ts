// The verbs of `hogctl auth`, by name. Each verb's code is loaded only when the command line
// names it (all of them for help, typos, completion scripts and docs), so that start-up stays
// fast; this list itself is part of the entry chunk.
import type { LazyVerb } from '../lazy-verb.js';

export const authVerbs: LazyVerb[] = [
  { name: 'login', load: async () => (await import('./login.js')).authLoginCommand() },
  { name: 'status', load: async () => (await import('./status.js')).authStatusCommand() },
  { name: 'logout', load: async () => (await import('./logout.js')).authLogoutCommand() },
];
