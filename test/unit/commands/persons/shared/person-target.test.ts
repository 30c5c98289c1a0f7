import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../../../src/errors.js';
import { personTarget } from '../../../../../src/commands/persons/shared/person-target.js';

describe('personTarget', () => {
  it('returns the id it decided on, checked and trimmed, and leaves its arguments alone', () => {
    const positionals = [' 42 ', 'plan'];
    expect(personTarget('set-prop', {}, positionals, ['key'])).toEqual({ id: '42', distinctId: undefined, rest: ['plan'] });
    expect(positionals).toEqual([' 42 ', 'plan']);
    expect(personTarget('get', {}, ['01900000-AAAA-7BBB-8CCC-000000000001']).id).toBe('01900000-AAAA-7BBB-8CCC-000000000001');
  });

  it('refuses an id that is neither an integer nor a UUID before anything is sent', () => {
    expect(() => personTarget('delete', {}, ['user@example.com'])).toThrow(UsageError);
    expect(() => personTarget('delete', {}, ['user@example.com'])).toThrow(/invalid person id "user@example.com"/);
  });

  it('takes no id with --distinct-id: the positionals are the rest', () => {
    expect(personTarget('set-prop', { distinctId: 'user-1' }, ['plan'], ['key'])).toEqual({
      id: undefined,
      distinctId: 'user-1',
      rest: ['plan'],
    });
  });

  it('takes no id with --email either, trims the address, and refuses it beside --distinct-id or empty', () => {
    expect(personTarget('unset-prop', { email: ' Lee@Example.net ' }, ['plan'], ['key'])).toEqual({
      id: undefined,
      distinctId: undefined,
      email: 'Lee@Example.net',
      rest: ['plan'],
    });
    expect(() => personTarget('delete', { email: 'a@b.c', distinctId: 'user-1' }, [])).toThrow(/give one of --distinct-id and --email/);
    expect(() => personTarget('delete', { email: '  ' }, [])).toThrow(/--email is empty/);
    expect(() => personTarget('delete', { email: 'a@b.c' }, ['42'])).toThrow(/with --email, give no person id/);
    expect(() => personTarget('delete', {}, [])).toThrow(/give a person id, --distinct-id or --email/);
  });
});
