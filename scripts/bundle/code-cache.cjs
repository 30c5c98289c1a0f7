// Compiles a CommonJS file with the V8 code cache stored beside it (<file>.cache), as node does
// for its own built-in modules. Parsing and compiling the CLI's bundle (dist/main.cjs) and undici's
// (dist/undici.cjs) cost a request command ~30 ms; with the caches V8 reads them back instead.
// The caches are made by the build on the node that builds; V8 checks each against its own
// version, flags and the source, and compiles from source as usual when it does not match.
// The bin loads this file from dist/ (the build copies it there) for dist/main.cjs, and the
// bundle carries its own copy for dist/undici.cjs (undici/load.mjs).
const module_ = require('node:module');
const { readFileSync } = require('node:fs');
const { dirname, resolve } = require('node:path');
const { Script } = require('node:vm');

/**
 * What the build puts around each bundle it compiles with a cache (esbuild's banner and footer):
 * one function of the CommonJS module's arguments, which node calls at once when it requires the
 * file (inside node's module function, whose `arguments` those are) and which is the script's
 * value when compiled below (at the top of a script, where there are no `arguments`; `module`
 * may be a global there, as under `node -e`). V8 then reads the file's text as it is, without a
 * wrapped copy of it on its heap: that copy (0.9 MB for the two bundles) cost a garbage
 * collection at start-up.
 */
const WRAPPER = {
  head: "((f) => typeof arguments === 'undefined' ? f : f.apply(this, arguments))(function (exports, require, module, __filename, __dirname) {",
  tail: '\n});',
};

/**
 * Runs `file` as a CommonJS module; `status` tells whether V8 used the cache. Stack traces name
 * the script `name`, or, where V8 takes the cache, the name it was built with (the build gives
 * `dist/<file>`, not the folder it writes in).
 */
function compileWithCodeCache(file, name = file) {
  // The build writes only ASCII (esbuild escapes anything else, the build checks), which latin1
  // reads as utf8 would, in half the time.
  const source = readFileSync(file, 'latin1');
  let cachedData;
  try {
    cachedData = readFileSync(`${file}.cache`);
  } catch {
    // No cache (a build that made none): compile from source.
  }
  if (!source.startsWith(WRAPPER.head)) throw new Error(`${file} was not built to be compiled with a code cache (scripts/build.mjs)`);
  const script = new Script(source, { filename: name, cachedData });
  const module = { exports: {} };
  script.runInThisContext()(module.exports, module_.createRequire(resolve(file)), module, file, dirname(file));
  const status = cachedData === undefined ? 'missing' : script.cachedDataRejected ? rejection(file) : 'used';
  return { exports: module.exports, script, status };
}

/**
 * Runs `file` through the shipped cache where V8 will take it (always on node 20, which has no
 * cache of its own), and through node's compile cache where node has one (22.8 and later, turned
 * on by the bin) and the shipped cache is another node version's. `status` says which, and why
 * V8 refused the shipped one (`--debug` prints it).
 */
function loadCompiled(file) {
  // getCompileCacheDir came with node 22.8; on 22.1 to 22.7 the shipped cache is used as on node 20.
  const compileCache = module_.getCompileCacheDir?.();
  const built = compileCache && builtBy(file);
  if (compileCache && built !== process.version) {
    return {
      exports: require(file),
      status: `node's compile cache in ${compileCache} (the shipped one is for node ${built ?? 'unknown'}, this is ${process.version})`,
    };
  }
  const { exports, status } = compileWithCodeCache(file);
  return { exports, status };
}

/** The version of the node that made the cache, as the build recorded it (<file>.cache.json). */
function builtBy(file) {
  try {
    return JSON.parse(readFileSync(`${file}.cache.json`, 'utf8')).node;
  } catch {
    return undefined; // made by a build that recorded nothing
  }
}

/** Why V8 may have refused the cache. */
function rejection(file) {
  const built = builtBy(file);
  const options = process.env.NODE_OPTIONS ? '; NODE_OPTIONS is set' : '';
  return `rejected by V8, which checks its version, its flags (from NODE_OPTIONS or node's command line) and the file: built by ${built ? `node ${built}` : 'an unknown node'}, running ${process.version}${options}; compiled from source instead`;
}

module.exports = { WRAPPER, compileWithCodeCache, loadCompiled };
