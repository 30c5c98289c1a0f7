// Bundles src/ into dist/:
// - main.cjs and its V8 code cache: the CLI as one CommonJS file, which the bin compiles through
//   the cache (scripts/bundle/code-cache.cjs, copied to dist/). Every module behind a lazy
//   import() (each verb, the HTTP client, the config writer, prompts) runs only when imported,
//   and V8 compiles a function only when it is first called, so a command still runs only the
//   code it uses;
// - undici.cjs and its V8 code cache (scripts/bundle/undici/), which every request command loads;
// - vendor/<name>.cjs: the packages that only some commands use (prompts, Handlebars, jq, the
//   sandbox), which the CLI's bundle requires when one of those commands runs;
// - jq.wasm, jq compiled to WebAssembly, which --jq loads (src/io/filter.ts);
// - root-help.txt, which the bin prints for `hogctl --help` without loading the bundle.
// Everything that makes dist/ differ from src/ is in scripts/bundle/ (its README lists it).
import { build } from 'esbuild';
import { copyFileSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { importMetaUrl, lazyBuiltins, undiciWithCodeCache, VENDOR_BUNDLES, vendorBundles, versionDefine } from './bundle/substitutions.mjs';
import { writeCodeCache } from './bundle/undici/write-code-cache.mjs';

const { compileWithCodeCache, WRAPPER } = createRequire(import.meta.url)('./bundle/code-cache.cjs');

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
  charset: 'ascii',
};

/**
 * scripts/bundle/code-cache.cjs reads the bundles as latin1, which reads ASCII as utf8 would.
 * esbuild escapes every other character of the code (charset 'ascii'); only the licences it
 * gathers at the end of the file, a comment, keep their authors' names as written.
 */
function checkAscii(file) {
  const text = readFileSync(file, 'utf8');
  const licences = text.indexOf('\n/*! Bundled license information:');
  const other = /[^\x00-\x7f]/.exec(licences === -1 ? text : text.slice(0, licences));
  if (other) throw new Error(`${file} has a character that is not ASCII at ${other.index}: esbuild's charset must stay 'ascii'`);
}

async function buildUndici(outdir) {
  await build({
    ...common,
    entryPoints: { undici: 'scripts/bundle/undici/entry.cjs' },
    outdir,
    format: 'cjs',
    outExtension: { '.js': '.cjs' },
    banner: { js: WRAPPER.head },
    footer: { js: WRAPPER.tail },
    plugins: [lazyBuiltins],
  });
  checkAscii(`${outdir}/undici.cjs`);
  await writeCodeCache(`${outdir}/undici.cjs`);
}

async function buildMain(outdir) {
  await build({
    ...common,
    entryPoints: { main: 'src/main.ts' },
    outdir,
    format: 'cjs',
    outExtension: { '.js': '.cjs' },
    define: { ...versionDefine(pkg.version), ...importMetaUrl.define },
    banner: { js: WRAPPER.head + importMetaUrl.banner },
    footer: { js: WRAPPER.tail },
    plugins: [lazyBuiltins, undiciWithCodeCache, vendorBundles],
  });
  checkAscii(`${outdir}/main.cjs`);
  // The bin compiles the bundle as a vm.Script, which has no loader for import().
  if (readFileSync(`${outdir}/main.cjs`, 'latin1').includes('import('))
    throw new Error(`${outdir}/main.cjs calls import(): bundle the module, or require it (scripts/bundle/substitutions.mjs)`);
  copyFileSync('scripts/bundle/code-cache.cjs', `${outdir}/code-cache.cjs`);
  copyFileSync(createRequire(import.meta.url).resolve('jq-wasm/jq.wasm'), `${outdir}/jq.wasm`);
}

/** The packages of VENDOR_BUNDLES, each as dist/vendor/<name>.cjs. */
async function buildVendors(outdir) {
  await build({
    ...common,
    entryPoints: Object.fromEntries(VENDOR_BUNDLES.map(({ name, module }) => [`vendor/${name}`, module])),
    outdir,
    format: 'cjs',
    outExtension: { '.js': '.cjs' },
    // jq-wasm's ES module build works out its own folder from import.meta.url at load.
    define: importMetaUrl.define,
    banner: { js: importMetaUrl.banner },
  });
}

