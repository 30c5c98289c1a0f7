// Bundles src/ into dist/ with code splitting, so that `--help` and `--version` load only the
// small entry chunk and every heavy module (HTTP client, config store, prompts) stays behind a
// lazy import().
import { build } from 'esbuild';
import { readFileSync, renameSync, rmSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
// Build beside dist/ and swap it in, so that a test run using dist/ never sees it half-written.
const dist = new URL('../dist', import.meta.url);
const fresh = new URL(`../dist.tmp-${process.pid}`, import.meta.url);
const old = new URL(`../dist.old-${process.pid}`, import.meta.url);
await build({
  entryPoints: { main: 'src/main.ts' },
  outdir: `dist.tmp-${process.pid}`,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  minify: true,
  chunkNames: 'chunks/[name]-[hash]',
  define: { HOGCTL_VERSION: JSON.stringify(pkg.version) },
  // Bundled CommonJS dependencies call require(); give the ESM bundle one.
  banner: { js: "import { createRequire as __hogctlCreateRequire } from 'node:module'; const require = __hogctlCreateRequire(import.meta.url);" },
  logLevel: 'warning',
});
try {
  renameSync(dist, old);
} catch {
  // no previous build
}
renameSync(fresh, dist);
rmSync(old, { recursive: true, force: true });
