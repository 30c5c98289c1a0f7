// The confirmation every destructive verb goes through (ARCHITECTURE.md §5): asked on a terminal,
// refused off a terminal unless --yes, and a "no" is a cancellation (exit 130), never a success.
import type { Context } from '../context.js';
import { CancelledError, UsageError } from '../errors.js';

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
  ctx.io.stderr.write(`${c.summary}\n`);
  if (c.typeToConfirm !== undefined) {
    const typed = await prompter.input(`${c.question} Type ${c.typeToConfirm} to confirm:`);
    if (typed.trim().toLowerCase() !== c.typeToConfirm.toLowerCase())
      throw new CancelledError(`cancelled: "${typed.trim()}" is not ${c.typeToConfirm}; nothing was changed`);
    return;
  }
  if (!(await prompter.confirm(c.question, { default: false }))) throw new CancelledError('cancelled; nothing was changed');
}
