// Runs the generated bash completion in bash: file names after the flags that take a file, and
// profile names after `profile use/show/remove`. Skipped where bash is missing.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { Command, Option } from 'commander';
import { buildProgram } from '../../../src/program.js';
import { bashScript } from '../../../src/completion/generate.js';
import { ProfileStore } from '../../../src/config/profiles.js';

const hasBash = spawnSync('bash', ['--version']).status === 0;
const dir = mkdtempSync(join(tmpdir(), 'hogctl-complete-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const sink = new PassThrough();
const script = bashScript(await buildProgram({ io: { stdout: sink, stderr: sink, stdin: process.stdin }, env: {}, now: Date.now }));
writeFileSync(join(dir, 'hogctl.bash'), script);
mkdirSync(join(dir, 'work'));
for (const f of ['erasure.txt', 'erasure.csv', 'other.json']) writeFileSync(join(dir, 'work', f), '');
const configDir = join(dir, 'config');
await new ProfileStore(configDir).save('prod', { base_url: 'https://eu.posthog.com', project_id: '1' });
await new ProfileStore(configDir).save('staging', { base_url: 'https://eu.posthog.com', project_id: '2' });

// Stands in for the hogctl that completion asks for project ids: it answers with the profile it
// was given, which is what these tests look at (test/e2e/habits-at-80.test.ts asks a server).
mkdirSync(join(dir, 'bin'));
writeFileSync(join(dir, 'bin', 'hogctl'), '#!/bin/sh\nwhile [ $# -gt 0 ]; do [ "$1" = --profile ] && echo "from-$2"; shift; done\n', {
  mode: 0o755,
});

/** The completions bash offers for the command line `line` (the cursor at its end). */
function complete(line: string, scriptFile = 'hogctl.bash'): string[] {
  const words = line.split(' ');
  const program = `source ${join(dir, scriptFile)}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _hogctl; printf '%s\\n' "\${COMPREPLY[@]}"`;
  const out = execFileSync('bash', ['-c', program], {
    cwd: join(dir, 'work'),
    encoding: 'utf8',
    env: { PATH: `${join(dir, 'bin')}:${process.env.PATH}`, HOME: dir, HOGCTL_CONFIG_DIR: configDir },
  });
  return out.split('\n').filter(Boolean).sort();
}

describe.skipIf(!hasBash)('bash completion', () => {
  it.each([
    ['hogctl persons bulk-delete --file erasure', ['erasure.csv', 'erasure.txt']],
    ['hogctl persons bulk-delete --file e --journal ', ['erasure.csv', 'erasure.txt', 'other.json']],
    ['hogctl persons bulk-delete --receipt o', ['other.json']],
    ['hogctl api POST /x --input o', ['other.json']],
  ])('%s completes file names', (line, expected) => {
    expect(complete(line)).toEqual(expected);
  });

  it.each(['use', 'show', 'remove'])('hogctl profile %s completes profile names', (verb) => {
    expect(complete(`hogctl profile ${verb} `)).toEqual(expect.arrayContaining(['prod', 'staging']));
    expect(complete(`hogctl profile ${verb} st`)).toEqual(['staging']);
  });

  it("offers a group's verbs alone, and flags once a dash is typed", () => {
    const verbs = complete('hogctl persons ');
    expect(verbs).toContain('bulk-delete');
    expect(verbs.filter((w) => w.startsWith('-'))).toEqual([]);
    expect(complete('hogctl ').filter((w) => w.startsWith('-'))).toEqual([]);
    expect(complete('hogctl persons --')).toEqual(expect.arrayContaining(['--profile', '--output', '--help']));
    expect(complete('hogctl persons list --w')).toEqual(['--where', '--wide']);
  });

  it('profile add does not offer existing names, and other verbs do not offer files', () => {
    expect(complete('hogctl profile add ')).not.toContain('prod');
    expect(complete('hogctl persons list e')).toEqual([]);
  });

  it("completes the global flags' values under every verb, and a verb's own", () => {
    expect(complete('hogctl persons list -o ')).toEqual(['csv', 'json', 'ndjson', 'table']);
    expect(complete('hogctl users 2fa status --output j')).toEqual(['json']);
    expect(complete('hogctl persons list --server-format ')).toEqual(['csv', 'json']);
    expect(complete('hogctl persons get --server-format ')).toEqual([]);
  });

  it("a command's own values of a global flag win over the global ones", () => {
    const tree = new Command('hogctl').addOption(new Option('-o, --output <format>').choices(['table', 'json']));
    tree.addCommand(new Command('narrow').addOption(new Option('-o, --output <format>').choices(['csv'])));
    tree.addCommand(new Command('wide'));
    writeFileSync(join(dir, 'override.bash'), bashScript(tree));
    expect(complete('hogctl narrow --output ', 'override.bash')).toEqual(['csv']);
    expect(complete('hogctl wide --output ', 'override.bash')).toEqual(['json', 'table']);
  });

  it('asks for the project ids of the profile given on the line', () => {
    expect(complete('hogctl --profile staging persons list --project ')).toEqual(['from-staging']);
    expect(complete('hogctl persons list --profile prod --project ')).toEqual(['from-prod']);
  });
});
