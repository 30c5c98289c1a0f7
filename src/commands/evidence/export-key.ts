import { Command } from 'commander';
import type { Context } from '../../context.js';
import { withContext } from '../../cli/with-context.js';
import { examples } from '../../cli/help-text.js';
import { evidenceKey } from '../../config/evidence-key.js';

export function evidenceExportKeyCommand(): Command {
  return new Command('export-key')
    .summary('print the evidence key, to apply plans or check receipts elsewhere')
    .description(
      'Print the evidence key of this config directory (64 hexadecimal digits) on standard output, creating it if there is ' +
        'none yet. It signs the plans of `persons bulk-delete --plan-out` and `persons merge --plan-out` and names the e-mail addresses of an erasure in its ' +
        'journal, receipt and plan; none of those files holds it. Give it to a CI pipeline that applies your plans ' +
        '(HOGCTL_EVIDENCE_KEY, or `hogctl evidence import-key`), or to a DPO who checks receipts with ' +
        '`hogctl persons erasure-status --check-email`. One key does both: whoever holds it can check addresses against ' +
        'the evidence and can also sign a plan, so give it only to those you would let approve one. Keep it out of argv, ' +
        'chat and tickets: pipe it, or store it as a CI secret.',
    )
    .addHelpText(
      'after',
      examples(
        'hogctl evidence export-key > evidence-key.txt   # then store it as the CI secret HOGCTL_EVIDENCE_KEY',
        'hogctl evidence export-key | HOGCTL_CONFIG_DIR=./ci-config hogctl evidence import-key',
      ),
    )
    .action(withContext(evidenceExportKeyRun));
}

export async function evidenceExportKeyRun(ctx: Context): Promise<void> {
  const key = evidenceKey(ctx.env);
  ctx.io.stdout.write(`${key.hex}\n`);
  ctx.info(`the evidence key ${key.id} (from ${key.source}): keep it secret, anyone who holds it can sign plans`);
}
