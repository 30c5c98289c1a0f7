// `npm test` after the build: the type check, the format check and the test suite, at once.
// The suite keeps the cores busy most of its time but waits now and then (child processes, real
// timeouts, terminals); the two checks, run at a lower priority beside it, use those gaps instead
// of holding the suite back by the ~20 s they take on their own. Their output is held and printed
// after the suite's, so the two do not interleave. The run fails if any of the three fails.
// Arguments go to vitest: `npm test -- test/unit` runs the checks and that folder.
import { spawn } from 'node:child_process';
import { setPriority } from 'node:os';
import { fileURLToPath } from 'node:url';

const bin = (path) => fileURLToPath(new URL(`../node_modules/${path}`, import.meta.url));

/** Runs a node script; with `held`, its output is kept for the end instead of shown as it comes. */
function run(name, script, args, { held = false } = {}) {
  const child = spawn(process.execPath, [bin(script), ...args], { stdio: held ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
  children.push(child);
  let output = '';
  if (held) {
    // Below the suite: the checks take what CPU the suite leaves (nice 10, as `nice` gives).
    // (A child that failed to start has no pid, and setPriority(undefined) would lower this process.)
    if (child.pid !== undefined) setPriority(child.pid, 10);
    child.stdout.setEncoding('utf8').on('data', (d) => (output += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (output += d));
  }
  return new Promise((resolve) => {
    child.on('error', (err) => resolve({ name, code: 1, output: `${err.message}\n` }));
    child.on('close', (code, signal) => resolve({ name, code: code ?? 1, signal, output }));
  });
}

const children = [];
// A cancelled CI job sends SIGTERM to this process alone: pass it on (a Ctrl-C reaches them all).
process.on('SIGTERM', () => children.forEach((child) => child.kill('SIGTERM')));

const results = await Promise.all([
  run('vitest run', 'vitest/vitest.mjs', ['run', ...process.argv.slice(2)]),
  run('tsc --noEmit', 'typescript/bin/tsc', ['--noEmit'], { held: true }),
  run('prettier --check .', 'prettier/bin/prettier.cjs', ['--check', '.'], { held: true }),
]);

for (const { name, code, signal, output } of results.slice(1)) {
  if (code === 0) process.stdout.write(`\n${name}: passed\n`);
  else process.stdout.write(`\n${name} failed (${signal ?? `exit ${code}`}):\n${output}`);
}
const failed = results.filter((r) => r.code !== 0);
if (failed.length > 0) process.stderr.write(`\nnpm test failed: ${failed.map((r) => r.name).join(', ')}\n`);
process.exit(failed.length > 0 ? 1 : 0);
