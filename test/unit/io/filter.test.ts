import { describe, expect, it } from 'vitest';
import { applyFilter, checkFilter } from '../../../src/io/filter.js';
import { UsageError } from '../../../src/errors.js';

const jq = (expression: string) => ({ kind: 'jq' as const, expression });
const template = (expression: string) => ({ kind: 'template' as const, expression });
const records = [
  { uuid: 'a', properties: { email: 'a@example.com', plan: 'team' } },
  { uuid: 'b', properties: { plan: 'free' } },
];

describe('--jq', () => {
  it('prints strings raw, one output a line, and other values as compact JSON in a pipe', async () => {
    expect(await applyFilter(jq('.[].uuid'), records, false)).toBe('a\nb\n');
    expect(await applyFilter(jq('.[] | {uuid, n: 1}'), records, false)).toBe('{"uuid":"a","n":1}\n{"uuid":"b","n":1}\n');
    expect(await applyFilter(jq('.[1].properties.email'), records, false)).toBe('null\n');
  });

  it('indents JSON on a terminal', async () => {
    expect(await applyFilter(jq('.[0].properties'), records, true)).toBe('{\n  "email": "a@example.com",\n  "plan": "team"\n}\n');
  });

  it('prints nothing for no output', async () => {
    expect(await applyFilter(jq('.[] | select(.uuid == "z")'), records, false)).toBe('');
  });

  it('accepts every valid expression, comments and definitions included', async () => {
    for (const e of ['.', '.[] | .uuid # the id', 'def f: .uuid; .[] | f', '[.[] | select(.properties.plan == "team")] | length'])
      await expect(checkFilter(jq(e))).resolves.toBeUndefined();
  });

  it('refuses an expression jq cannot compile, with jq’s message about the expression as typed', async () => {
    const err = await checkFilter(jq('.[] |')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toMatch(/^--jq "\.\[\] \|" is not a valid jq expression: jq: error: syntax error, .* line 1, column/);
    await expect(checkFilter(jq('.[] | nosuchfunction'))).rejects.toThrow(/nosuchfunction\/0 is not defined/);
  });

  it('a failure on the data is a usage error with jq’s message', async () => {
    await expect(applyFilter(jq('.uuid'), records, false)).rejects.toThrow(
      /^--jq "\.uuid" failed on the data: Cannot index array with string \("uuid"\)$/,
    );
  });
});

describe('--template', () => {
  it('renders Handlebars over the value without escaping HTML, with the json and join helpers', async () => {
    expect(
      await applyFilter(template('{{#each this}}<{{uuid}}>{{#if properties.email}} {{properties.email}}{{/if}};{{/each}}'), records, false),
    ).toBe('<a> a@example.com;<b>;');
    expect(await applyFilter(template('{{json this.[0].properties}} {{join list "|"}}'), { ...records, list: [1, 2] }, false)).toBe(
      '{"email":"a@example.com","plan":"team"} 1|2',
    );
  });

  it('refuses a template that does not parse', async () => {
    await expect(checkFilter(template('{{#each this}}'))).rejects.toThrow(/^--template "\{\{#each this\}\}": Parse error/);
  });

  // Each would fail only when rendered, after a destructive command had done its work.
  it('refuses, before any data, a helper that does not exist, a partial, and #if or #with without one value', async () => {
    await expect(checkFilter(template('{{nosuchhelper status}}'))).rejects.toThrow(
      /there is no helper "nosuchhelper" \(the helpers are .*json.*\)/,
    );
    await expect(checkFilter(template('{{#each this}}{{upper (nope uuid)}}{{/each}}'))).rejects.toThrow(/there is no helper "upper"/);
    await expect(checkFilter(template('{{> person}}'))).rejects.toThrow(/partials and decorators are not available/);
    await expect(checkFilter(template('{{#if}}x{{/if}}'))).rejects.toThrow(/#if takes exactly one value/);
    await expect(checkFilter(template('{{#with a b}}x{{/with}}'))).rejects.toThrow(/#with takes exactly one value/);
  });

  it('still takes values, sections over a value, and the helpers with their arguments', async () => {
    for (const text of [
      '{{status}}',
      '{{#projects}}{{id}}{{/projects}}',
      '{{#each this}}{{lookup . "uuid"}}{{/each}}',
      '{{join (lookup this "list") ","}}',
    ])
      await checkFilter(template(text));
  });
});
