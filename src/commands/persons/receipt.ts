import { writeFile } from 'node:fs/promises';
import { Command } from 'commander';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { withContext } from '../../cli/with-context.js';
import { examples } from '../../cli/help-text.js';
import { readJsonFile, JsonSyntaxError } from '../../io/json-file.js';
import { fileError } from '../../config/secret-file.js';
import { writeSummary } from '../../io/summary.js';
import { receiptFacts, type ReceiptLike } from '../../bulk/engine/receipt-view.js';
import { receiptHtml } from '../../bulk/engine/receipt-html.js';
import { earlierReceiptError, RECEIPT_FORMAT } from '../../bulk/engine/receipt.js';

export interface PersonsReceiptOptions {
  html?: string;
}

export function personsReceiptCommand(): Command {
  return new Command('receipt')
    .summary('show a bulk job receipt as a person reads it, or as a one-page HTML report')
    .description(
      'Reads the receipt of `persons bulk-delete`, `bulk-update` or `merge` and says what was asked (by whom, for which --reference), ' +
        'what was found and done, what PostHog still holds and when it goes, and what the check afterwards said. ' +
        'Reads only the file: nothing is sent. --html writes the same as a one-page report to attach to the ticket (no key, no identifiers).',
    )
    .argument('<file>', 'the receipt')
    .option('--html <file>', 'also write a one-page HTML report there')
    .addHelpText(
      'after',
      examples('hogctl persons receipt erasure.receipt.json', 'hogctl persons receipt erasure.receipt.json --html erasure-report.html'),
    )
    .action(withContext(personsReceiptRun));
}

export async function personsReceiptRun(ctx: Context, options: PersonsReceiptOptions, file: string): Promise<void> {
  const receipt = readReceiptFile(file);
  const view = receiptFacts(receipt, file);
  if (options.html !== undefined) {
    const html = receiptHtml(view, new Date(ctx.clock.now()).toISOString());
    await writeFile(options.html, html).catch((err) => {
      throw fileError(err, options.html!, 'write');
    });
    ctx.info(`✔ wrote the report to ${options.html}`);
  }
  const output = await ctx.output();
  const width = Math.max(...view.facts.map(([label]) => label.length));
  const lines = [view.title, ...view.facts.map(([label, text]) => `  ${label.padEnd(width)}  ${text}`)];
  // Scripts get the same facts as one record, under the labels' names (`run_by`, `posthog_holds`).
  const record = Object.fromEntries([
    ['receipt', view.title],
    ...view.facts.map(([label, text]) => [label.toLowerCase().replace(/ /g, '_'), text]),
  ]);
  await writeSummary(output, lines, record, { columns: Object.keys(record) });
}

/** The receipt, whatever its kind: its size is that of the ids it lists, so it is read in blocks. */
function readReceiptFile(file: string): ReceiptLike {
  let receipt: unknown;
  try {
    receipt = readJsonFile(file, { compact: new Set(['ids_sent']) });
  } catch (err) {
    if (err instanceof JsonSyntaxError) throw new UsageError(`${file} is not a receipt: it is not JSON (${err.message})`);
    throw fileError(err, file, 'read');
  }
  const earlier = earlierReceiptError(file, receipt);
  if (earlier) throw earlier;
  if (!isReceipt(receipt))
    throw new UsageError(
      `${file} is not a receipt of a hogctl bulk job`,
      'pass the receipt a `persons bulk-delete`, `bulk-update` or `merge` run wrote',
    );
  return receipt;
}

/** Whether what a file holds is a receipt of this format: its command, counts and input. */
function isReceipt(value: unknown): value is ReceiptLike {
  if (typeof value !== 'object' || value === null || !('receipt_format' in value) || value.receipt_format !== RECEIPT_FORMAT) return false;
  return (
    'command' in value &&
    typeof value.command === 'string' &&
    'counts' in value &&
    Boolean(value.counts) &&
    'input' in value &&
    Boolean(value.input)
  );
}
