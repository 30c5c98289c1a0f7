// The verbs of `hogctl users`, loaded only when the command line names this group (or the whole
// tree is wanted: completion scripts, docs), so that start-up stays fast.
import type { Command } from 'commander';
import { group } from '../with-context.js';
import { usersMeCommand } from './me.js';
import { usersUpdateCommand } from './update.js';
import { twoFactorStatusCommand } from './2fa/status.js';
import { twoFactorStartCommand } from './2fa/start.js';
import { twoFactorValidateCommand } from './2fa/validate.js';
import { twoFactorEnableCommand } from './2fa/enable.js';
import { twoFactorBackupCodesCommand } from './2fa/backup-codes.js';
import { twoFactorDisableCommand } from './2fa/disable.js';

export function usersVerbs(): Command[] {
  return [
    usersMeCommand(),
    usersUpdateCommand(),
    group(
      '2fa',
      'two-factor authentication: status, setup, backup codes (needs `hogctl auth login`)',
      [
        twoFactorStatusCommand(),
        twoFactorStartCommand(),
        twoFactorValidateCommand(),
        twoFactorEnableCommand(),
        twoFactorBackupCodesCommand(),
        twoFactorDisableCommand(),
      ],
      ['hogctl users 2fa enable', 'hogctl users 2fa status'],
    ),
  ];
}
