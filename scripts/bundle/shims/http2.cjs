// Stands in for node:http2 inside undici, which loads it at start-up to read a few protocol
// constants, although hogctl never asks for HTTP/2 (allowH2 is off). Loading it brings in
// node:tls, node:crypto and the HTTP server, ~10 ms per command; now it loads only if an HTTP/2
// connection is ever made. The constants are fixed by RFC 9113 (pseudo-headers, error codes);
// test/unit/scripts/bundle-shims.test.ts checks them against node's and against what undici reads.
module.exports = {
  constants: {
    HTTP2_HEADER_AUTHORITY: ':authority',
    HTTP2_HEADER_METHOD: ':method',
    HTTP2_HEADER_PATH: ':path',
    HTTP2_HEADER_SCHEME: ':scheme',
    HTTP2_HEADER_CONTENT_LENGTH: 'content-length',
    HTTP2_HEADER_EXPECT: 'expect',
    HTTP2_HEADER_STATUS: ':status',
    HTTP2_HEADER_PROTOCOL: ':protocol',
    NGHTTP2_REFUSED_STREAM: 7,
    NGHTTP2_CANCEL: 8,
  },
  connect(...args) {
    return require('node:http2').connect(...args);
  },
};
