// `npm run docs`: rewrites the generated files (README command reference, completion scripts)
// from the command tree. Tests fail when the checked-in files differ from this output.
import { readFileSync, writeFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { buildProgram } from '../program.js';
import { bashScript, fishScript, zshScript } from '../completion/generate.js';
import { commandReference, withReference } from './reference.js';

export function generatedFiles(): Record<string, string> {
  const sink = new PassThrough();
  const program = buildProgram({ io: { stdout: sink, stderr: sink, stdin: process.stdin }, env: {}, now: Date.now });
  return {
    'completions/hogctl.bash': bashScript(program),
    'completions/_hogctl': zshScript(program),
    'completions/hogctl.fish': fishScript(program),
    'README.md': withReference(readFileSync('README.md', 'utf8'), commandReference(program)),
  };
}

if (process.argv[1]?.endsWith('write-generated.mjs')) {
  for (const [path, text] of Object.entries(generatedFiles())) writeFileSync(path, text);
  process.stdout.write('wrote README.md command reference and completions/\n');
}
