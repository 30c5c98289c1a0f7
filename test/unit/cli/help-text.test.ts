import { describe, expect, it } from 'vitest';
import { Command } from 'commander';
import { examples, group } from '../../../src/cli/help-text.js';

describe('examples', () => {
  it('is a block of shell lines under a heading, set off by blank lines', () => {
    expect(examples('hogctl persons list', 'hogctl persons get 1')).toBe(
      '\nExamples:\n  $ hogctl persons list\n  $ hogctl persons get 1\n',
    );
  });
});

describe('group', () => {
  it('holds its verbs, takes its description from the summary, and ends its help with the examples', () => {
    const command = group('things', 'manage things', [new Command('list'), new Command('get')], ['hogctl things list']);
    expect(command.name()).toBe('things');
    expect(command.summary()).toBe('manage things');
    expect(command.description()).toBe('Manage things.');
    expect(command.commands.map((c) => c.name())).toEqual(['list', 'get']);
    let help = '';
    command.configureOutput({ writeOut: (s) => (help += s) });
    command.outputHelp();
    expect(help.trimEnd().endsWith('\n\nExamples:\n  $ hogctl things list')).toBe(true);
  });
});
