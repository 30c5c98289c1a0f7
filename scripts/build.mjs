// Bundles src/ into dist/:
// - main.js and chunks/: the CLI as ES modules with code splitting, so that each command loads
//   only the small entry chunk and its own verb, and every heavy module (HTTP client, config
//   writer, prompts) stays behind a lazy import();
// - undici.cjs and its V8 code cache (scripts/bundle/undici/), which every request command loads;
// - jq.wasm, jq compiled to WebAssembly, which --jq loads (src/io/filter.ts);
// - root-help.txt, which the bin prints for `hogctl --help` without loading the bundle.
// Everything that makes dist/ differ from src/ is in scripts/bundle/ (its README lists it).
import { build } from 'esbuild';
import { copyFileSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { lazyBuiltins, requireBanner, undiciWithCodeCache, versionDefine } from './bundle/substitutions.mjs';
import { writeCodeCache } from './bundle/undici/write-code-cache.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
process.chdir(root);
const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

const common = {
  absWorkingDir: root,
  bundle: true,
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  minify: true,
  logLevel: 'warning',
};

async function buildUndici(outdir) {
  await build({
    ...common,
    entryPoints: { undici: 'scripts/bundle/undici/entry.cjs' },
    outdir,
    format: 'cjs',
    outExtension: { '.js': '.cjs' },
    plugins: [lazyBuiltins],
  });
  await writeCodeCache(`${outdir}/undici.cjs`);
}

async function buildMain(outdir) {
  const { metafile } = await build({
    ...common,
    entryPoints: { main: 'src/main.ts' },
    outdir,
    splitting: true,
    format: 'esm',
    chunkNames: 'chunks/[name]-[hash]',
    define: versionDefine(pkg.version),
    banner: { js: requireBanner },
    plugins: [lazyBuiltins, undiciWithCodeCache],
    metafile: true,
  });
  // load.mjs finds dist/undici.cjs one directory up from its own chunk.
  const [loaderChunk] =
    Object.entries(metafile.outputs).find(([, output]) =>
      Object.keys(output.inputs).some((input) => input.endsWith('bundle/undici/load.mjs')),
    ) ?? [];
  if (!/[\\/]chunks[\\/][^\\/]+\.js$/.test(loaderChunk ?? ''))
    throw new Error(`scripts/bundle/undici/load.mjs must be bundled into dist/chunks/, not ${loaderChunk}`);
  // src/io/filter.ts reads jq.wasm one directory up from its own chunk: dist/jq.wasm.
  const [filterChunk] =
    Object.entries(metafile.outputs).find(([, output]) => Object.keys(output.inputs).some((input) => input.endsWith('src/io/filter.ts'))) ??
    [];
  if (!/[\\/]chunks[\\/][^\\/]+\.js$/.test(filterChunk ?? ''))
    throw new Error(`src/io/filter.ts must be bundled into dist/chunks/, not ${filterChunk}`);
  copyFileSync(createRequire(import.meta.url).resolve('jq-wasm/jq.wasm'), `${outdir}/jq.wasm`);
}

/** The root help, rendered by the fresh bundle itself, so that it cannot drift from the tree. */
async function writeRootHelp(outdir) {
  const rendered = [];
  const sink = { isTTY: false, write: (s) => rendered.push(s) };
  const { main } = await import(pathToFileURL(`${outdir}/main.js`).href);
  const code = await main(['--help'], { io: { stdout: sink, stderr: sink, stdin: process.stdin }, env: {} });
  if (code !== 0) throw new Error(`rendering the root help exited ${code}: ${rendered.join('')}`);
  writeFileSync(`${outdir}/root-help.txt`, rendered.join(''));
}

// Build beside dist/ and swap it in, so that a test run using dist/ never sees it half-written.
const fresh = `dist.tmp-${process.pid}`;
const old = `dist.old-${process.pid}`;
try {
  await buildUndici(fresh);
  await buildMain(fresh);
  await writeRootHelp(fresh);
} catch (err) {
  rmSync(fresh, { recursive: true, force: true });
  throw err;
}
try {
  renameSync('dist', old);
} catch {
  // no previous build
}
renameSync(fresh, 'dist');
rmSync(old, { recursive: true, force: true });
