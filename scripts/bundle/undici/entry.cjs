// The entry of dist/undici.cjs: the parts of undici that src/http/undici.ts exports, bundled as
// one CommonJS file so that it can be compiled with a V8 code cache (see ../code-cache.cjs).
module.exports = {
  EnvHttpProxyAgent: require('undici/lib/dispatcher/env-http-proxy-agent.js'),
  undiciRequest: require('undici/lib/api/api-request.js'),
};
