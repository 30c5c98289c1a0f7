// Bundles src/ into dist/ with code splitting, so that `--help` and `--version` load only the
// small entry chunk and every heavy module (HTTP client, config store, prompts) stays behind a
// lazy import().
import { build } from 'esbuild';
import { readFileSync, rmSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
await build({
  entryPoints: { main: 'src/main.ts' },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  chunkNames: 'chunks/[name]-[hash]',
  define: { HOGCTL_VERSION: JSON.stringify(pkg.version) },
  // Bundled CommonJS dependencies call require(); give the ESM bundle one.
  banner: { js: "import { createRequire as __hogctlCreateRequire } from 'node:module'; const require = __hogctlCreateRequire(import.meta.url);" },
  logLevel: 'warning',
});
