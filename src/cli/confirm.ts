// The confirmation every destructive verb goes through (ARCHITECTURE.md §5): asked on a terminal,
// refused off a terminal unless --yes, and a "no" is a cancellation (exit 130), never a success.
import type { Context } from '../context.js';
import { CancelledError, UsageError } from '../errors.js';
import { fitToTerminal } from '../io/columns.js';

export interface Confirmation {
  yes?: boolean;
  /** What will happen, shown before the question (and in the refusal off a terminal). */
  summary: string;
  question: string;
  /** Asks the person to type this (e.g. the account's e-mail) instead of answering yes/no. */
  typeToConfirm?: string;
}

export async function confirmOrRefuse(ctx: Context, c: Confirmation): Promise<void> {
  if (c.yes) return;
  const prompter = await ctx.prompter();
  if (!prompter.interactive) {
    const what = c.summary.replace(/\.$/, '');
    throw new UsageError(
      `${what.charAt(0).toLowerCase()}${what.slice(1)}: refusing without confirmation`,
      'run it in a terminal to be asked, or pass --yes',
    );
  }
  ctx.io.stderr.write(`${fitToTerminal(ctx.io.stderr, c.summary)}\n`);
  if (c.typeToConfirm !== undefined) {
    const expected = c.typeToConfirm;
    const matches = (value: string) => value.trim().toLowerCase() === expected.toLowerCase();
    // A typo is asked again rather than taken as a "no" (or worse, shown as an accepted answer);
    // an empty answer, Ctrl-C or Ctrl-D cancel.
    const typed = await prompter.input(`${c.question} Type ${expected} to confirm (empty to cancel):`, {
      validate: (value) =>
        value.trim() === '' || matches(value) || `that is not ${expected}: type ${expected} exactly, or nothing to cancel`,
    });
    if (!matches(typed)) throw new CancelledError('cancelled; nothing was changed');
    return;
  }
  if (!(await prompter.confirm(c.question, { default: false }))) throw new CancelledError('cancelled; nothing was changed');
}
