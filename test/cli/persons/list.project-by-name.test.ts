// In this process (test/cli/harness.ts): `--project Staging` names a project as PostHog shows it; the id is looked up among
// the projects the key can see, ignoring case, and a name that fits none is refused with the
// candidates, never guessed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type World } from '../harness.js';

let world: World;
beforeAll(async () => {
  world = await startWorld({ persons: 5, projectPersons: { 2: 7 } });
});
afterAll(() => world.close());

describe('--project <name>', () => {
  it('finds the project by its name, in any case, and runs there', async () => {
    const before = world.sandbox.requests.length;
    const res = await world.run(['persons', 'list', '--project', 'staging', '--limit', '100', '-o', 'json']);
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout)).toHaveLength(7);
    const paths = world.sandbox.requests.slice(before).map((r) => r.path);
    expect(paths).toContain('/api/projects/');
    expect(paths).toContain('/api/projects/2/persons/');
  });

  it('suggests the near names for one that fits none (exit 3), and sends nothing to a project', async () => {
    const before = world.sandbox.requests.length;
    const res = await world.run(['persons', 'list', '--project', 'Stage']);
    expect(res.code).toBe(3);
    expect(res.stderr).toContain('no project named "Stage" among the');
    expect(res.stderr).toContain('did you mean "Staging" (2)?');
    expect(world.sandbox.requests.slice(before).map((r) => r.path)).toEqual(['/api/projects/']);
  });

  it('names the variable when the name came from HOGCTL_PROJECT_ID', async () => {
    const res = await world.run(['persons', 'list'], { env: { HOGCTL_PROJECT_ID: 'Production' } });
    expect(res.code).toBe(3);
    expect(res.stderr).toContain('no project named "Production" (from HOGCTL_PROJECT_ID)');
  });

  it('profile add saves the id of the project named', async () => {
    const add = await world.run(['profile', 'add', 'stg', '--base-url', world.sandbox.url, '--project', 'Staging', '--api-key-stdin'], {
      stdin: world.sandbox.defaultKey,
    });
    expect(add.code, add.stderr).toBe(0);
    expect(add.stderr).toContain('project 2');
    const show = await world.run(['profile', 'show', 'stg', '-o', 'json']);
    expect(JSON.parse(show.stdout).project_id).toBe('2');
  });
});
