// `hogctl users 2fa`: loaded as one group when the command line names it.
import type { Command } from 'commander';
import { group } from '../../../cli/help-text.js';
import { twoFactorStatusCommand } from './status.js';
import { twoFactorStartCommand } from './start.js';
import { twoFactorValidateCommand } from './validate.js';
import { twoFactorEnableCommand } from './enable.js';
import { twoFactorBackupCodesCommand } from './backup-codes.js';
import { twoFactorDisableCommand } from './disable.js';

export function twoFactorGroup(): Command {
  return group(
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
  );
}
