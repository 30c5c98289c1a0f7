// The verbs of `hogctl users`, by name, each loaded only when needed (see src/cli/lazy-verb.ts).
import type { LazyVerb } from '../../cli/lazy-verb.js';

export const usersVerbs: LazyVerb[] = [
  { name: 'me', load: async () => (await import('./me.js')).usersMeCommand() },
  { name: 'update', load: async () => (await import('./update.js')).usersUpdateCommand() },
  { name: '2fa', load: async () => (await import('./2fa/index.js')).twoFactorGroup() },
];
