// Runs the built binary on a real pseudo-terminal (util-linux `script`), answering prompts as a
// person would: each answer is typed only once its prompt has appeared, so nothing depends on
// timing.
import { spawn } from 'node:child_process';
import { BIN, cleanEnv } from './harness.js';

export interface Answer {
  /** Text (ANSI codes removed) that must have appeared since the previous answer. */
  when: string;
  /** Keys to type, e.g. 'n\r'; a function gets the screen so far (to read a secret shown on it). */
  send: string | ((screen: string) => string);
}

export interface TerminalResult {
  code: number | null;
  /** Everything the terminal showed (stdout and stderr together), without ANSI codes. */
  output: string;
  /** The same with the ANSI codes, to see colours. */
  raw: string;
}

/** The terminal's size in character cells (default: what `script` gives, no size at all). */
export interface TerminalSize {
  columns: number;
  rows: number;
}

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
export const stripAnsi = (s: string) => s.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '');

export function runInTerminal(
  args: string[],
  env: Record<string, string | undefined>,
  answers: Answer[] = [],
  timeoutMs = 30_000,
  size?: TerminalSize,
): Promise<TerminalResult> {
  return new Promise((resolve, reject) => {
    const run = [process.execPath, BIN, ...args].map(shellQuote).join(' ');
    const command = size ? `stty cols ${size.columns} rows ${size.rows}; exec ${run}` : run;
    const child = spawn('script', ['-qec', command, '/dev/null'], {
      env: cleanEnv({ TERM: 'xterm', ...env }),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let raw = '';
    let from = 0;
    let next = 0;
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    const onData = (chunk: string) => {
      raw += chunk;
      const text = stripAnsi(raw);
      while (next < answers.length) {
        const at = text.indexOf(answers[next].when, from);
        if (at === -1) break;
        from = at + answers[next].when.length;
        const send = answers[next].send;
        child.stdin.write(typeof send === 'function' ? send(text) : send);
        next++;
      }
    };
    // Decoded as streams: a character whose bytes arrive in two chunks (the QR code's half
    // blocks are 3 bytes each) must not turn into two replacement characters.
    child.stdout.setEncoding('utf8').on('data', onData);
    child.stderr.setEncoding('utf8').on('data', onData);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output: stripAnsi(raw), raw });
    });
    child.stdin.on('error', () => {});
  });
}
