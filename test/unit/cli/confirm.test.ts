// The confirmation of destructive verbs (ARCHITECTURE.md §5): --yes skips it, off a terminal it
// refuses with exit 2, on a terminal a "no" or a wrongly typed answer is a cancellation.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { confirmOrRefuse } from '../../../src/cli/confirm.js';
import { Context } from '../../../src/context.js';
import { CancelledError, UsageError } from '../../../src/errors.js';
import { NonInteractivePrompter } from '../../../src/prompts/non-interactive.js';
import type { Prompter } from '../../../src/prompts/prompter.js';

/** A person at a terminal who gives `answers`, in order; what was asked is kept. */
function person(answers: (string | boolean)[]): Prompter & { asked: string[] } {
  const asked: string[] = [];
  const next = () => answers.shift();
  return {
    interactive: true,
    asked,
    // As inquirer does: an answer the validation refuses is shown its message and asked again.
    input: async (message, options) => {
      asked.push(message);
      for (;;) {
        const answer = String(next());
        const verdict = options?.validate?.(answer) ?? true;
        if (verdict === true) return answer;
        asked.push(verdict);
      }
    },
    password: async () => String(next()),
    confirm: async (message, options) => (asked.push(`${message} [default ${options?.default}]`), Boolean(next())),
    select: async () => next() as never,
  };
}

function context(prompter: Prompter) {
  const stderr = new PassThrough();
  let err = '';
  stderr.on('data', (c) => (err += c));
  const ctx = new Context({ io: { stdout: new PassThrough(), stderr, stdin: new PassThrough() }, env: {}, now: Date.now, prompter }, {});
  return { ctx, err: () => err };
}

const deletion = { summary: 'Delete person 7 in project 1 on https://eu.posthog.com.', question: 'Delete?' };

describe('confirmOrRefuse', () => {
  it('with --yes, asks nothing', async () => {
    const prompter = person([]);
    await confirmOrRefuse(context(prompter).ctx, { ...deletion, yes: true });
    expect(prompter.asked).toEqual([]);
  });

  it('off a terminal, refuses with what would have happened and how to go on', async () => {
    const refusal = await confirmOrRefuse(context(new NonInteractivePrompter()).ctx, deletion).catch((err: unknown) => err);
    expect(refusal).toBeInstanceOf(UsageError);
    expect((refusal as UsageError).message).toBe('delete person 7 in project 1 on https://eu.posthog.com: refusing without confirmation');
    expect((refusal as UsageError).hint).toBe('run it in a terminal to be asked, or pass --yes');
  });

  it('on a terminal, shows the summary and asks with "no" as the default', async () => {
    const prompter = person([true]);
    const { ctx, err } = context(prompter);
    await confirmOrRefuse(ctx, deletion);
    expect(err()).toBe(`${deletion.summary}\n`);
    expect(prompter.asked).toEqual(['Delete? [default false]']);
  });

  it('a "no" is a cancellation, not a success', async () => {
    await expect(confirmOrRefuse(context(person([false])).ctx, deletion)).rejects.toThrow(CancelledError);
  });

  it('asked to type a word, accepts it in any case and around spaces, asks again after a typo, and cancels on an empty answer', async () => {
    const typed = { ...deletion, typeToConfirm: 'ada@example.com' };
    const prompter = person([' ADA@example.com ']);
    await confirmOrRefuse(context(prompter).ctx, typed);
    expect(prompter.asked).toEqual(['Delete? Type ada@example.com to confirm (empty to cancel):']);
    const again = person(['ada', ' ada@example.com']);
    await confirmOrRefuse(context(again).ctx, typed);
    expect(again.asked[1]).toBe('that is not ada@example.com: type ada@example.com exactly, or nothing to cancel');
    const wrong = await confirmOrRefuse(context(person(['ada', ''])).ctx, typed).catch((err: unknown) => err);
    expect(wrong).toBeInstanceOf(CancelledError);
    expect((wrong as CancelledError).message).toBe('cancelled; nothing was changed');
  });
});
