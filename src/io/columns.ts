// Terminal text measures for the table and record views: how many cells a string takes, padding
// and truncating with `…` by that measure, and fitting columns to the terminal's width.
import { eastAsianWidth } from 'get-east-asian-width';

/** Code points drawn inside the cluster before them, taking no cells of their own: combining
 * marks, format characters (the zero-width joiner, emoji tags), variation selectors and the
 * skin-tone modifiers of an emoji. */
const JOINS_PREVIOUS = /[\p{Mn}\p{Me}\p{Cf}\u{fe00}-\u{fe0f}\u{1f3fb}-\u{1f3ff}\u{e0100}-\u{e01ef}]/u;
const PICTOGRAPHIC = /\p{Extended_Pictographic}/u;
const REGIONAL_INDICATOR = /[\u{1f1e6}-\u{1f1ff}]/u;
const ZERO_WIDTH_JOINER = '\u200d';
const EMOJI_PRESENTATION = '\ufe0f';
const KEYCAP = '\u20e3';

/**
 * `text` cut into what a terminal draws as one thing, each with the cells it takes: a character's
 * width from Unicode's East Asian Width table (the get-east-asian-width package, kept in step with
 * each Unicode release), with the emoji rules that table does not cover: a sequence joined by
 * zero-width joiners (👨‍👩‍👧), a skin tone (👍🏽), a flag's two regional indicators, a keycap, and a
 * text-style symbol made an emoji by U+FE0F (☀️) are each one emoji of two cells.
 */
function* clusters(text: string): Generator<[cluster: string, cells: number]> {
  let cluster = '';
  let cells = 0;
  let joined = false;
  for (const ch of text) {
    const regionalPair = REGIONAL_INDICATOR.test(ch) && cluster.length === 2 && REGIONAL_INDICATOR.test(cluster);
    if (cluster !== '' && (joined || regionalPair || JOINS_PREVIOUS.test(ch) || ch === KEYCAP)) {
      if ((ch === EMOJI_PRESENTATION && PICTOGRAPHIC.test(cluster)) || ch === KEYCAP) cells = 2;
      joined = ch === ZERO_WIDTH_JOINER;
      cluster += ch;
      continue;
    }
    if (cluster !== '') yield [cluster, cells];
    cluster = ch;
    cells = JOINS_PREVIOUS.test(ch) ? 0 : REGIONAL_INDICATOR.test(ch) ? 2 : eastAsianWidth(ch.codePointAt(0)!);
    joined = ch === ZERO_WIDTH_JOINER;
  }
  if (cluster !== '') yield [cluster, cells];
}

/** Printable ASCII only: one cell a character, the common case, measured without the tables. */
const PLAIN = /^[\x20-\x7e]*$/;

export function displayWidth(text: string): number {
  // Colour codes take no cells.
  const shown = text.replace(/\u001b\[[0-9;]*m/g, '');
  if (PLAIN.test(shown)) return shown.length;
  let width = 0;
  for (const [, cells] of clusters(shown)) width += cells;
  return width;
}

/**
 * Control characters shown as `�`: a value from the server (a person's name) must not be able
 * to move the cursor or change the terminal's colours.
 */
export function visible(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, '\ufffd');
}

export function pad(text: string, width: number): string {
  const missing = width - displayWidth(text);
  return missing > 0 ? text + ' '.repeat(missing) : text;
}

/** `text` cut to `width` cells, its last cell an `…` when anything was cut. */
export function truncate(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  if (width <= 0) return '';
  let out = '';
  let used = 0;
  for (const [cluster, cells] of clusters(text)) {
    if (used + cells > width - 1) break;
    out += cluster;
    used += cells;
  }
  return `${out}…`;
}

/** Columns are separated by two spaces, as `kubectl get` and `gh` print them. */
export const GAP = 2;
/** A free-text column is not narrowed below this (or its header). */
const MIN_FREE_TEXT = 10;

