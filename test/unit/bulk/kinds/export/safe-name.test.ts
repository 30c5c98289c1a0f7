// Names from a server's answer in the bundle's paths: ids of PostHog's own form or a refusal,
// client-chosen ids mapped to names that never collide, and no path outside the bundle.
import { join, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileStem, inBundle, personDir } from '../../../../../src/bulk/kinds/export/safe-name.js';
import { ExitCode } from '../../../../../src/errors.js';
import { thrown } from '../../../helpers.js';

const UUID = '0192a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';

describe('personDir', () => {
  it('names a person by its project id and UUID', () => {
    expect(personDir('42', UUID.toUpperCase(), 'h')).toBe(`project-42/person-${UUID}`);
  });

  it('refuses ids that PostHog never gives, naming the host and the value (exit 7)', () => {
    for (const project of ['../../../../x/pwnp', '', '0', '1/2', '1 ', '-1', '１']) {
      const err = thrown(() => personDir(project, UUID, 'eu.example.com'));
      expect(err.exitCode).toBe(ExitCode.unavailable);
      expect(err.message).toContain('eu.example.com');
      expect(err.message).toContain(JSON.stringify(project));
    }
    for (const uuid of ['../x', `${UUID}/..`, UUID.replace(/-/g, ''), '']) {
      expect(thrown(() => personDir('1', uuid, 'h')).message).toContain(JSON.stringify(uuid));
    }
  });
});

describe('fileStem', () => {
  it('keeps a plain id as it is', () => {
    expect(fileStem(UUID)).toBe(UUID);
    expect(fileStem('s_1')).toBe('s_1');
  });

  it('maps other ids to a plain stem and a hash: no two ids share a name, and none is a path', () => {
    const ids = ['s.1', 's/1', 's_1', 'S_1', 's 1', '..', '.', '../../x', '', 'é', 'x'.repeat(300), `${'x'.repeat(300)}y`];
    const names = ids.map(fileStem);
    expect(new Set(names).size).toBe(ids.length);
    expect(new Set(names.map((n) => n.toLowerCase())).size).toBe(ids.length);
    for (const name of names) {
      expect(name).toMatch(/^[a-z0-9][a-z0-9_-]*(\.[0-9a-f]{16})?$/);
      expect(name.length).toBeLessThanOrEqual(100);
    }
  });
});

describe('inBundle', () => {
  it('resolves a path inside the bundle', () => {
    expect(inBundle('/b/out', 'project-1', 'x.json')).toBe(join('/b/out', 'project-1', 'x.json'));
  });

  it('refuses a path outside the bundle, the bundle itself, and any path under a root', () => {
    expect(thrown(() => inBundle('/b/out', 'project-..', '..', '..', 'x')).message).toContain(`${sep}b${sep}x`);
    expect(() => inBundle('/b/out', '..', 'out-2', 'x')).toThrow(/not inside the bundle/);
    expect(() => inBundle('/b/out', '.')).toThrow(/not inside the bundle/);
    expect(() => inBundle('/b/out', '/etc/passwd')).toThrow(/not inside the bundle/);
  });
});
