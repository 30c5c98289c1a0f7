// How a bulk run ends when it did its work but what records it is missing: the receipt could not
// be written whole (a full disk), or --jq/--template failed on the summary. Exit 2 would say
// nothing was sent, and exit 0 with "receipt: r.json" would name a file that is not there; so what
// was done is said first, then what is missing and how to get it, with exit 9 (ARCHITECTURE.md §4).
// A run that ended short of success keeps its own exit code, which already asks for --resume (which
// writes the receipt again); what is missing is said beside it.
import { dirname } from 'node:path';
import type { Context } from '../../context.js';
import { NotRecordedError, type CliError } from '../../errors.js';
import type { FilterFailedError } from '../../io/filter.js';
import type { ReceiptNotWrittenError } from './receipt-write.js';

/** What a run that sent requests could not record. */
export interface Missing {
  receipt?: ReceiptNotWrittenError;
  output?: FilterFailedError;
}

export interface RunEnd {
  warnings: string[];
  /** The run's own failure, whose exit code stands. */
  error?: CliError;
  /** The closing line of a run that did everything. */
  success?: string;
}

/** Says how the run ended, then what is missing: throws the run's error, or exit 9 when only
 * the record of a successful run is missing. */
export function closeRun(ctx: Context, end: RunEnd, missing: Missing, resume: string): void {
  for (const line of end.warnings) ctx.warn(line);
  const lost = missingError(missing, resume);
  if (end.error) {
    if (lost) ctx.warn(`${lost.message}; ${lost.hint}`);
    throw end.error;
  }
  if (end.success) ctx.info(end.success);
  if (lost) throw lost;
}

function missingError(missing: Missing, resume: string): NotRecordedError | undefined {
  const { receipt, output } = missing;
  if (receipt) {
    const also = output ? `; and ${output.message}` : '';
    return new NotRecordedError(
      `the receipt ${receipt.path} could not be written (${receipt.why}), so there is none: what was done is above, and the journal records it${also}`,
      `free some space (\`df -h ${dirname(receipt.path)}\`), then write the receipt with:\n  ${resume}\nThe run is finished: --resume sends no more changes, it writes the receipt from the journal (add --receipt <path> to write it elsewhere)`,
    );
  }
  if (output)
    return new NotRecordedError(
      `${output.message}; the run itself is done, as said above, and its receipt holds every count`,
      `${output.hint ?? ''}; -o json prints the summary the expression runs over`,
    );
  return undefined;
}
