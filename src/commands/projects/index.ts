// The verbs of `hogctl projects`. The group is loaded only when the command line names it, and then
// only the verb it names (all of them for help, typos, completion scripts and docs), so that
// start-up stays fast.
import type { LazyVerb } from '../lazy-verb.js';

export const projectsVerbs: LazyVerb[] = [
  { name: 'list', load: async () => (await import('./list.js')).projectsListCommand() },
];
