// Reads a JSON file a megabyte at a time, never as one string: a receipt of ten million ids is
// close to half a gigabyte of text, and V8 cannot hold a string of more than 2^29 - 24 characters
// (about 512 MiB), so `JSON.parse(await readFile(...))` fails on it before it starts. The value
// is built as JSON.parse would build it, except that arrays of strings under the keys named in
// `compact` are kept in an IdSet (16 bytes a UUID, src/bulk/input/id-set.ts) rather than as strings.
import { closeSync, openSync, readSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { IdSet } from '../bulk/input/id-set.js';

const BLOCK = 1 << 20;

/** Where the text is not JSON, and why (the caller says what file it is). */
export class JsonSyntaxError extends Error {}

export interface ReadJsonOptions {
  /** Keys whose value, an array of strings, is kept as an IdSet (duplicates dropped). */
  compact?: ReadonlySet<string>;
  /** Characters read at a time (tests use fewer, to cross block ends everywhere). */
  block?: number;
}

export function readJsonFile(path: string, options: ReadJsonOptions = {}): unknown {
  const fd = openSync(path, 'r');
  try {
    const bytes = Buffer.alloc(options.block ?? BLOCK);
    const decoder = new StringDecoder('utf8');
    return parseJsonText(() => {
      const n = readSync(fd, bytes, 0, bytes.length, null);
      return n === 0 ? decoder.end() || undefined : decoder.write(bytes.subarray(0, n));
    }, options);
  } finally {
    closeSync(fd);
  }
}

/** Parses the text `next` gives piece by piece (undefined at its end). */
export function parseJsonText(next: () => string | undefined, options: ReadJsonOptions = {}): unknown {
  const reader = new JsonReader(next, options.compact ?? new Set<string>());
  const result = reader.value();
  if (reader.peek() !== '') fail('more text after the value');
  return result;
}

function fail(why: string): never {
  throw new JsonSyntaxError(why);
}

/** A JSON reader over text that comes piece by piece: only the piece being read is held. */
class JsonReader {
  private text = '';
  private at = 0;
  private ended = false;

  constructor(
    private readonly next: () => string | undefined,
    /** Keys whose arrays of strings are kept as an IdSet. */
    private readonly compact: ReadonlySet<string>,
  ) {}

  /** At least one more character to look at, or false at the end of the text. */
  private more(): boolean {
    while (this.at >= this.text.length) {
      if (this.ended) return false;
      const piece = this.next();
      if (piece === undefined) {
        this.ended = true;
        return false;
      }
      this.text = this.text.slice(this.at) + piece;
      this.at = 0;
    }
    return true;
  }

  /** The next character that is not white space, or '' at the end. */
  peek(): string {
    do {
      for (; this.at < this.text.length; this.at++) {
        const c = this.text.charCodeAt(this.at);
        // JSON's white space: space, tab, line feed, carriage return.
        if (c !== 32 && c !== 9 && c !== 10 && c !== 13) return this.text[this.at];
      }
    } while (this.more());
    return '';
  }

  private expect(c: string): void {
    if (this.peek() !== c) fail(`expected ${JSON.stringify(c)}`);
    this.at++;
  }

  value(key?: string): unknown {
    const c = this.peek();
    if (c === '{') return this.object();
    if (c === '[') return this.array(key);
    if (c === '"') return this.string();
    if (c === '') return fail('the text ends early');
    return this.literal();
  }

  private object(): Record<string, unknown> {
    this.at++;
    const obj: Record<string, unknown> = {};
    if (this.peek() === '}') {
      this.at++;
      return obj;
    }
    for (;;) {
      const k = this.string();
      this.expect(':');
      const v = this.value(k);
      // As JSON.parse: a key named __proto__ is an own property, not the prototype.
      if (k === '__proto__') Object.defineProperty(obj, k, { value: v, enumerable: true, writable: true, configurable: true });
      else obj[k] = v;
      const sep = this.peek();
      this.at++;
      if (sep === '}') return obj;
      if (sep !== ',') fail('expected "," or "}"');
    }
  }

  /** An array; under a key of `compact`, its strings as an IdSet. */
  private array(key: string | undefined): unknown[] | IdSet {
    this.at++;
    const ids = key !== undefined && this.compact.has(key) ? new IdSet() : undefined;
    const list: unknown[] = [];
    if (this.peek() === ']') {
      this.at++;
      return ids ?? list;
    }
    for (;;) {
      if (ids) {
        if (this.peek() !== '"') fail(`"${key}" holds something other than strings`);
        ids.add(this.string());
      } else list.push(this.value());
      const sep = this.peek();
      this.at++;
      if (sep === ']') return ids ?? list;
      if (sep !== ',') fail('expected "," or "]"');
    }
  }

  private string(): string {
    this.expect('"');
    let out = '';
    let escaped = false;
    for (;;) {
      if (!this.more()) fail('a string does not end');
      const { text, at } = this;
      const end = text.indexOf('"', at);
      const stop = end === -1 ? text.length : end;
      // A quote behind an odd number of backslashes is part of the string.
      let slashes = 0;
      let i = stop - 1;
      for (; i >= at && text.charCodeAt(i) === 92; i--) slashes++;
      // All backslashes back to where this piece began: count on into what was read before it.
      if (i < at) for (let j = out.length - 1; j >= 0 && out.charCodeAt(j) === 92; j--) slashes++;
      const piece = text.slice(at, stop);
      if (piece.includes('\\')) escaped = true;
      if (end === -1 || slashes % 2 === 1) {
        // The string goes on: keep what was read, and the quote if there was one.
        out += end === -1 ? piece : `${piece}"`;
        this.at = end === -1 ? text.length : end + 1;
        continue;
      }
      out += piece;
      this.at = end + 1;
      break;
    }
    return unescaped(out, escaped);
  }

  private literal(): unknown {
    const start = this.at;
    let word = '';
    while (this.more() && /[-+.\w]/.test(this.text[this.at])) word += this.text[this.at++];
    if (word === 'true') return true;
    if (word === 'false') return false;
    if (word === 'null') return null;
    // A word is not repeated: a file given by mistake may hold a secret (a key), and the message
    // goes to a terminal, a CI log or an agent.
    if (!/^-?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?$/.test(word))
      fail(word ? 'a word without quotes where a value was expected' : `unexpected ${JSON.stringify(this.text[start] || 'end')}`);
    return Number(word);
  }
}

/** A string's content as read: checked for control characters, or its escapes decoded. */
function unescaped(out: string, escaped: boolean): string {
  if (!escaped) {
    for (let i = 0; i < out.length; i++) if (out.charCodeAt(i) < 32) fail('a control character in a string');
    return out;
  }
  try {
    return JSON.parse(`"${out}"`) as string;
  } catch {
    return fail('a bad escape in a string');
  }
}
