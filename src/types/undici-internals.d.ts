// Types for the two undici modules src/http/undici.ts imports directly. Importing them instead of
// the package's index keeps fetch, WebSocket, caching and the rest of undici out of the bundle
// a request command parses at start-up (about 30 ms saved per command).
declare module 'undici/lib/dispatcher/env-http-proxy-agent.js' {
  import type { EnvHttpProxyAgent } from 'undici';
  const EnvHttpProxyAgentClass: typeof EnvHttpProxyAgent;
  export default EnvHttpProxyAgentClass;
}

declare module 'undici/lib/api/api-request.js' {
  import type { Dispatcher } from 'undici';
  /** undici's `Dispatcher.prototype.request`, called with the dispatcher as `this`. */
  function request(this: Dispatcher, options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData>;
  export default request;
}
