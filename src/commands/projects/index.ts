// The verbs of `hogctl projects`, loaded only when the command line names this group (or the whole
// tree is wanted: completion scripts, docs), so that start-up stays fast.
import type { Command } from 'commander';
import { projectsListCommand } from './list.js';

export function projectsVerbs(): Command[] {
  return [
    projectsListCommand(),
  ];
}
