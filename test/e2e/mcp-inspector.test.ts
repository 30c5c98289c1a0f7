// Smoke test: the MCP inspector's command-line mode (@modelcontextprotocol/inspector-cli, what
// `npx @modelcontextprotocol/inspector --cli` runs; the inspector's own package needs Node 22)
// starts `hogctl mcp` over stdio against a sandbox and lists its tools. The key reaches the server
// through the environment the inspector passes on, never through its argv.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { BIN, cleanEnv, startWorld, type World } from './harness.js';

const require = createRequire(import.meta.url);
const INSPECTOR = join(dirname(require.resolve('@modelcontextprotocol/inspector-cli/package.json')), 'build', 'cli.js');

let world: World;
beforeAll(async () => {
  world = await startWorld({ persons: 5 });
});
afterAll(() => world.close());

function inspect(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [INSPECTOR, '--cli', process.execPath, BIN, 'mcp', ...args, '--method', 'tools/list'], {
      env: cleanEnv(world.env),
      // inspector-cli 1.0.3 looks for its package.json at ../package.json from the working
      // directory but imports it from its module's: they agree only from its build directory.
      cwd: dirname(INSPECTOR),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('the MCP inspector, in its command-line mode', () => {
  it('lists the tools of hogctl mcp, and only the reading ones of hogctl mcp --read-only', async () => {
    const all = await inspect([]);
    expect(all.code, all.stderr).toBe(0);
    const tools = (JSON.parse(all.stdout) as { tools: { name: string; annotations?: { destructiveHint?: boolean } }[] }).tools;
    expect(tools.map((t) => t.name)).toContain('plan_apply');
    expect(tools.find((t) => t.name === 'plan_apply')?.annotations?.destructiveHint).toBe(true);
    expect(tools).toHaveLength(15);
    const readOnly = await inspect(['--read-only']);
    expect(readOnly.code, readOnly.stderr).toBe(0);
    const names = (JSON.parse(readOnly.stdout) as { tools: { name: string }[] }).tools.map((t) => t.name);
    expect(names).not.toContain('plan_apply');
    expect(names).toContain('persons_list');
    expect(all.stdout + all.stderr + readOnly.stdout + readOnly.stderr).not.toContain(world.env.HOGCTL_API_KEY);
  });
});
