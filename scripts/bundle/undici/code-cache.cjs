// Compiles a CommonJS file with the V8 code cache stored beside it (<file>.cache), as node does
// for its own built-in modules. Parsing undici's ~170 kB and compiling the functions of its first
// request cost every request command ~20 ms; with the cache V8 reads them back instead.
// The cache is made by the build on the node that builds; V8 checks it against its own version,
// flags and the source, and compiles from source as usual when it does not match.
const { readFileSync } = require('node:fs');
const { dirname } = require('node:path');
const { Script } = require('node:vm');

/** Runs `file` as a CommonJS module; `status` tells whether V8 used the cache. */
function compileWithCodeCache(file) {
  const source = readFileSync(file, 'utf8');
  let cachedData;
  try {
    cachedData = readFileSync(`${file}.cache`);
  } catch {
    // No cache (a build that made none): compile from source.
  }
  const wrapped = `(function (exports, require, module, __filename, __dirname) {${source}\n})`;
  const script = new Script(wrapped, { filename: file, cachedData });
  const module = { exports: {} };
  script.runInThisContext()(module.exports, require, module, file, dirname(file));
  const status = cachedData === undefined ? 'missing' : script.cachedDataRejected ? rejection(file) : 'used';
  return { exports: module.exports, script, status };
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

module.exports = { builtBy, compileWithCodeCache };
