// The verbs of `hogctl profile`. The group is loaded only when the command line names it, and then
// only the verb it names (all of them for help, typos, completion scripts and docs), so that
// start-up stays fast.
import type { LazyVerb } from '../lazy-verb.js';

export const profileVerbs: LazyVerb[] = [
  { name: 'add', load: async () => (await import('./add.js')).profileAddCommand() },
  { name: 'list', load: async () => (await import('./list.js')).profileListCommand() },
  { name: 'use', load: async () => (await import('./use.js')).profileUseCommand() },
  { name: 'show', load: async () => (await import('./show.js')).profileShowCommand() },
  { name: 'remove', load: async () => (await import('./remove.js')).profileRemoveCommand() },
];
