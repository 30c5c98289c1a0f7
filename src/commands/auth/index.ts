// The verbs of `hogctl auth`, loaded only when the command line names this group (or the whole
// tree is wanted: completion scripts, docs), so that start-up stays fast.
import type { Command } from 'commander';
import { authLoginCommand } from './login.js';
import { authStatusCommand } from './status.js';
import { authLogoutCommand } from './logout.js';

export function authVerbs(): Command[] {
  return [
    authLoginCommand(),
    authStatusCommand(),
    authLogoutCommand(),
  ];
}
