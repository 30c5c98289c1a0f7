// `npm run docs`: bundles the generator and runs it, rewriting README's command reference and
// the completion scripts from the command tree.
import { build } from 'esbuild';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

// Inside node_modules so that the bundle's external imports resolve to the project's packages.
const dir = join('node_modules', '.cache', `hogctl-docs-${process.pid}`);
mkdirSync(dir, { recursive: true });
const outfile = join(dir, 'write-generated.mjs');
try {
  await build({
    entryPoints: ['scripts/write-generated.ts'],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    logLevel: 'warning',
  });
  process.argv[1] = outfile;
  await import(pathToFileURL(outfile).href);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
