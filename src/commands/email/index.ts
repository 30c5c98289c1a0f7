// The verbs of `hogctl email`, loaded only when the command line names this group (or the whole
// tree is wanted: completion scripts, docs), so that start-up stays fast.
import type { Command } from 'commander';
import { emailVerifyCommand } from './verify.js';
import { emailRequestVerificationCommand } from './request-verification.js';
import { emailCancelChangeCommand } from './cancel-change.js';

export function emailVerbs(): Command[] {
  return [
    emailVerifyCommand(),
    emailRequestVerificationCommand(),
    emailCancelChangeCommand(),
  ];
}
