// Stands in for node:http inside undici, which loads it at start-up for two things: the default
// limit of a response's headers (http.maxHeaderSize) and the IncomingMessage class, which it
// compares a request body's constructor with before destroying it (core/util.js). Loading
// node:http (its agent, client, server and parser modules) cost every request command ~1.5 ms.
// - maxHeaderSize is node's --max-http-header-size: 16 KiB unless node's command line or
//   NODE_OPTIONS may set it (in any of node's spellings: `_` for `-`, a value after `=` or a
//   space, quoted), and then the real module is asked.
// - IncomingMessage is a class of its own: hogctl never sends a server's request as a body, so
//   undici's comparison is false either way.
// test/unit/scripts/bundle-shims.test.ts checks both against node's and that undici uses nothing else.
const NODE_DEFAULT_MAX_HEADER_SIZE = 16 * 1024;
const mayBeSet = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].join(' ').replaceAll('_', '-').includes('--max-http-header-size');

module.exports = {
  maxHeaderSize: mayBeSet ? require('node:http').maxHeaderSize : NODE_DEFAULT_MAX_HEADER_SIZE,
  IncomingMessage: class IncomingMessage {},
};
