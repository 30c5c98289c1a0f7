// The nearest name to a typo, by edit distance, as commander does for unknown commands; and the
// hogctl way for command lines typed from the habits of other tools.
import { UsageError } from '../errors.js';

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const kept = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = kept;
    }
  }
  return row[b.length];
}

export function suggest(word: string, names: string[]): string | undefined {
  let best: { name: string; d: number } | undefined;
  for (const name of names) {
    const d = distance(word, name);
    if (d <= Math.max(1, Math.floor(name.length / 3)) && (!best || d < best.d)) best = { name, d };
  }
  return best?.name;
}

/**
 * `words` are the command words of `argv` (program.ts commandWords). Command lines typed from the habits of other tools (`gh`, `kubectl`, `curl`), answered with
 * the hogctl way before commander would give a less helpful error. Only exact habits are
 * matched; everything else goes to commander and its typo suggestions.
 */
export function habitError(argv: string[], words: string[]): UsageError | undefined {
  const end = argv.indexOf('--');
  const args = end < 0 ? argv : argv.slice(0, end);
  const [first, second] = words;
  if (words.length === 1 && first === 'version') return new UsageError('unknown command "version"', 'did you mean `hogctl --version`?');
  const moved = first !== undefined && Object.hasOwn(MOVED, first) ? MOVED[first] : undefined;
  if (moved) return new UsageError(`unknown command "${first}"`, `did you mean \`hogctl ${moved}\`?`);
  for (const format of ['json', 'ndjson', 'csv']) {
    if (args.includes(`--${format}`))
      return new UsageError(`unknown option "--${format}"`, `use \`-o ${format}\` (or --output ${format}), which every command takes`);
  }
  if (first === 'api' && second?.startsWith('/')) {
    return new UsageError(
      `"${second}" is not an HTTP method: \`hogctl api\` takes the method first`,
      `did you mean \`hogctl api GET ${second}\`?`,
    );
  }
  const verb = args.indexOf('bulk-delete');
  const file = args[verb + 1];
  if (verb >= 0 && args[verb - 1] === 'persons' && file !== undefined && !file.startsWith('-') && !args.includes('--file')) {
    return new UsageError(
      `bulk-delete reads the ids from --file, not from an argument ("${file}")`,
      `did you mean \`hogctl persons bulk-delete --file ${file}\`?`,
    );
  }
  return undefined;
}

/** Top-level commands of other tools that live in a group here. */
const MOVED: Record<string, string> = { login: 'auth login', logout: 'auth logout', whoami: 'users me', status: 'auth status' };
