// The two parts of undici the HTTP client uses, imported by deep path to leave fetch, WebSocket,
// caching and the rest out. In the bundle this module is replaced by scripts/bundle/undici/load.mjs,
// which exports the same from dist/undici.cjs compiled with a V8 code cache.
export { default as EnvHttpProxyAgent } from 'undici/lib/dispatcher/env-http-proxy-agent.js';
export { default as undiciRequest } from 'undici/lib/api/api-request.js';

/** Whether V8 used the bundle's code cache for undici (shown by --debug). */
export const codeCacheStatus: string = 'none (running from source)';
