// The command line that runs the current command again. A command stopped halfway (a rate limit
// it will not wait out, Ctrl-C, an error) prints how to continue, and that line must work as
// printed: the same verb, arguments and flags (global ones included), with only the flag that
// says where to continue changed. Only what was typed is repeated: settings from the environment
// or a profile come back by themselves, and a default is a default again.
import type { Command } from 'commander';

/** What was typed, as commander parsed it. */
export interface Invocation {
  /** Group and verb, e.g. ['persons', 'query']. */
  path: string[];
  args: string[];
  /** The flags given, each with its values (none for a switch); global ones are the root's. */
  flags: { flag: string; values: string[]; global: boolean }[];
}

export function invocationOf(command: Command, args: unknown[]): Invocation {
  const chain: Command[] = [];
  for (let c: Command | null = command; c; c = c.parent) chain.unshift(c);
  const flags: Invocation['flags'] = [];
  for (const c of chain) {
    for (const option of c.options) {
      const key = option.attributeName();
      if (c.getOptionValueSource(key) !== 'cli') continue;
      const flag = option.long ?? option.short;
      if (!flag) continue;
      const value: unknown = c.getOptionValue(key);
      const global = c === chain[0];
      // A switch (`--all`, `--no-color`) is its flag alone; a repeatable flag repeats.
      if (Array.isArray(value)) for (const v of value) flags.push({ flag, values: [String(v)], global });
      else flags.push({ flag, values: typeof value === 'boolean' ? [] : [String(value)], global });
    }
  }
  return {
    path: chain.slice(1).map((c) => c.name()),
    args: args.flatMap((a) => (Array.isArray(a) ? a.map(String) : a === undefined ? [] : [String(a)])),
    flags,
  };
}

/** A word as a POSIX shell reads it back: plain when it is safe, else in single quotes. */
export function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * The command line again, shell-quoted, with `change` applied: a flag named there loses the
 * values it was given and gets these instead (none: left out; `[]`: a switch).
 */
export function rerunCommand(invocation: Invocation, change: Record<string, string[] | string | null> = {}): string {
  const words = ['hogctl'];
  const flagWords = (flag: string, values: string[]) => [flag, ...values.map(shellQuote)];
  const kept = invocation.flags.filter((f) => !(f.flag in change));
  for (const f of kept.filter((f) => f.global)) words.push(...flagWords(f.flag, f.values));
  words.push(...invocation.path, ...invocation.args.map(shellQuote));
  for (const f of kept.filter((f) => !f.global)) words.push(...flagWords(f.flag, f.values));
  for (const [flag, value] of Object.entries(change)) {
    if (value === null) continue;
    words.push(...flagWords(flag, Array.isArray(value) ? value : [value]));
  }
  return words.join(' ');
}