/**
 * The widths of the columns that fit in `total` cells, left to right: free-text columns (names,
 * lists) give way first, the widest first, down to a minimum; when that is not enough, columns
 * are left out from the right; a lone column too wide is cut. The other columns (ids, UUIDs,
 * dates) keep their width while they can.
 */
export function fitColumns(headers: number[], natural: number[], freeText: boolean[], total: number): number[] {
  for (let n = natural.length; n >= 1; n--) {
    const widths = natural.slice(0, n);
    const min = widths.map((w, i) => (freeText[i] ? Math.min(w, Math.max(headers[i], MIN_FREE_TEXT)) : w));
    const need = min.reduce((a, b) => a + b, 0) + GAP * (n - 1);
    if (need > total && n > 1) continue;
    let over = widths.reduce((a, b) => a + b, 0) + GAP * (n - 1) - total;
    while (over > 0) {
      let widest = -1;
      for (let i = 0; i < n; i++) if (widths[i] > min[i] && (widest < 0 || widths[i] > widths[widest])) widest = i;
      if (widest < 0) break;
      widths[widest]--;
      over--;
    }
    // One column, still too wide for the terminal: cut it.
    if (over > 0) widths[0] = Math.max(1, widths[0] - over);
    return widths;
  }
  return [];
}

/**
 * `text` with each line longer than `width` cells wrapped at spaces, for a terminal that would
 * otherwise break it mid-word at its edge. A continuation starts two cells in from the line's
 * value (after its label and the spaces that follow, `  input     …`, or after its indent), so it
 * reads apart from the next value; a line without indent (prose) continues two cells in. A word longer than
 * the room is not cut: a path or a UUID must copy whole.
 */
export function wrapHanging(text: string, width: number): string {
  return text
    .split('\n')
    .map((line) => (displayWidth(line) <= width ? line : wrapLine(line, width)))
    .join('\n');
}

/**
 * What hogctl writes itself (notes, warnings, errors, summaries), fitted to the terminal it goes
 * to: wrapped at spaces to its width (wrapHanging). Off a terminal, lines stay whole for grep.
 */
export function fitToTerminal(stream: { isTTY?: boolean; columns?: number }, text: string): string {
  return stream.isTTY && stream.columns ? wrapHanging(text, stream.columns) : text;
}

/**
 * A `key: value` line wider than `width`, wrapped at spaces with its continuations under the
 * value, which starts at `valueColumn` (a record's `distinct_ids: a, b, c`).
 */
export function wrapValue(line: string, valueColumn: number, width: number): string {
  if (displayWidth(line) <= width) return line;
  return wrapLine(line, width, { head: line.slice(0, valueColumn), indent: ' '.repeat(valueColumn) });
}

function wrapLine(line: string, width: number, at?: { head: string; indent: string }): string {
  const m = /^( *)(\S+ {2,})?/.exec(line)!;
  // Under the value of a labelled line; two cells in for an indented line and for prose, so that
  // a continuation reads apart from the next line.
  const head = at?.head ?? m[0];
  const indent = at?.indent ?? ' '.repeat(m[1].length + (m[2]?.length ?? 0) + (m[1].length || !m[2] ? 2 : 0));
  const limit = Math.max(width, indent.length + 1);
  const out: string[] = [];
  let current = head;
  let empty = true;
  for (const word of line.slice(head.length).split(' ').filter(Boolean)) {
    if (!empty && displayWidth(current) + 1 + displayWidth(word) > limit) {
      out.push(current);
      [current, empty] = [indent, true];
    }
    // A word longer than a whole line (a path, a UUID) stays whole on a line of its own and runs
    // over the edge: the terminal wraps it for the eye, and a copy of it is still the word.
    current += empty ? word : ` ${word}`;
    empty = false;
  }
  out.push(current);
  return out.map((l) => l.trimEnd()).join('\n');
}
