// What commands may ask a person. The interactive implementation (inquirer) and the
// non-interactive twin both live behind this interface, so that commands never import inquirer.

export interface Choice<T> {
  name: string;
  value: T;
  description?: string;
}

export interface Prompter {
  readonly interactive: boolean;
  input(message: string, options?: { default?: string; validate?: (value: string) => true | string }): Promise<string>;
  /** Hidden entry: nothing is echoed. */
  password(message: string): Promise<string>;
  confirm(message: string, options?: { default?: boolean }): Promise<boolean>;
  select<T>(message: string, choices: Choice<T>[], options?: { default?: T }): Promise<T>;
}
