// Reads a secret piped on standard input (`--api-key-stdin`, `--password-stdin`), so that it never
// appears in argv or shell history.
import { UsageError } from '../errors.js';
import type { InStream } from './streams.js';

export async function readSecretFromStdin(stdin: InStream, what: string, flag: string): Promise<string> {
  if (stdin.isTTY)
    throw new UsageError(
      `${flag} reads the ${what} from a pipe, but standard input is a terminal`,
      `e.g. \`printf %s "$SECRET" | hogctl ... ${flag}\``,
    );
  let text = '';
  stdin.setEncoding('utf8');
  for await (const chunk of stdin) {
    text += chunk as string;
    if (text.length > 64 * 1024) throw new UsageError(`${flag}: standard input is too long to be ${what}`);
  }
  const secret = text.replace(/^\uFEFF/, '').trim();
  if (!secret)
    throw new UsageError(`${flag}: standard input was empty`, `pipe the ${what} in, e.g. \`printf %s "$SECRET" | hogctl ... ${flag}\``);
  if (/\s/.test(secret))
    throw new UsageError(`${flag}: the ${what} on standard input contains spaces or several lines`, `pipe only the ${what}`);
  return secret;
}
