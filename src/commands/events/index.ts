// The verbs of `hogctl events`, by name, each loaded only when needed (see src/cli/lazy-verb.ts).
import type { LazyVerb } from '../../cli/lazy-verb.js';

export const eventsVerbs: LazyVerb[] = [
  { name: 'delete', load: async () => (await import('./delete.js')).eventsDeleteCommand() },
  { name: 'deletion-requests', load: async () => (await import('./deletion-requests.js')).eventsDeletionRequestsCommand() },
];
