// The verbs of `hogctl users`. The group is loaded only when the command line names it, and then
// only the verb it names (all of them for help, typos, completion scripts and docs), so that
// start-up stays fast.
import type { LazyVerb } from '../lazy-verb.js';

export const usersVerbs: LazyVerb[] = [
  { name: 'me', load: async () => (await import('./me.js')).usersMeCommand() },
  { name: 'update', load: async () => (await import('./update.js')).usersUpdateCommand() },
  { name: '2fa', load: async () => (await import('./2fa/index.js')).twoFactorGroup() },
];
