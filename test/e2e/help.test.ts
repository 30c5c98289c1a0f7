// Pins the --help of every command, and checks that each one shows an example.
//
// The commands are found by walking the tree that buildProgram() builds, so a command added
// later is covered without touching this file: its snapshot is written on the first local run,
// and CI (which never writes snapshots) fails until it is committed. After changing or adding
// a command, regenerate with (the flag after the path: vitest 4 reads `-u <path>` as an update
// mode and would run every test)
//
//   npx vitest run test/e2e/help.test.ts -u
//
// and commit test/e2e/__snapshots__/help/. A removed command leaves a file to delete. The help is rendered in-process at a fixed width of
// 80 columns without colour, exactly as `hogctl <command> --help | cat` prints it.
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Readable, Writable } from 'node:stream';
import { CommanderError, type Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/program.js';
import type { Deps } from '../../src/context.js';
import { runCli } from './harness.js';

const WIDTH = 80;
const SNAPSHOTS = fileURLToPath(new URL('./__snapshots__/help/', import.meta.url));

function deps(out: { text: string }): Deps {
  const sink = new Writable({
    write(chunk, _encoding, done) {
      out.text += String(chunk);
      done();
    },
  });
  return {
    io: {
      stdout: sink as unknown as NodeJS.WriteStream,
      stderr: sink as unknown as NodeJS.WriteStream,
      stdin: Readable.from([]) as unknown as NodeJS.ReadStream,
    },
    env: {},
    now: () => 0,
  };
}

/** Every command of the tree as its path of names, the root first. */
async function commandPaths(): Promise<string[][]> {
  const paths: string[][] = [[]];
  const walk = (command: Command, path: string[]) => {
    for (const sub of command.commands) {
      paths.push([...path, sub.name()]);
      walk(sub, [...path, sub.name()]);
    }
  };
  walk(await buildProgram(deps({ text: '' })), []);
  return paths;
}

async function helpOf(path: string[]): Promise<string> {
  const out = { text: '' };
  const program = await buildProgram(deps(out), [...path, '--help']);
  const fix = (command: Command) => {
    command.configureOutput({
      getOutHelpWidth: () => WIDTH,
      getErrHelpWidth: () => WIDTH,
      getOutHasColors: () => false,
      getErrHasColors: () => false,
    });
    command.commands.forEach(fix);
  };
  fix(program);
  try {
    await program.parseAsync([...path, '--help'], { from: 'user' });
  } catch (error) {
    if (!(error instanceof CommanderError) || error.code !== 'commander.helpDisplayed') throw error;
  }
  return out.text;
}

const fileName = (path: string[]) => `${['hogctl', ...path].join('.')}.txt`;
const paths = await commandPaths();

describe('--help of every command', () => {
  it('finds the whole tree', () => {
    expect(paths.length).toBeGreaterThan(20);
    expect(paths).toContainEqual(['persons', 'query']);
  });

  it.each(paths.map((path) => [['hogctl', ...path].join(' '), path] as const))('%s', async (_name, path) => {
    const help = await helpOf(path);
    expect(help).toMatch(/^Usage: hogctl/);
    const examples = help.slice(help.indexOf('\nExamples:\n'));
    expect(help, 'the help has an Examples: block').toContain('\nExamples:\n');
    expect(examples, 'with at least one `$ ... hogctl ...` line').toMatch(/^ {2}\$ .*\bhogctl\b/m);
    await expect(help).toMatchFileSnapshot(`${SNAPSHOTS}${fileName(path)}`);
  });

  it('keeps no snapshot of a command that no longer exists', () => {
    const expected = new Set(paths.map(fileName));
    let files: string[] = [];
    try {
      files = readdirSync(SNAPSHOTS);
    } catch {
      // no snapshots written yet
    }
    const stale = files.filter((f) => !expected.has(f));
    expect(stale, `delete these from ${SNAPSHOTS}`).toEqual([]);
  });
});

describe('help layout', () => {
  it.each(paths.map((path) => [['hogctl', ...path].join(' '), path] as const))(
    '%s: description paragraph, commands first, global flags, then only the details and examples',
    async (_name, path) => {
      const help = await helpOf(path);
      const lines = help.split('\n');
      expect(lines[1], 'a blank line after the usage').toBe('');
      expect(lines[2], 'then the description paragraph').toMatch(/^[A-Z]/);
      // hogctl --help describes the global flags; a subcommand names them, a few to a line.
      const title = path.length ? 'Inherited flags (see hogctl --help):' : 'Global flags:';
      const globals = help.indexOf(`\n${title}\n`);
      expect(globals, `a "${title}" list`).toBeGreaterThan(0);
      expect(help).not.toContain('Global Options:');
      for (const heading of ['\nArguments:\n', '\nCommands:\n', '\nOptions:\n']) {
        if (help.includes(heading)) expect(help.indexOf(heading), `${heading.trim()} before the global flags`).toBeLessThan(globals);
      }
      const examplesAt = help.indexOf('\nExamples:\n');
      // The rest of a long description comes after the flags, so that the options stay on the first screen.
      const after = help.slice(globals, examplesAt).match(/^\S.*:$/gm);
      expect(after, 'nothing but the details and examples after the global flags').toEqual(
        help.includes('\nDetails:\n') ? [title, 'Details:'] : [title],
      );
    },
  );

  it.each([
    ['sandbox', ['--quiet']],
    ['demo', ['--no-color']],
    ['completion', []],
    ['help', []],
  ] as const)('the root-only command %s lists only the global flags it uses', async (name, used) => {
    const help = await helpOf([name]);
    const globals = help.slice(help.indexOf('\nInherited flags'), help.indexOf('\nExamples:\n'));
    for (const flag of [
      '--profile',
      '--base-url',
      '--project',
      '--output',
      '--fields',
      '--no-input',
      '--debug',
      '--timeout',
      '--quiet',
      '--no-color',
    ]) {
      if (used.includes(flag as never)) expect(globals).toContain(flag);
      else expect(globals, `${name} --help lists ${flag}`).not.toContain(flag);
    }
  });
});

describe('a bare group or a bare hogctl', () => {
  it.each([[[]], [['persons']], [['users', '2fa']], [['profile']]])('hogctl %j prints its help on stdout and exits 0', async (args) => {
    const r = await runCli(args);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: hogctl/);
    expect(r.stdout).toContain('\nCommands:\n');
  });

  it('an unknown command in a group is still a usage error', async () => {
    const r = await runCli(['persons', 'bogus']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown command 'bogus'");
  });
});
