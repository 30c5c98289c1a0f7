// How the sandbox's sources are laid out: a route module declares its routes and their handlers,
// and owns them whole (every method of a route is declared where the route is); what several
// routes or other modules share (looking a person up, serialisers, the UUID of a distinct id,
// who is in an insight) lives outside `src/routes/`. So a route module imports no other route
// module, and the rest of the sandbox reaches the routes through the route table alone.
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { moduleImports, sourceFiles } from './module-imports.js';

const srcDir = resolve(import.meta.dirname, '..', 'src');
const routesDir = join(srcDir, 'routes');
const routeTable = join(routesDir, 'index.ts');

/** Every source file's imports of files under src/routes/, as `from → to` (paths in src/). */
function routeImports(): { from: string; to: string }[] {
  return sourceFiles(srcDir).flatMap((file) =>
    moduleImports(readFileSync(file, 'utf8'), file)
      .imports.filter((i) => i.spec.startsWith('.'))
      .map((i) => resolve(dirname(file), i.spec).replace(/\.js$/, '.ts'))
      .filter((target) => target.startsWith(routesDir + '/'))
      .map((target) => ({ from: file, to: target })),
  );
}

const name = (path: string) => relative(srcDir, path);

describe('the sandbox layout', () => {
  it('a route module imports no other route module', () => {
    const crossings = routeImports().filter(({ from, to }) => from.startsWith(routesDir + '/') && from !== routeTable && to !== from);
    expect(crossings.map(({ from, to }) => `${name(from)} → ${name(to)}`)).toEqual([]);
  });

  it('the rest of the sandbox reaches the routes through the route table only', () => {
    const crossings = routeImports().filter(({ from, to }) => !from.startsWith(routesDir + '/') && to !== routeTable);
    expect(crossings.map(({ from, to }) => `${name(from)} → ${name(to)}`)).toEqual([]);
  });
});
