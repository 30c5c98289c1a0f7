// Each group (and the root) names its verbs before loading them; a name that differs from the command it loads
// would make `hogctl <group> <verb>` load every verb, or the wrong one.
import { describe, expect, it } from 'vitest';
import { loadVerbs, type LazyVerb } from '../../../src/cli/lazy-verb.js';
import { personsVerbs } from '../../../src/commands/persons/index.js';
import { usersVerbs } from '../../../src/commands/users/index.js';
import { profileVerbs } from '../../../src/commands/profile/index.js';
import { authVerbs } from '../../../src/commands/auth/index.js';
import { projectsVerbs } from '../../../src/commands/projects/index.js';
import { emailVerbs } from '../../../src/commands/email/index.js';
import { ROOT_COMMANDS } from '../../../src/program.js';

const groups: Record<string, LazyVerb[]> = {
  hogctl: ROOT_COMMANDS,
  persons: personsVerbs,
  users: usersVerbs,
  profile: profileVerbs,
  auth: authVerbs,
  projects: projectsVerbs,
  email: emailVerbs,
};

describe('lazy verbs', () => {
  for (const [group, verbs] of Object.entries(groups)) {
    it(`${group}: every verb loads the command it is named after`, async () => {
      for (const verb of verbs) expect((await verb.load()).name()).toBe(verb.name);
    });
  }

  it('loads only the named verb, and all of them for anything else', async () => {
    expect((await loadVerbs(personsVerbs, 'get')).map((c) => c.name())).toEqual(['get']);
    expect(await loadVerbs(personsVerbs, 'gte')).toHaveLength(personsVerbs.length);
    expect(await loadVerbs(personsVerbs, undefined)).toHaveLength(personsVerbs.length);
  });
});
