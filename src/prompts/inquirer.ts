// The only module that imports inquirer. Questions go to stderr so that stdout stays data.
import { confirm, input, password, select } from '@inquirer/prompts';
import { CancelledError } from '../errors.js';
import type { InStream, OutStream } from '../io/streams.js';
import type { Choice, Prompter } from './prompter.js';

export class InquirerPrompter implements Prompter {
  readonly interactive = true;

  constructor(private readonly streams: { input: InStream; output: OutStream }) {}

  private async ask<T>(question: Promise<T>): Promise<T> {
    try {
      return await question;
    } catch (err) {
      // Ctrl-C or Ctrl-D at a prompt: a cancellation, never a success.
      if ((err as Error)?.name === 'ExitPromptError' || (err as Error)?.name === 'AbortPromptError') {
        throw new CancelledError('cancelled at the prompt; nothing was changed');
      }
      throw err;
    }
  }

  input(message: string, options: { default?: string; validate?: (value: string) => true | string } = {}): Promise<string> {
    return this.ask(input({ message, default: options.default, validate: options.validate }, this.streams));
  }

  password(message: string): Promise<string> {
    return this.ask(password({ message, mask: false }, this.streams));
  }

  confirm(message: string, options: { default?: boolean } = {}): Promise<boolean> {
    return this.ask(confirm({ message, default: options.default ?? false }, this.streams));
  }

  select<T>(message: string, choices: Choice<T>[], options: { default?: T } = {}): Promise<T> {
    return this.ask(select({ message, choices, default: options.default }, this.streams));
  }
}
