import { describe, expect, it } from 'vitest';
import { allowedProject, parsePolicy, resolveProjectNames } from '../../../src/mcp/policy.js';

describe('what hogctl mcp offers', () => {
  it('looks up the projects named by name among those the key sees, once', async () => {
    let lookups = 0;
    const list = async () => (
      lookups++,
      [
        { id: 1, name: 'Default project' },
        { id: 2, name: 'Staging' },
      ]
    );
    expect((await resolveProjectNames(parsePolicy({ projects: '1,staging' }), list)).projects).toEqual(['1', '2']);
    expect((await resolveProjectNames(parsePolicy({ projects: '1,2' }), list)).projects).toEqual(['1', '2']);
    expect(lookups).toBe(1);
    await expect(resolveProjectNames(parsePolicy({ projects: 'Prod' }), list)).rejects.toThrow(/no project named "Prod"/);
  });

  it('reads its flags, and refuses an unknown kind', () => {
    expect(parsePolicy({})).toMatchObject({ readOnly: false, projects: undefined });
    expect([...parsePolicy({ allow: 'persons, erasure' }).families]).toEqual(['persons', 'erasure']);
    expect(() => parsePolicy({ allow: 'persons,delete' })).toThrow(/unknown kind delete/);
    expect(parsePolicy({ readOnly: true, projects: '1,2' })).toMatchObject({ readOnly: true, projects: ['1', '2'] });
    expect(parsePolicy({ projects: '1, Staging' }).projects).toEqual(['1', 'Staging']);
    expect(() => parsePolicy({ projects: '1,,2' })).toThrow(/expected project ids or names/);
  });

  it('keeps tools within --projects', () => {
    const policy = parsePolicy({ projects: '1' });
    expect(allowedProject(policy, undefined, '1')).toBe('1');
    expect(() => allowedProject(policy, '2', '1')).toThrow(/not one this server may touch/);
    expect(allowedProject(parsePolicy({}), '2', '1')).toBe('2');
  });
});
