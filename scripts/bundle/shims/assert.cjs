// Stands in for node:assert inside undici, which calls it as assert(value) or assert(value,
// message) to check its own invariants, and uses nothing else of it. Loading node:assert (with
// its error formatting and colours) cost every request command ~1 ms; now it loads only if a
// check fails, and then throws the real AssertionError. The one difference: without a message,
// node's text quotes the failing call, which is now this file's line rather than undici's.
// test/unit/scripts/bundle-shims.test.ts checks that undici uses node:assert only so.
module.exports = function assert(value, message) {
  if (!value) require('node:assert')(value, message);
};
