// The verbs of `hogctl profile`, loaded only when the command line names this group (or the whole
// tree is wanted: completion scripts, docs), so that start-up stays fast.
import type { Command } from 'commander';
import { profileAddCommand } from './add.js';
import { profileListCommand } from './list.js';
import { profileUseCommand } from './use.js';
import { profileShowCommand } from './show.js';
import { profileRemoveCommand } from './remove.js';

export function profileVerbs(): Command[] {
  return [
    profileAddCommand(),
    profileListCommand(),
    profileUseCommand(),
    profileShowCommand(),
    profileRemoveCommand(),
  ];
}
