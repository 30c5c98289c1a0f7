// The one door to the MCP SDK and zod, which only `hogctl mcp` uses: loaded on first use, so that
// no other command reads them (ARCHITECTURE.md §6). In the bundle the three modules are one file,
// dist/vendor/mcp.cjs (scripts/bundle/mcp-sdk.mjs), so that the SDK and the tools' schemas share
// one zod.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type * as zod from 'zod';

export interface Sdk {
  McpServer: typeof McpServer;
  StdioServerTransport: typeof StdioServerTransport;
  z: typeof zod.z;
}

export async function loadSdk(): Promise<Sdk> {
  const [server, stdio, schemas] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/mcp.js'),
    import('@modelcontextprotocol/sdk/server/stdio.js'),
    import('zod'),
  ]);
  return { McpServer: server.McpServer, StdioServerTransport: stdio.StdioServerTransport, z: schemas.z };
}
