// `npm run docs`: rewrites the generated files (README command reference, completion scripts)
// from the command tree. Tests fail when the checked-in files differ from this output.
import { readFileSync, writeFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { buildProgram } from '../src/program.js';
import { bashScript, fishScript, zshScript } from '../src/completion/generate.js';
import { commandReference, withSection } from '../src/docs/reference.js';
import { PROSE_TOPICS, TOPICS, topicMarkdown } from '../src/docs/topics.js';

export async function generatedFiles(): Promise<Record<string, string>> {
  const sink = new PassThrough();
  const program = await buildProgram({ io: { stdout: sink, stderr: sink, stdin: process.stdin }, env: {}, now: Date.now });
  return {
    'completions/hogctl.bash': bashScript(program),
    'completions/_hogctl': zshScript(program),
    'completions/hogctl.fish': fishScript(program),
    'README.md': [
      ['command-reference', commandReference(program)],
      ['exit-codes', topicMarkdown('exit-codes')],
      ['environment', topicMarkdown('environment')],
      [
        'help-topics',
        PROSE_TOPICS.map((name) => `### ${TOPICS[name].title} (\`hogctl help ${name}\`)\n\n${topicMarkdown(name)}\n`).join('\n'),
      ],
    ].reduce((readme, [name, content]) => withSection(readme, name, content), readFileSync('README.md', 'utf8')),
  };
}

if (process.argv[1]?.endsWith('write-generated.mjs')) {
  for (const [path, text] of Object.entries(await generatedFiles())) writeFileSync(path, text);
  process.stdout.write('wrote README.md command reference and completions/\n');
}
