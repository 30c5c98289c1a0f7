// `hogctl mcp config --client <name>`: the configuration a client needs to start `hogctl mcp`,
// to paste into its settings. It names the command and its arguments only: the server reads its
// profile and key itself, so no secret is ever pasted into a client's configuration.
import { UsageError } from '../errors.js';

export const CLIENTS = ['claude', 'cursor', 'vscode'] as const;

export interface ServerLine {
  command: string;
  args: string[];
}

/** The JSON to paste for `client`: Claude and Cursor read `mcpServers`, VS Code `servers`. */
export function clientConfig(client: string, line: ServerLine): string {
  if (!(CLIENTS as readonly string[]).includes(client))
    throw new UsageError(`unknown client "${client}"`, `give one of ${CLIENTS.join(', ')}`);
  const entry = { command: line.command, args: line.args };
  const config = client === 'vscode' ? { servers: { hogctl: { type: 'stdio', ...entry } } } : { mcpServers: { hogctl: entry } };
  return `${JSON.stringify(config, null, 2)}\n`;
}

/** The server's arguments: `mcp`, then the profile and narrowing flags given to `mcp config`. */
export function serverArgs(o: { profile?: string; readOnly?: boolean; projects?: string; allow?: string }): string[] {
  return [
    'mcp',
    ...(o.profile ? ['--profile', o.profile] : []),
    ...(o.readOnly ? ['--read-only'] : []),
    ...(o.projects ? ['--projects', o.projects] : []),
    ...(o.allow ? ['--allow', o.allow] : []),
  ];
}
