import { describe, expect, it } from 'vitest';
import { displayWidth, fitColumns, pad, truncate, visible, wrapHanging, wrapValue } from '../../../src/io/columns.js';

describe('terminal text measures', () => {
  it('counts wide characters as two cells and combining marks as none', () => {
    expect(displayWidth('abc')).toBe(3);
    expect(displayWidth('日本語')).toBe(6);
    expect(displayWidth('e\u0301')).toBe(1);
    expect(displayWidth('🎉')).toBe(2);
  });

  it('counts an emoji as two cells, however many code points make it', () => {
    expect(displayWidth('👍🏽')).toBe(2); // a skin tone
    expect(displayWidth('👨‍👩‍👧')).toBe(2); // three joined by zero-width joiners
    expect(displayWidth('🇫🇷🇩🇪')).toBe(4); // two flags, each two regional indicators
    expect(displayWidth('☀️')).toBe(2); // a text-style symbol made an emoji by U+FE0F
    expect(displayWidth('☀')).toBe(1); // and without it
    expect(displayWidth('1️⃣')).toBe(2); // a keycap
    expect(displayWidth('🏳️‍🌈 ok')).toBe(5);
    expect(displayWidth('\u001b[1m👍🏽\u001b[0m')).toBe(2);
  });

  it('cuts between emoji, never inside one', () => {
    expect(truncate('👨‍👩‍👧👨‍👩‍👧👨‍👩‍👧', 4)).toBe('👨‍👩‍👧…');
    expect(truncate('ab👍🏽cd', 5)).toBe('ab👍🏽…');
    expect(pad('👍🏽', 4)).toBe('👍🏽  ');
  });

  it('truncates to a width in cells, ending in …', () => {
    expect(truncate('hello world', 20)).toBe('hello world');
    expect(truncate('hello world', 6)).toBe('hello…');
    expect(truncate('日本語テキスト', 7)).toBe('日本語…');
    expect(displayWidth(truncate('日本語テキスト', 7))).toBeLessThanOrEqual(7);
    expect(pad('日本', 6)).toBe('日本  ');
  });

  it('shows control characters as �', () => {
    expect(visible('a\u001b[31mb\u0007')).toBe('a\ufffd[31mb\ufffd');
  });
});

describe('fitColumns', () => {
  it('keeps every column when they fit', () => {
    expect(fitColumns([2, 4], [36, 20], [false, true], 80)).toEqual([36, 20]);
  });

  it('narrows the widest free-text column first, then the next', () => {
    // id 36, name 40 (free), list 30 (free), date 27: 133 + 6 gaps; 120 means 19 cells to give:
    // the name gives 10 alone, then the two take turns.
    expect(fitColumns([2, 4, 4, 10], [36, 40, 30, 27], [false, true, true, false], 120)).toEqual([36, 25, 26, 27]);
    expect(fitColumns([2, 4, 4, 10], [36, 40, 30, 27], [false, true, true, false], 100)).toEqual([36, 15, 16, 27]);
  });

  it('leaves columns out from the right when narrowing is not enough, and cuts a lone column', () => {
    expect(fitColumns([2, 4, 4, 10], [36, 40, 30, 27], [false, true, true, false], 60)).toEqual([36, 10, 10]);
    expect(fitColumns([2, 4], [36, 40], [false, true], 40)).toEqual([36]);
    expect(fitColumns([2], [36], [false], 20)).toEqual([20]);
  });
});

describe('wrapValue', () => {
  it("wraps a record's value at spaces, under the value, and leaves a line that fits", () => {
    const line = 'distinct_ids: user-942, 01993780-a4f1-766a-9ca0-fdef14c5ba43, 01993780-a4f1-766a-9ca0-fdef14c5ba44';
    expect(wrapValue(line, 14, 80).split('\n')).toEqual([
      'distinct_ids: user-942, 01993780-a4f1-766a-9ca0-fdef14c5ba43,',
      '              01993780-a4f1-766a-9ca0-fdef14c5ba44',
    ]);
    expect(wrapValue('id:  1', 5, 80)).toBe('id:  1');
  });
});

describe('wrapHanging', () => {
  it('wraps a labelled line at spaces, its continuations two cells in from the value', () => {
    const line = '  input     emails.txt (lines): 7 values, 7 unique e-mail addresses, 0 duplicates dropped, 0 invalid';
    expect(wrapHanging(line, 60).split('\n')).toEqual([
      '  input     emails.txt (lines): 7 values, 7 unique e-mail',
      '              addresses, 0 duplicates dropped, 0 invalid',
    ]);
  });

  it('keeps lines that fit, and indents the continuations of a line without a label, and of prose, by two', () => {
    expect(wrapHanging('Plan: delete\n  flags     a · b', 40)).toBe('Plan: delete\n  flags     a · b');
    expect(wrapHanging('  ✗ project 2 cannot be searched (403): nothing in it', 30).split('\n')).toEqual([
      '  ✗ project 2 cannot be',
      '    searched (403): nothing in',
      '    it',
    ]);
    expect(wrapHanging('This deletes 7 persons in projects 1 and 2', 20).split('\n')).toEqual([
      'This deletes 7',
      '  persons in',
      '  projects 1 and 2',
    ]);
  });

  it('keeps a word longer than the room (a path, a UUID) whole on its own line, so that it copies whole', () => {
    const path = '/tmp/a-very-long-directory-name/and-a-longer-file-name.ndjson';
    expect(wrapHanging(`  journal   ${path}`, 40).split('\n')).toEqual([`  journal   ${path}`]);
    expect(wrapHanging(`  receipt   kept at ${path} for you`, 40).split('\n')).toEqual([
      '  receipt   kept at',
      `              ${path}`,
      '              for you',
    ]);
  });
});
