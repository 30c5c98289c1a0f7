// What the build changes between src/ and dist/, each listed in this folder's README. The
// esbuild options of scripts/build.mjs take every substitution from here, so that the list and
// the code that does it are read together.
import { fileURLToPath } from 'node:url';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));

// Node built-ins that bundled dependencies load at start-up but hogctl rarely or never uses, each
// replaced by a stand-in that loads the real module on first use (shims/).
const LAZY_BUILTINS = [
  { module: 'node:child_process', importer: /[\\/]node_modules[\\/]commander[\\/]/, shim: 'child-process.cjs' },
  { module: 'node:http2', importer: /[\\/]node_modules[\\/]undici[\\/]/, shim: 'http2.cjs' },
  { module: 'node:assert', importer: /[\\/]node_modules[\\/]undici[\\/]/, shim: 'assert.cjs' },
  { module: 'node:http', importer: /[\\/]node_modules[\\/]undici[\\/]/, shim: 'http.cjs' },
];

/** esbuild plugin: the stand-ins of shims/ for the built-ins above, inside those dependencies only. */
export const lazyBuiltins = {
  name: 'lazy-builtins',
  setup(build) {
    for (const { module, importer, shim } of LAZY_BUILTINS) {
      build.onResolve({ filter: new RegExp(`^${module}$`) }, (args) =>
        importer.test(args.importer) ? { path: here(`./shims/${shim}`) } : undefined,
      );
    }
  },
};

// Packages that a module the CLI loads only on demand uses alone, each bundled as a file of its
// own, dist/vendor/<name>.cjs, which that module requires when it first runs. In the CLI's bundle
// they would be read from disk by every command (node reads ~1 ms per MB here), and they are
// three fifths of it.
export const VENDOR_BUNDLES = [
  { name: 'inquirer', module: '@inquirer/prompts' }, // the prompts: src/prompts/inquirer.ts
  { name: 'handlebars', module: 'handlebars' }, // --template: src/io/filter.ts
  { name: 'jq', module: 'jq-wasm' }, // --jq: src/io/filter.ts
  { name: 'sandbox', module: '@hogctl/sandbox' }, // hogctl sandbox and demo: src/commands/root/shared/start-sandbox.ts
  // hogctl mcp: src/mcp/sdk.ts. One entry for three modules, so that they share one zod.
  {
    name: 'mcp',
    module: './scripts/bundle/mcp-sdk.mjs',
    imports: ['@modelcontextprotocol/sdk/server/mcp.js', '@modelcontextprotocol/sdk/server/stdio.js', 'zod'],
  },
];

/**
 * esbuild plugin: the CLI's imports of the packages above load their own bundles. Each import
 * becomes a one-line module that requires the file, so that a dynamic import() stays inside the
 * bundle as a lazy require: the bin compiles the bundle as a vm.Script, which cannot import().
 */
export const vendorBundles = {
  name: 'vendor-bundles',
  setup(build) {
    for (const { name, module, imports = [module] } of VENDOR_BUNDLES) {
      for (const spec of imports) {
        build.onResolve({ filter: new RegExp(`^${spec.replace(/[/.]/g, '\\$&')}$`) }, (args) =>
          /[\\/]src[\\/]/.test(args.importer) ? { path: name, namespace: 'vendor' } : undefined,
        );
      }
    }
    build.onLoad({ filter: /.*/, namespace: 'vendor' }, (args) => ({ contents: `module.exports = require('./vendor/${args.path}.cjs');` }));
    build.onResolve({ filter: /^\.\/vendor\//, namespace: 'vendor' }, (args) => ({ path: args.path, external: true }));
  },
};

/** esbuild plugin: in the bundle, src/http/undici.ts is replaced by undici/load.mjs. */
export const undiciWithCodeCache = {
  name: 'undici-with-code-cache',
  setup(build) {
    build.onResolve({ filter: /^\.\/undici\.js$/ }, (args) =>
      /[\\/]src[\\/]http[\\/]client\.ts$/.test(args.importer) ? { path: here('./undici/load.mjs') } : undefined,
    );
  },
};

/** The version `hogctl --version` and the User-Agent carry (src/context.ts reads HOGCTL_VERSION). */
export function versionDefine(version) {
  return { HOGCTL_VERSION: JSON.stringify(version) };
}

/**
 * The start of each CommonJS bundle built from ES modules: strict mode, as ES modules always are
 * (esbuild's own "use strict" would come after this banner, too late to count), and
 * `import.meta.url`: the URL of the bundle itself (dist/main.cjs), where src/io/filter.ts finds
 * dist/jq.wasm and undici/load.mjs finds dist/undici.cjs, beside it.
 */
export const importMetaUrl = {
  define: { 'import.meta.url': '__hogctlBundleUrl' },
  banner: "'use strict'; const __hogctlBundleUrl = require('node:url').pathToFileURL(__filename).href;",
};
