// The verbs of `hogctl projects`, by name. Each verb's code is loaded only when the command line
// names it (all of them for help, typos, completion scripts and docs), so that start-up stays
// fast; this list itself is part of the entry chunk.
import type { LazyVerb } from '../lazy-verb.js';

export const projectsVerbs: LazyVerb[] = [
  { name: 'list', load: async () => (await import('./list.js')).projectsListCommand() },
];
