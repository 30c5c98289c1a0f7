// The twin used off a terminal, in CI or with --no-input: every question becomes a usage error
// that says which flag answers it.
import { UsageError } from '../errors.js';
import type { Prompter } from './prompter.js';

export class NonInteractivePrompter implements Prompter {
  readonly interactive = false;

  private refuse(message: string): never {
    throw new UsageError(
      `cannot ask "${message.replace(/[:?]\s*$/, '')}" without a terminal`,
      'pass the value as a flag (see --help), or run in a terminal without --no-input',
    );
  }

  input(message: string): Promise<string> {
    this.refuse(message);
  }

  password(message: string): Promise<string> {
    this.refuse(message);
  }

  confirm(message: string): Promise<boolean> {
    this.refuse(message);
  }

  select<T>(message: string): Promise<T> {
    this.refuse(message);
  }
}
