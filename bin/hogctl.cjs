#!/usr/bin/env node
'use strict';
// Runs the bundled CLI. Kept tiny so that start-up cost is the bundle's alone. CommonJS on
// purpose: node starts a CommonJS entry ~10 ms sooner than an ES module one, and the bundle is
// still loaded as ES modules by the import() below.
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
  const { main } = await import('../dist/main.js');

  // `hogctl ... | head` closes stdout early; that is a normal end, not an error.
  process.stdout.on('error', (err) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });

  const controller = new AbortController();
  let interrupts = 0;
  process.on('SIGINT', () => {
    // The first Ctrl-C lets the command stop cleanly (a bulk delete finishes its in-flight
    // chunks and writes its journal); a second one ends the process at once.
    if (++interrupts > 1) process.exit(130);
    controller.abort(new Error('interrupted'));
  });

  process.exitCode = await main(args, { signal: controller.signal });
}
