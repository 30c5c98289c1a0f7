// Stands in for src/http/undici.ts in the bundle (../substitutions.mjs): the same exports, from
// dist/undici.cjs compiled with its code cache. This module is bundled into dist/chunks/, so the
// file is one directory up (the build checks that).
import { fileURLToPath } from 'node:url';
import { compileWithCodeCache } from './code-cache.cjs';

const loaded = compileWithCodeCache(fileURLToPath(new URL('../undici.cjs', import.meta.url)));

export const { EnvHttpProxyAgent, undiciRequest } = loaded.exports;
export const codeCacheStatus = loaded.status;
