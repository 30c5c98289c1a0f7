// Bundles src/ into dist/:
// - main.js and chunks/: the CLI as ES modules with code splitting, so that each command loads
//   only the small entry chunk and its own verb, and every heavy module (HTTP client, config
//   writer, prompts) stays behind a lazy import();
// - undici.cjs and its V8 code cache (scripts/bundle/undici/), which every request command loads;
// - root-help.txt, which the bin prints for `hogctl --help` without loading the bundle.
import { build } from 'esbuild';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);
const root = fileURLToPath(new URL('..', import.meta.url));
process.chdir(root);
const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

// Node built-ins that bundled dependencies load at start-up but hogctl rarely or never uses, each
// replaced by a stand-in that loads the real module on first use (see scripts/bundle/shims/).
const LAZY_BUILTINS = [
  { module: 'node:child_process', importer: /[\\/]node_modules[\\/]commander[\\/]/, shim: 'child-process.cjs' },
  { module: 'node:http2', importer: /[\\/]node_modules[\\/]undici[\\/]/, shim: 'http2.cjs' },
];
const lazyBuiltins = {
  name: 'lazy-builtins',
  setup(build) {
    for (const { module, importer, shim } of LAZY_BUILTINS) {
      build.onResolve({ filter: new RegExp(`^${module}$`) }, (args) =>
        importer.test(args.importer) ? { path: fileURLToPath(new URL(`./bundle/shims/${shim}`, import.meta.url)) } : undefined,
      );
    }
  },
};

// In the bundle, src/http/undici.ts is replaced by the loader of dist/undici.cjs.
const undiciWithCodeCache = {
  name: 'undici-with-code-cache',
  setup(build) {
    build.onResolve({ filter: /^\.\/undici\.js$/ }, (args) =>
      /[\\/]src[\\/]http[\\/]client\.ts$/.test(args.importer)
        ? { path: fileURLToPath(new URL('./bundle/undici/load.mjs', import.meta.url)) }
        : undefined,
    );
  },
};

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

/**
 * Writes `file`.cache: V8's code cache for the file, taken after one request through it (to a
 * throwaway loopback server), so that it holds the functions a request command runs as well as
 * the top level.
 */
async function writeCodeCache(file) {
  const { compileWithCodeCache } = require('./bundle/undici/code-cache.cjs');
  const { exports: undici, script } = compileWithCodeCache(file);
  const server = createServer((req, res) => res.setHeader('content-type', 'application/json').end('{"id":1}'));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  // No proxy: the build's own environment must not route this request elsewhere.
  const agent = new undici.EnvHttpProxyAgent({ httpProxy: '', httpsProxy: '', noProxy: '' });
  try {
    const res = await undici.undiciRequest.call(agent, { method: 'GET', origin: `http://127.0.0.1:${server.address().port}`, path: '/' });
    await res.body.json();
  } finally {
    await agent.close();
    server.close();
  }
  writeFileSync(`${file}.cache`, script.createCachedData());
  // What the loader's --debug line names when V8 refuses the cache.
  writeFileSync(`${file}.cache.json`, `${JSON.stringify({ node: process.version })}\n`);
}

async function buildMain(outdir) {
  const { metafile } = await build({
    ...common,
    entryPoints: { main: 'src/main.ts' },
    outdir,
    splitting: true,
    format: 'esm',
    chunkNames: 'chunks/[name]-[hash]',
    define: { HOGCTL_VERSION: JSON.stringify(pkg.version) },
    // Bundled CommonJS dependencies call require(); give the ESM bundle one.
    banner: {
      js: "import { createRequire as __hogctlCreateRequire } from 'node:module'; const require = __hogctlCreateRequire(import.meta.url);",
    },
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
