// Writing a receipt: whole or not at all, as the text JSON.stringify(receipt, null, 2) gives,
// made and written a piece at a time so that ten million ids never become one string.
import { open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { UsageError } from '../../errors.js';
import { IdSet } from '../input/id-set.js';
import { IdSubset } from '../input/id-subset.js';
import { writeAll } from '../../io/write-all.js';
import type { Receipt } from './receipt.js';

/** A receipt that could not be written whole: nothing is at its path (exit 2 as it is, when
 * nothing was sent; the engine says what was sent, when something was: finish.ts). */
export class ReceiptNotWrittenError extends UsageError {
  constructor(
    readonly path: string,
    /** Why, in a few words: "no space left on the device". */
    readonly why: string,
  ) {
    super(
      `cannot write the receipt ${path}: ${why}`,
      'the journal still records every answer: free some space, or run again with --resume and --receipt <another path> to write it',
    );
  }
}

/** Written beside, synced, checked and then renamed over, so a reader never sees half a receipt
 * and hogctl never names one that is not whole. The text is what `JSON.stringify(receipt, null,
 * 2)` gives, written as it is made: the id lists of ten million ids would be one string of half a
 * gigabyte. */
export async function writeReceipt(path: string, receipt: Receipt): Promise<void> {
  const tmp = `${path}.tmp-${process.pid}`;
  let file: FileHandle | undefined;
  try {
    file = await open(tmp, 'w', 0o600);
    const out = new BufferedText(file);
    await writeJson(out, receipt, '');
    await out.write('\n');
    await out.flush();
    await file.datasync();
    // What the disk holds is what was made: a short write no one saw would show here.
    const size = (await file.stat()).size;
    if (size !== out.written) throw new Error(`only ${size} of its ${out.written} bytes reached the disk`);
    await file.close();
    file = undefined;
    await rename(tmp, path);
  } catch (err) {
    await file?.close().catch(() => {});
    // A full disk may have left part of it: never leave the temporary file behind.
    await unlink(tmp).catch(() => {});
    const code = (err as NodeJS.ErrnoException).code;
    throw new ReceiptNotWrittenError(path, code === 'ENOSPC' || code === 'EDQUOT' ? 'no space left on the device' : (err as Error).message);
  }
}

/** Arrays of plain values longer than this are written an element at a time; shorter ones at once. */
const STREAMED_ARRAY = 256;

/** Text gathered into writes of about a megabyte. */
class BufferedText {
  private readonly buffer = Buffer.alloc(1 << 20);
  private used = 0;
  /** Text that did not fit behind what the buffer holds, in order, for the next flush. */
  private pending: Buffer[] = [];
  /** Bytes written to the file so far. */
  written = 0;

  constructor(private readonly file: FileHandle) {}

  async write(text: string): Promise<void> {
    if (this.add(text)) await this.flush();
  }

  /** Adds text without waiting; true when it is time to flush. */
  add(text: string): boolean {
    // A UTF-16 code unit is at most 3 bytes of UTF-8.
    if (this.pending.length > 0 || this.used + text.length * 3 > this.buffer.length) {
      this.pending.push(Buffer.from(text, 'utf8'));
      return true;
    }
    this.used += this.buffer.write(text, this.used, 'utf8');
    return this.used >= this.buffer.length - 4096;
  }

  /** A string as JSON: written straight into the buffer when it needs no escape (an id), so that
   * ten million ids make no ten million quoted copies. */
  addString(value: string): boolean {
    if (NEEDS_ESCAPE.test(value)) return this.add(JSON.stringify(value));
    const open = this.add('"');
    const text = this.add(value);
    return this.add('"') || open || text;
  }

  async flush(): Promise<void> {
    if (this.used > 0) this.written += await writeAll(this.file, this.buffer.subarray(0, this.used));
    this.used = 0;
    for (const piece of this.pending.splice(0)) this.written += await writeAll(this.file, piece);
  }
}

/** What JSON.stringify escapes in a string: quotes, backslashes, control characters and lone
 * surrogates (a surrogate pair is tested as two halves, and then escaped in JSON.stringify's way). */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** `JSON.stringify(value, null, 2)` at this indent, written piece by piece: objects key by key,
 * long arrays element by element. */
async function writeJson(out: BufferedText, value: unknown, indent: string): Promise<void> {
  const inner = `${indent}  `;
  // A compact list of ids (id-set.ts) is written as the array it stands for, an id at a time.
  if (value instanceof IdSet || value instanceof IdSubset) {
    if (value.size === 0) return out.write('[]');
    let first = true;
    await out.write('[');
    for (const id of value) {
      out.add(`${first ? '' : ','}\n${inner}`);
      first = false;
      if (out.addString(id)) await out.flush();
    }
    await out.write(`\n${indent}]`);
    return;
  }
  // An array of objects is written element by element however short: a receipt's one project
  // holds its ids.
  if (
    Array.isArray(value) &&
    value.length > 0 &&
    (value.length > STREAMED_ARRAY || value.some((v) => v !== null && typeof v === 'object'))
  ) {
    await out.write('[');
    for (let i = 0; i < value.length; i++) {
      out.add(`${i ? ',' : ''}\n${inner}`);
      // As JSON.stringify writes them: undefined and functions in an array are null.
      const v: unknown = value[i];
      if (v === undefined || typeof v === 'function') await out.write('null');
      else if (typeof v === 'string') {
        // Most elements are ids: no promise each.
        if (out.addString(v)) await out.flush();
      } else await writeJson(out, v, inner);
    }
    await out.write(`\n${indent}]`);
    return;
  }
  if (isPlainObject(value)) {
    const keys = Object.keys(value).filter((k) => value[k] !== undefined && typeof value[k] !== 'function');
    if (keys.length === 0) return out.write('{}');
    await out.write('{');
    for (let i = 0; i < keys.length; i++) {
      await out.write(`${i ? ',' : ''}\n${inner}${JSON.stringify(keys[i])}: `);
      await writeJson(out, value[keys[i]], inner);
    }
    await out.write(`\n${indent}}`);
    return;
  }
  const text = JSON.stringify(value, null, 2);
  await out.write(indent && text.includes('\n') ? text.replaceAll('\n', `\n${indent}`) : text);
}
