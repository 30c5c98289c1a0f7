// The verbs of `hogctl profile`, by name. Each verb's code is loaded only when the command line
// names it (all of them for help, typos, completion scripts and docs), so that start-up stays
// fast; this list itself is part of the entry chunk.
import type { LazyVerb } from '../lazy-verb.js';

export const profileVerbs: LazyVerb[] = [
  { name: 'add', load: async () => (await import('./add.js')).profileAddCommand() },
  { name: 'list', load: async () => (await import('./list.js')).profileListCommand() },
  { name: 'use', load: async () => (await import('./use.js')).profileUseCommand() },
  { name: 'show', load: async () => (await import('./show.js')).profileShowCommand() },
  { name: 'remove', load: async () => (await import('./remove.js')).profileRemoveCommand() },
];