/**
 * The root help, rendered by the fresh bundle itself, so that it cannot drift from the tree; and
 * the bundle's V8 code cache, taken after that rendering, a verb's help and a real `persons get`
 * (over loopback), so that it holds the functions that build and parse the command tree and those
 * a request command runs, as well as the top level. Without the request in it, `persons get`
 * compiled those on every run (scripts/bundle/README.md has the figures).
 */
async function writeRootHelpAndCodeCache(outdir) {
  const file = `${outdir}/main.cjs`;
  const { exports, script } = compileWithCodeCache(file, 'dist/main.cjs');
  const run = async (argv, deps = {}) => {
    const rendered = [];
    const sink = { isTTY: false, write: (s) => rendered.push(s) };
    const code = await exports.main(argv, { io: { stdout: sink, stderr: sink, stdin: process.stdin }, env: {}, ...deps });
    if (code !== 0) throw new Error(`running \`hogctl ${argv.join(' ')}\` exited ${code}: ${rendered.join('')}`);
    return rendered.join('');
  };
  writeFileSync(`${outdir}/root-help.txt`, await run(['--help']));
  await run(['persons', 'get', '--help']);
  await getPerson(outdir, run);
  writeFileSync(`${file}.cache`, script.createCachedData());
  // What --debug names when V8 refuses the cache.
  writeFileSync(`${file}.cache.json`, `${JSON.stringify({ node: process.version })}\n`);
}

/** The one person the build's `persons get` reads, as PostHog's retrieve answers it (docs/server-contract.md §6.3). */
const PERSON = {
  id: 1,
  uuid: '0190b5b2-0000-7000-8000-000000000001',
  name: 'user1@example.com',
  distinct_ids: ['user1'],
  properties: { email: 'user1@example.com' },
  created_at: '2026-01-01T00:00:00Z',
  is_identified: true,
};

/**
 * `hogctl persons get 1 -o json` against a loopback server that answers that one request, as
 * undici's cache is taken (undici/write-code-cache.mjs): the build starts no sandbox. Any other
 * request fails the build, so a change in what the command sends is seen here. The request goes
 * through a dispatcher handed in, because the CLI's own HTTP client sets a V8 flag
 * (--liftoff-only, in src/http/client.ts) as it makes its dispatcher, and V8 refuses a code cache
 * made under flags other than those of the process that reads it.
 */
async function getPerson(outdir, run) {
  const { EnvHttpProxyAgent } = createRequire(import.meta.url)(`${root}/${outdir}/undici.cjs`);
  const server = createServer((req, res) => {
    const known = req.method === 'GET' && req.url === '/api/projects/1/persons/1/';
    res.writeHead(known ? 200 : 404, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify(
        known ? PERSON : { type: 'invalid_request', code: 'not_found', detail: `the build does not answer ${req.method} ${req.url}` },
      ),
    );
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  // No proxy: the build's own environment must not route this request elsewhere.
  const dispatcher = new EnvHttpProxyAgent({ httpProxy: '', httpsProxy: '', noProxy: '' });
  const configDir = mkdtempSync(join(tmpdir(), 'hogctl-build-'));
  try {
    const env = {
      HOGCTL_BASE_URL: `http://127.0.0.1:${server.address().port}`,
      HOGCTL_PROJECT_ID: '1',
      HOGCTL_API_KEY: 'phx_build_code_cache_key_0000000000000000000000',
      HOGCTL_CONFIG_DIR: configDir,
    };
    const out = await run(['persons', 'get', '1', '-o', 'json'], { env, dispatcher });
    if (JSON.parse(out).uuid !== PERSON.uuid) throw new Error(`the build's persons get printed ${out}`);
  } finally {
    await dispatcher.close();
    server.close();
    rmSync(configDir, { recursive: true, force: true });
  }
}

// Build beside dist/ and swap it in, so that a test run using dist/ never sees it half-written.
const fresh = `dist.tmp-${process.pid}`;
const old = `dist.old-${process.pid}`;
try {
  await buildUndici(fresh);
  await buildMain(fresh);
  await buildVendors(fresh);
  await writeRootHelpAndCodeCache(fresh);
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
