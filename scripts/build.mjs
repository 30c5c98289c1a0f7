// Bundles src/ into dist/ with code splitting, so that each command loads only the small entry
// chunk and its own verb, and every heavy module (HTTP client, config store, prompts) stays
// behind a lazy import().
import { build } from 'esbuild';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// Node built-ins that bundled dependencies load at start-up but hogctl rarely or never uses, each
// replaced by a stand-in that loads the real module on first use (see scripts/shims/).
const LAZY_BUILTINS = [
  { module: 'node:child_process', importer: /[\\/]node_modules[\\/]commander[\\/]/, shim: 'child-process.cjs' },
  { module: 'node:http2', importer: /[\\/]node_modules[\\/]undici[\\/]/, shim: 'http2.cjs' },
];
const lazyBuiltins = {
  name: 'lazy-builtins',
  setup(build) {
    for (const { module, importer, shim } of LAZY_BUILTINS) {
      build.onResolve({ filter: new RegExp(`^${module}$`) }, (args) =>
        importer.test(args.importer) ? { path: fileURLToPath(new URL(`./shims/${shim}`, import.meta.url)) } : undefined,
      );
    }
  },
};

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
  plugins: [lazyBuiltins],
  logLevel: 'warning',
});

// `hogctl --help` is answered from this file without loading the bundle (bin/hogctl.cjs), so it
// starts in bare node time. It is the bundle's own rendering, made here from the fresh build,
// so it cannot drift from the command tree.
const rendered = [];
const sink = { isTTY: false, write: (s) => rendered.push(s) };
const { main } = await import(new URL(`../dist.tmp-${process.pid}/main.js`, import.meta.url).href);
const code = await main(['--help'], { io: { stdout: sink, stderr: sink, stdin: process.stdin }, env: {} });
if (code !== 0) throw new Error(`rendering the root help exited ${code}: ${rendered.join('')}`);
writeFileSync(new URL('root-help.txt', `${fresh.href}/`), rendered.join(''));

try {
  renameSync(dist, old);
} catch {
  // no previous build
}
renameSync(fresh, dist);
rmSync(old, { recursive: true, force: true });
