#!/usr/bin/env node
'use strict';
// Runs the bundled CLI. Kept tiny so that start-up cost is the bundle's alone. CommonJS on
// purpose: node starts a CommonJS entry ~10 ms sooner than an ES module one, and so is the bundle.
const { readFileSync } = require('node:fs');
const path = require('node:path');

const args = process.argv.slice(2);

// Three answers need none of the bundle, so they start in bare node time: the version; the
// root help, rendered by the bundle at build time (help is 80 columns wide, or narrower to fit a
// narrower terminal, which then gets a live rendering); and the completion scripts, generated
// from the command tree (a test fails when completions/ drifts from the tree).
const COMPLETIONS = { bash: 'hogctl.bash', zsh: '_hogctl', fish: 'hogctl.fish' };

if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  process.stdout.write(`${JSON.parse(readFileSync(path.join(__dirname, '../package.json'), 'utf8')).version}\n`);
} else if (args.length === 1 && (args[0] === '--help' || args[0] === '-h') && !(process.stdout.isTTY && process.stdout.columns < 80)) {
  process.stdout.write(readFileSync(path.join(__dirname, '../dist/root-help.txt'), 'utf8'));
} else if (args.length === 2 && args[0] === 'completion' && Object.hasOwn(COMPLETIONS, args[1])) {
  process.stdout.write(readFileSync(path.join(__dirname, '../completions', COMPLETIONS[args[1]]), 'utf8'));
} else {
  run();
}

async function run() {
  // node 22.1 and later can keep V8's compiled code of every module they load (in
  // NODE_COMPILE_CACHE, else a folder of the system's temporary one, per user) and reuse it on the
  // next run, so the bundle's chunks start without being compiled again. node 20 has no such
  // cache; undici's shipped one serves there (scripts/bundle/README.md says when each is used).
  // It never throws: a folder it cannot write just means no cache.
  require('node:module').enableCompileCache?.();
  // The bundle is one CommonJS file compiled through the V8 code cache the build ships beside it
  // (or node's compile cache: scripts/bundle/README.md): node 20 keeps no compiled code of ES
  // modules between runs, and loading the bundle as ES modules cost every command ~20 ms.
  const bundle = require('../dist/code-cache.cjs').loadCompiled(path.join(__dirname, '../dist/main.cjs'));
  const { main } = bundle.exports;

  // `hogctl ... | head` closes stdout early; that is a normal end, not an error.
  process.stdout.on('error', (err) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });

  // The first Ctrl-C (or SIGTERM, e.g. a cancelled CI job) lets the command stop cleanly: a bulk
  // delete stops sending, waits for the requests in flight and writes its journal and receipt.
  // A second one ends the process at once, unless the command handles it (a bulk delete then
  // writes up what it knows without waiting, within a few seconds).
  const controller = new AbortController();
  const quit = new AbortController();
  let interrupts = 0;
  let handlesQuit = false;
  // The reason names the signal, so that a SIGTERM is answered as one (src/cli/stop-signal.ts).
  const onSignal = (signal) => {
    interrupts++;
    if (interrupts === 1) return controller.abort(Object.assign(new Error('interrupted'), { signal }));
    if (!handlesQuit || interrupts > 2) process.exit(130);
    quit.abort(new Error('quit'));
    setTimeout(() => process.exit(130), 5000);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  process.exitCode = await main(args, {
    signal: controller.signal,
    quit: quit.signal,
    handlesQuit: () => (handlesQuit = true),
    codeCacheStatus: bundle.status,
  });
  // Requests left in flight would keep the process alive until they end.
  if (quit.signal.aborted) process.exit(process.exitCode);
}
