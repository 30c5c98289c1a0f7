// Stands in for src/http/undici.ts in the bundle (../substitutions.mjs): the same exports, from
// dist/undici.cjs. This module is bundled into dist/chunks/, so the file is one directory up (the
// build checks that).
//
// Two caches can spare compiling undici's ~170 kB on every request command. The one the build
// ships (code-cache.cjs) was taken after a request, so it holds the request's functions too, but
// V8 takes it only on the node version that built it. node 22.1 and later keep their own compile
// cache when the bin turns it on, for any version, though only of the code a module runs as it
// loads. So undici goes through the shipped cache where V8 will take it (always on node 20), and
// through node's compile cache where node has one and the versions differ; measured in
// ../README.md.
import module from 'node:module';
import { fileURLToPath } from 'node:url';
import { builtBy, compileWithCodeCache } from './code-cache.cjs';

const file = fileURLToPath(new URL('../undici.cjs', import.meta.url));

function load() {
  // getCompileCacheDir came with node 22.8; on 22.1 to 22.7 the shipped cache is used as on node 20.
  const compileCache = module.getCompileCacheDir?.();
  const built = builtBy(file);
  if (compileCache && built !== process.version) {
    return {
      exports: module.createRequire(import.meta.url)(file),
      status: `node's compile cache in ${compileCache} (the shipped one is for node ${built ?? 'unknown'}, this is ${process.version})`,
    };
  }
  return compileWithCodeCache(file);
}

const loaded = load();

export const { EnvHttpProxyAgent, undiciRequest } = loaded.exports;
export const codeCacheStatus = loaded.status;
