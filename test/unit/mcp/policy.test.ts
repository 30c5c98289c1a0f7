import { describe, expect, it } from 'vitest';
import { allowedProject, parsePolicy } from '../../../src/mcp/policy.js';

describe('what hogctl mcp offers', () => {
  it('reads its flags, and refuses an unknown kind', () => {
    expect(parsePolicy({})).toMatchObject({ readOnly: false, projects: undefined });
    expect([...parsePolicy({ allow: 'persons, erasure' }).families]).toEqual(['persons', 'erasure']);
    expect(() => parsePolicy({ allow: 'persons,delete' })).toThrow(/unknown kind delete/);
    expect(parsePolicy({ readOnly: true, projects: '1,2' })).toMatchObject({ readOnly: true, projects: ['1', '2'] });
  });

  it('keeps tools within --projects', () => {
    const policy = parsePolicy({ projects: '1' });
    expect(allowedProject(policy, undefined, '1')).toBe('1');
    expect(() => allowedProject(policy, '2', '1')).toThrow(/not one this server may touch/);
    expect(allowedProject(parsePolicy({}), '2', '1')).toBe('2');
  });
});
