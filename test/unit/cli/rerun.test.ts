// The command line printed to continue a stopped command: every flag typed, global ones included,
// quoted so that a shell reads it back as it was, with only the continuation flag changed.
import { Command, Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { invocationOf, rerunCommand, shellQuote, type Invocation } from '../../../src/cli/rerun.js';
import { collect } from '../../../src/cli/flags.js';

/** A tree shaped like hogctl's: global flags on the root, a group, a verb with its own flags. */
function parse(argv: string[]): Invocation {
  let seen: Invocation | undefined;
  const program = new Command('hogctl')
    .exitOverride()
    .option('--profile <name>')
    .option('--base-url <url>')
    .option('--project <id>')
    .addOption(new Option('-o, --output <format>'))
    .option('--fields <list>')
    .option('--no-color');
  const group = new Command('persons');
  group.addCommand(
    new Command('query')
      .argument('<hogql>')
      .option('--all')
      .option('--page-size <n>')
      .option('--after <cursor>')
      .option('--max-wait <duration>', 'the longest wait', '60m')
      .option('--values <json>')
      .option('--value <name=value>', 'repeatable', collect)
      .action((...received: unknown[]) => {
        seen = invocationOf(received.at(-1) as Command, received.slice(0, -2));
      }),
  );
  program.addCommand(group);
  program.parse(argv, { from: 'user' });
  return seen!;
}

describe('rerunCommand', () => {
  it('repeats every flag typed, global ones first, quoting what a shell would change', () => {
    const invocation = parse([
      'persons',
      'query',
      "SELECT id FROM persons WHERE properties.plan = {plan} AND properties.name != 'x'",
      '--value',
      'plan=team',
      '--value',
      'n=3',
      '--values',
      '{"k": 1}',
      '--all',
      '-o',
      'csv',
      '--fields',
      'id',
      '--profile',
      'prod eu',
      '--base-url',
      'https://eu.posthog.com',
      '--project',
      '42',
      '--no-color',
      '--page-size',
      '2500',
      '--max-wait',
      '10s',
      '--after',
      '2025-01-01T00:00:00.000000Z,01900000-aaaa-7bbb-8ccc-000000000001',
    ]);
    expect(rerunCommand(invocation, { '--after': '2024-12-31T23:59:59.000001Z,01900000-aaaa-7bbb-8ccc-000000000002' })).toBe(
      "hogctl --profile 'prod eu' --base-url https://eu.posthog.com --project 42 --output csv --fields id --no-color " +
        "persons query 'SELECT id FROM persons WHERE properties.plan = {plan} AND properties.name != '\\''x'\\''' " +
        '--all --page-size 2500 --max-wait 10s --values \'{"k": 1}\' --value plan=team --value n=3 ' +
        '--after 2024-12-31T23:59:59.000001Z,01900000-aaaa-7bbb-8ccc-000000000002',
    );
  });

  it('leaves out defaults, and a flag changed to nothing', () => {
    const invocation = parse(['persons', 'query', 'SELECT id FROM persons', '--all', '--after', 'x']);
    expect(rerunCommand(invocation, { '--after': null })).toBe("hogctl persons query 'SELECT id FROM persons' --all");
    expect(rerunCommand(invocation)).toBe("hogctl persons query 'SELECT id FROM persons' --all --after x");
  });
});

describe('shellQuote', () => {
  it('leaves safe words alone and single-quotes the rest', () => {
    expect(shellQuote('2025-01-15T08:00:00.123456Z,01900000-aaaa-7bbb-8ccc-000000000001')).toBe(
      '2025-01-15T08:00:00.123456Z,01900000-aaaa-7bbb-8ccc-000000000001',
    );
    expect(shellQuote('a b')).toBe("'a b'");
    expect(shellQuote("it's $HOME")).toBe("'it'\\''s $HOME'");
    expect(shellQuote('')).toBe("''");
  });
});
