// dist/vendor/mcp.cjs: the MCP SDK's server, its stdio transport and zod, in one file, so that the
// SDK and the schemas of hogctl's tools share one zod. src/mcp/sdk.ts imports the three modules;
// the vendorBundles plugin (substitutions.mjs) points each import at this one file.
export { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
export { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
export { z } from 'zod';
