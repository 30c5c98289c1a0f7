// The verbs of `hogctl profile`, by name, each loaded only when needed (see src/cli/lazy-verb.ts).
import type { LazyVerb } from '../../cli/lazy-verb.js';

export const profileVerbs: LazyVerb[] = [
  { name: 'add', load: async () => (await import('./add.js')).profileAddCommand() },
  { name: 'list', load: async () => (await import('./list.js')).profileListCommand() },
  { name: 'use', load: async () => (await import('./use.js')).profileUseCommand() },
  { name: 'show', load: async () => (await import('./show.js')).profileShowCommand() },
  { name: 'remove', load: async () => (await import('./remove.js')).profileRemoveCommand() },
];
