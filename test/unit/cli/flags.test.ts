import { describe, expect, it } from 'vitest';
import { collect, parseCount, parseDuration } from '../../../src/cli/flags.js';
import { UsageError } from '../../../src/errors.js';

describe('parseCount', () => {
  it('takes a whole number of at least the minimum', () => {
    expect(parseCount('20', '--limit')).toBe(20);
    expect(parseCount(' 7 ', '--limit')).toBe(7);
    expect(parseCount('0', '--port', 0)).toBe(0);
  });

  it('refuses anything else, naming the flag and the minimum', () => {
    for (const raw of ['0', '-1', '1.5', '1e3', '', 'ten', '9007199254740993']) {
      expect(() => parseCount(raw, '--limit'), raw).toThrow(
        new UsageError(`invalid --limit "${raw}": expected a whole number of at least 1`),
      );
    }
  });
});

describe('parseDuration', () => {
  it('reads seconds, minutes and hours, alone or together, in milliseconds', () => {
    expect(parseDuration('90s', '--max-wait')).toBe(90_000);
    expect(parseDuration('15m', '--max-wait')).toBe(900_000);
    expect(parseDuration('1h30m', '--max-wait')).toBe(5_400_000);
    expect(parseDuration('1h 30min 5sec', '--max-wait')).toBe(5_405_000);
    expect(parseDuration('1.5s', '--max-wait')).toBe(1500);
    expect(parseDuration('0', '--max-wait')).toBe(0);
  });

  it('refuses a bare number other than 0, an unknown unit, and nothing at all', () => {
    for (const raw of ['90', '2d', '1h-', '', 'soon']) {
      expect(() => parseDuration(raw, '--max-wait'), raw).toThrow(
        new UsageError(`invalid --max-wait "${raw}": expected a duration such as 90s, 15m, 1h or 1h30m`),
      );
    }
  });
});

describe('collect', () => {
  it('keeps every value of a repeated flag, in order', () => {
    expect(collect('b', collect('a'))).toEqual(['a', 'b']);
  });
});
