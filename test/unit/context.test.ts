// The Context owns the defaults and the precedence of what every command reads: the clock and the
// one wait, the output format and the request timeout. No other module fills in a default of its
// own (ARCHITECTURE.md §1), so a fake clock given to main() reaches every wait.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Context, type Deps, type GlobalOptions } from '../../src/context.js';
import { sleep } from '../../src/sleep.js';
import { UsageError } from '../../src/errors.js';

function contextWith(deps: Partial<Deps> = {}, globals: GlobalOptions = {}): Context {
  return new Context({ io: { stdout: new PassThrough(), stderr: new PassThrough(), stdin: new PassThrough() }, env: {}, ...deps }, globals);
}

const root = resolve(import.meta.dirname, '../..');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

describe('the Context', () => {
  it('gives the real clock and the one wait when main() was given none', () => {
    const ctx = contextWith();
    expect(ctx.clock.sleep).toBe(sleep);
    const before = Date.now();
    expect(ctx.clock.now()).toBeGreaterThanOrEqual(before);
  });

  it('gives the clock and the wait main() was given', async () => {
    const slept: number[] = [];
    const ctx = contextWith({ now: () => 42, sleep: async (ms) => void slept.push(ms) });
    expect(ctx.clock.now()).toBe(42);
    await ctx.clock.sleep(1234);
    expect(slept).toEqual([1234]);
  });

  it('takes the timeout from --timeout, else HOGCTL_TIMEOUT, else the command’s default', () => {
    expect(contextWith().timeoutMs()).toBe(30_000);
    expect(contextWith().timeoutMs(120_000)).toBe(120_000);
    expect(contextWith({ env: { HOGCTL_TIMEOUT: '5' } }).timeoutMs(120_000)).toBe(5_000);
    expect(contextWith({ env: { HOGCTL_TIMEOUT: '5' } }, { timeout: '2' }).timeoutMs(120_000)).toBe(2_000);
  });

  it('refuses a timeout longer than a node timer holds (it would fire at once and fail every request): exit 2, naming the maximum', () => {
    expect(contextWith({}, { timeout: '2147483' }).timeoutMs()).toBe(2_147_483_000);
    const refused = (deps: Partial<Deps>, globals: GlobalOptions) => {
      try {
        contextWith(deps, globals).timeoutMs();
      } catch (error) {
        return error as UsageError;
      }
      throw new Error('accepted');
    };
    const flag = refused({}, { timeout: '3000000' });
    expect(flag).toBeInstanceOf(UsageError);
    expect(flag.exitCode).toBe(2);
    expect(flag.message).toBe('invalid timeout "3000000": at most 2147483 seconds (about 24 days), the longest time node can time');
    expect(refused({}, { timeout: '2147484' }).message).toMatch(/at most 2147483 seconds/);
    const variable = refused({ env: { HOGCTL_TIMEOUT: '3000000' } }, {});
    expect(variable.message).toMatch(/^invalid timeout "3000000" \(from HOGCTL_TIMEOUT\): at most 2147483 seconds/);
  });

  it('takes the output format from -o, else HOGCTL_OUTPUT, else the command’s default; JSON under --jq', async () => {
    expect((await contextWith().output()).format).toBe('table');
    const api = await contextWith().output({ defaultFormat: 'json' });
    expect([api.format, api.chosen]).toEqual(['json', false]);
    expect((await contextWith({ env: { HOGCTL_OUTPUT: 'csv' } }).output({ defaultFormat: 'json' })).format).toBe('csv');
    expect((await contextWith({ env: { HOGCTL_OUTPUT: 'csv' } }, { output: 'ndjson' }).output({ defaultFormat: 'json' })).format).toBe(
      'ndjson',
    );
    expect((await contextWith({ env: { HOGCTL_OUTPUT: 'csv' } }, { jq: '.' }).output()).format).toBe('json');
    expect(contextWith({ env: { HOGCTL_OUTPUT: 'csv' } }).askedFormat()).toBe('csv');
    expect(contextWith({ env: { HOGCTL_OUTPUT: 'csv' } }, { output: 'json' }).askedFormat()).toBe('json');
    expect(contextWith().askedFormat()).toBeUndefined();
    // A resumed bulk job's remembered format gives way to -o and HOGCTL_OUTPUT, not to a default.
    expect((await contextWith().output({ remembered: 'csv', defaultFormat: 'json' })).format).toBe('csv');
    expect((await contextWith({ env: { HOGCTL_OUTPUT: 'ndjson' } }).output({ remembered: 'csv' })).format).toBe('ndjson');
  });

  it('is the only module that reads the given clock, wait, timeout or output format', () => {
    const readers = sources(join(root, 'src'))
      .filter((file) => !file.endsWith('src/context.ts'))
      .flatMap((file) =>
        readFileSync(file, 'utf8')
          .split('\n')
          .map((line, i) => ({ line, at: `${relative(root, file)}:${i + 1}` }))
          .filter(
            ({ line }) =>
              /deps\.(now|sleep)\b|env\.HOGCTL_(OUTPUT|TIMEOUT)\b|globals\.timeout\b/.test(line) && !/^\s*(\/\/|\*|\/\*\*)/.test(line),
          )
          .map(({ at }) => at),
      );
    expect(readers).toEqual([]);
  });
});
