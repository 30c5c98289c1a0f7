import { PassThrough } from 'node:stream';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { sandboxCommand, sandboxRun, type SandboxCommandOptions } from '../../../../src/commands/root/sandbox.js';
import { Context, type Deps } from '../../../../src/context.js';
import { UsageError } from '../../../../src/errors.js';

function fakeContext(globals: { quiet?: boolean } = {}) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c) => (out += c));
  stderr.on('data', (c) => (err += c));
  const deps: Deps = { io: { stdout, stderr, stdin: new PassThrough() }, env: {}, now: Date.now };
  return { ctx: new Context(deps, globals), out: () => out, err: () => err };
}

const defaults: SandboxCommandOptions = { port: '0', host: '127.0.0.1', persons: '12', seed: '1' };

async function waitFor(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
}

describe('hogctl sandbox', () => {
  it('prints the JSON line on stdout and the banner on stderr, serves, and stops cleanly', async () => {
    const { ctx, out, err } = fakeContext();
    let stop!: () => void;
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    const running = sandboxRun(ctx, { ...defaults, key: ['phx_ro:person:read'] }, stopped);
    await waitFor(() => out().includes('\n'));
    const line = JSON.parse(out().trim());
    expect(Object.keys(line)).toEqual(['url', 'project_id', 'api_key']);
    expect(line.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(line.project_id).toBe(1);
    expect(line.api_key).toMatch(/^phx_/);
    expect(out()).toMatch(/^\{"url": "http:\/\/127\.0\.0\.1:\d+", "project_id": 1, "api_key": "phx_\w+"\}\n$/);
    expect(err()).toContain(line.url);
    expect(err()).toContain(`  printf %s ${line.api_key} |\n`);
    expect(err()).toContain(`profile add sandbox --base-url ${line.url} \\\n      --project 1 --api-key-stdin\n`);

    const res = await request(`${line.url}/api/projects/1/persons/?include_total`, { headers: { authorization: 'Bearer phx_ro' } });
    expect(res.statusCode).toBe(200);
    expect(((await res.body.json()) as { count: number }).count).toBe(12);
    await waitFor(() => err().includes('GET /api/projects/1/persons/?include_total 200'));
    expect(err()).toContain('GET /api/projects/1/persons/?include_total 200');

    stop();
    await running;
    expect(err()).toContain('sandbox stopped');
    await expect(request(`${line.url}/_sandbox/state`)).rejects.toThrow();
  });

  it('prints only the JSON line with --quiet', async () => {
    const { ctx, out, err } = fakeContext({ quiet: true });
    const running = sandboxRun(ctx, defaults, new Promise((r) => setTimeout(r, 50)));
    await running;
    expect(out()).toMatch(/^\{"url": /);
    expect(err()).toBe('');
  });

  it('turns bad flags into usage errors', async () => {
    const { ctx } = fakeContext();
    await expect(sandboxRun(ctx, { ...defaults, port: 'eighty' }, Promise.resolve())).rejects.toBeInstanceOf(UsageError);
    await expect(sandboxRun(ctx, { ...defaults, persons: '-1' }, Promise.resolve())).rejects.toThrow(/--persons/);
    await expect(sandboxRun(ctx, { ...defaults, rateLimit: 'reads=1' }, Promise.resolve())).rejects.toBeInstanceOf(UsageError);
    await expect(sandboxRun(ctx, { ...defaults, faults: '500=7' }, Promise.resolve())).rejects.toThrow(/between 0 and 1/);
    await expect(sandboxRun(ctx, { ...defaults, key: ['nokey'] }, Promise.resolve())).rejects.toThrow(/phx_/);
  });

  it('reports a busy port with a hint', async () => {
    const first = fakeContext({ quiet: true });
    let stop!: () => void;
    const running = sandboxRun(first.ctx, defaults, new Promise<void>((r) => (stop = r)));
    await waitFor(() => first.out().includes('\n'));
    const port = new URL(JSON.parse(first.out()).url).port;
    const second = fakeContext({ quiet: true });
    await expect(sandboxRun(second.ctx, { ...defaults, port }, Promise.resolve())).rejects.toMatchObject({
      message: expect.stringContaining('already in use'),
    });
    stop();
    await running;
  });

  it('documents its options with examples', () => {
    const command = sandboxCommand();
    expect(command.name()).toBe('sandbox');
    expect(command.options.map((o) => o.long)).toEqual([
      '--port',
      '--host',
      '--persons',
      '--events-per-person',
      '--duplicates',
      '--project-persons',
      '--seed',
      '--rate-limit',
      '--login-codes',
      '--faults',
      '--key',
      '--apply-delay',
      '--bulk-delete-response',
      '--link-origin',
      '--ready-file',
    ]);
    let text = '';
    command.configureOutput({ writeOut: (s) => (text += s) });
    command.outputHelp();
    expect(text).toContain('Examples:');
    expect(text).toContain('hogctl sandbox --persons 100000 --port 8010');
  });
});
