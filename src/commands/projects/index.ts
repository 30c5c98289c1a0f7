// The verbs of `hogctl projects`, by name, each loaded only when needed (see src/cli/lazy-verb.ts).
import type { LazyVerb } from '../../cli/lazy-verb.js';

export const projectsVerbs: LazyVerb[] = [{ name: 'list', load: async () => (await import('./list.js')).projectsListCommand() }];
