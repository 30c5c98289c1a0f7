// The verbs of `hogctl auth`, by name, each loaded only when needed (see src/cli/lazy-verb.ts).
import type { LazyVerb } from '../../cli/lazy-verb.js';

export const authVerbs: LazyVerb[] = [
  { name: 'login', load: async () => (await import('./login.js')).authLoginCommand() },
  { name: 'status', load: async () => (await import('./status.js')).authStatusCommand() },
  { name: 'logout', load: async () => (await import('./logout.js')).authLogoutCommand() },
];
