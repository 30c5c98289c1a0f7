// Stands in for src/http/undici.ts in the bundle (../substitutions.mjs): the same exports, from
// dist/undici.cjs, beside the bundle (dist/main.cjs) that holds this module.
//
// Two caches can spare compiling undici's ~170 kB on every request command. The one the build
// ships (../code-cache.cjs) was taken after a request, so it holds the request's functions too,
// but V8 takes it only on the node version that built it. node 22.1 and later keep their own
// compile cache when the bin turns it on, for any version, though only of the code a module runs
// as it loads. So undici goes through the shipped cache where V8 will take it (always on node
// 20), and through node's compile cache where node has one and the versions differ; measured in
// ../README.md.
import { fileURLToPath } from 'node:url';
import { loadCompiled } from '../code-cache.cjs';

const loaded = loadCompiled(fileURLToPath(new URL('./undici.cjs', import.meta.url)));

export const { EnvHttpProxyAgent, undiciRequest } = loaded.exports;
export const codeCacheStatus = loaded.status;
