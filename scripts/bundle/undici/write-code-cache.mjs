// The build's last step for dist/undici.cjs: V8's code cache of it, which ../code-cache.cjs reads at
// run time (see this folder's README for when it is used).
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';

const { compileWithCodeCache } = createRequire(import.meta.url)('../code-cache.cjs');

/**
 * Writes `file`.cache: V8's code cache for the file, taken after one request through it (to a
 * throwaway loopback server), so that it holds the functions a request command runs as well as
 * the top level.
 */
export async function writeCodeCache(file) {
  // Named as stack traces show it wherever hogctl is installed (code-cache.cjs).
  const { exports: undici, script } = compileWithCodeCache(file, 'dist/undici.cjs');
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
