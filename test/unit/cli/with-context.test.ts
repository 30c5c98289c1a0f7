// The commander action wrapper: the run function gets a Context built from the root command's
// deps and every global flag, its own options and the positional arguments, and the Context is
// closed whether the run succeeds or throws.
import { PassThrough } from 'node:stream';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { withContext, type RootCommand } from '../../../src/cli/with-context.js';
import { Context, type Deps } from '../../../src/context.js';

function program(run: (ctx: Context, options: { limit?: string }, ...args: unknown[]) => Promise<void>) {
  const deps: Deps = { io: { stdout: new PassThrough(), stderr: new PassThrough(), stdin: new PassThrough() }, env: {}, now: () => 0 };
  const root = new Command('hogctl').option('--profile <name>').option('-q, --quiet').exitOverride() as RootCommand;
  root.deps = deps;
  const persons = new Command('persons');
  persons.addCommand(new Command('get').argument('<id>').argument('[more...]').option('--limit <n>').action(withContext(run)));
  root.addCommand(persons);
  return { root, deps };
}

describe('withContext', () => {
  it("runs the verb with a Context of the root's deps and the global flags, its options and its arguments", async () => {
    let seen: { ctx: Context; options: unknown; args: unknown[] } | undefined;
    const { root, deps } = program(async (ctx, options, ...args) => {
      seen = { ctx, options, args };
    });
    await root.parseAsync(['persons', 'get', '7', '8', '9', '--limit', '3', '--profile', 'prod', '-q'], { from: 'user' });
    expect(seen!.ctx.deps).toBe(deps);
    expect(seen!.ctx.globals).toMatchObject({ profile: 'prod', quiet: true, limit: '3' });
    expect(seen!.options).toEqual({ limit: '3' });
    expect(seen!.args).toEqual(['7', ['8', '9']]);
  });

  it('closes the Context when the verb ends, and when it throws', async () => {
    const closed: string[] = [];
    const ok = program(async (ctx) => ctx.onClose(() => void closed.push('ok')));
    await ok.root.parseAsync(['persons', 'get', '1'], { from: 'user' });
    const failing = program(async (ctx) => {
      ctx.onClose(() => void closed.push('failed'));
      throw new Error('boom');
    });
    await expect(failing.root.parseAsync(['persons', 'get', '1'], { from: 'user' })).rejects.toThrow('boom');
    expect(closed).toEqual(['ok', 'failed']);
  });
});
