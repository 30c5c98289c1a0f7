// The built binary, once for each verb of the command tree: one representative command line run as
// a child process against one sandbox, its exit code and a line of its output. What the verbs do is
// tested in this process (test/cli/); this shows that each is wired into the shipped bundle (its
// lazy import, its options, its output) and runs there. The list of verbs comes from the program
// itself, as README's command reference does, so a new verb without a line here fails the test.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { totp, type Person } from '@hogctl/sandbox';
import { buildProgram } from '../../src/program.js';
import { startWorld, type RunOptions, type World } from './harness.js';

let world: World;
let dir: string;
const used = new Set<number>();

beforeAll(async () => {
  world = await startWorld({ persons: 40, seed: 5, applyDelayMs: 0, duplicates: 2 });
  dir = mkdtempSync(join(tmpdir(), 'hogctl-smoke-'));
  // PostHog turns event deletion requests on per project (docs/server-contract.md).
  await fetch(`${world.sandbox.url}/_sandbox/projects/1/self-service-data-deletion/on`, { method: 'POST' });
});
afterAll(async () => {
  await world.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A person no other line has changed, with at least `minIds` distinct ids. */
function fresh(minIds = 1): Person {
  for (const p of world.sandbox.store) {
    if (!used.has(p.id) && p.distinctIds.length >= minIds && p.properties.email) {
      used.add(p.id);
      return p;
    }
  }
  throw new Error('ran out of persons');
}

/** Every verb of the command tree: the commands that act, by their full names ("persons get"). */
async function verbsOfTheProgram(): Promise<string[]> {
  const sink = new PassThrough();
  const program = await buildProgram({ io: { stdout: sink, stderr: sink, stdin: process.stdin }, env: {}, now: Date.now });
  const verbs: string[] = [];
  const walk = (command: Command, prefix: string[]) => {
    for (const sub of command.commands) {
      const internals = sub as unknown as { _hidden?: boolean; _actionHandler?: unknown };
      if (internals._hidden) continue;
      const name = [...prefix, sub.name()];
      if (internals._actionHandler) verbs.push(name.join(' '));
      walk(sub, name);
    }
  };
  walk(program, []);
  return verbs;
}

interface Smoke {
  /** The command line after `hogctl`; a function when it needs what an earlier line made. */
  args: () => string[];
  options?: () => RunOptions;
  code: number;
  /** A line the run prints, on stdout or stderr. */
  line: RegExp;
}

const password = () => ({ stdin: world.sandbox.login.password });
const signedIn = () => ({ env: { HOGCTL_API_KEY: undefined } });
const receipt = () => join(dir, 'erasure.receipt.json');
const fileOf = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
let secret = '';
let evidenceKey = '';
let duplicateGroups = '';

// In the order they run: a line may use what an earlier one made (a signed-in session, a receipt,
// a 2FA secret, an evidence key). The verbs that change things each take a person of their own.
const SMOKE: Record<string, Smoke> = {
  'auth login': {
    args: () => ['auth', 'login', '--email', world.sandbox.login.email, '--password-stdin'],
    options: password,
    code: 0,
    line: /✔ signed in/,
  },
  'auth status': { args: () => ['auth', 'status'], code: 0, line: /sandbox@example\.com/ },
  'profile add': {
    args: () => ['profile', 'add', 'smoke', '--base-url', world.sandbox.url, '--project', '1', '--api-key-stdin'],
    options: () => ({ stdin: world.sandbox.defaultKey }),
    code: 0,
    line: /✔ saved profile "smoke"/,
  },
  'profile list': { args: () => ['profile', 'list'], code: 0, line: /\tsmoke\t/ },
  'profile use': { args: () => ['profile', 'use', 'smoke'], code: 0, line: /✔ now using profile "smoke"/ },
  'profile show': { args: () => ['profile', 'show'], code: 0, line: /^profile\tsmoke$/m },
  'profile remove': { args: () => ['profile', 'remove', 'smoke', '--yes'], code: 0, line: /✔ removed profile "smoke"/ },
  'projects list': { args: () => ['projects', 'list'], code: 0, line: /^1\t/m },
  'persons list': { args: () => ['persons', 'list', '--limit', '2', '-o', 'csv', '--fields', 'id'], code: 0, line: /^id$/m },
  'persons get': { args: () => ['persons', 'get', String(fresh().id), '-o', 'json'], code: 0, line: /"uuid"/ },
  'persons update': { args: () => ['persons', 'update', String(fresh().id), '--set', 'plan=smoke'], code: 0, line: /✔ update of person/ },
  'persons delete': { args: () => ['persons', 'delete', String(fresh().id), '--yes'], code: 0, line: /✔ deleted person/ },
  'persons bulk-delete': {
    args: () => ['persons', 'bulk-delete', '--file', fileOf('ids.txt', `${fresh().uuid}\n`), '--yes', '--receipt', receipt()],
    code: 0,
    line: /^persons_deleted\t1$/m,
  },
  'persons receipt': { args: () => ['persons', 'receipt', receipt()], code: 0, line: /1 person/ },
  'persons erasure-status': { args: () => ['persons', 'erasure-status', '--receipt', receipt()], code: 0, line: /the erasure is complete/ },
  'persons set-prop': {
    args: () => ['persons', 'set-prop', String(fresh().id), 'plan', 'smoke'],
    code: 0,
    line: /✔ plan = "smoke" on person \d+ accepted/,
  },
  'persons unset-prop': { args: () => ['persons', 'unset-prop', String(fresh().id), 'plan'], code: 0, line: /✔ removal of plan/ },
  'persons delete-events': { args: () => ['persons', 'delete-events', String(fresh().id), '--yes'], code: 0, line: /Saturday night UTC/ },
  'persons delete-recordings': {
    args: () => ['persons', 'delete-recordings', String(fresh().id), '--yes'],
    code: 0,
    line: /✔ started the deletion of the recordings of person/,
  },
  'persons split': {
    args: () => {
      const person = fresh(2);
      return ['persons', 'split', String(person.id), '--distinct-ids', person.distinctIds[1], '--yes'];
    },
    code: 0,
    line: /✔ split of person/,
  },
  'persons activity': { args: () => ['persons', 'activity', '--limit', '1'], code: 0, line: /\tsandbox@example\.com\t/ },
  'persons bulk-update': {
    args: () => ['persons', 'bulk-update', '--file', fileOf('update.txt', `${fresh().uuid}\n`), '--set', 'plan=smoke', '--yes'],
    code: 0,
    line: /^persons_applied\t1$/m,
  },
  'persons export': {
    args: () => ['persons', 'export', '--distinct-id', fresh().distinctIds[0], '--out', join(dir, 'export')],
    code: 0,
    line: /^status\tcompleted$/m,
  },
  'persons deletion-status': { args: () => ['persons', 'deletion-status', '--status', 'pending'], code: 0, line: /pending/ },
  'persons query': { args: () => ['persons', 'query', 'SELECT count() FROM persons', '-o', 'csv'], code: 0, line: /^\d+$/m },
  'persons cohorts': { args: () => ['persons', 'cohorts', String(fresh().id), '-o', 'json'], code: 0, line: /\[/ },
  'persons timeline': { args: () => ['persons', 'timeline', String(fresh().id), '-o', 'json'], code: 0, line: /\[/ },
  'persons funnel': {
    args: () => ['persons', 'funnel', '--events', '[{"id": "$pageview", "order": 0}, {"id": "signed_up", "order": 1}]', '-o', 'json'],
    code: 0,
    line: /\[/,
  },
  'persons funnel-correlation': {
    args: () => [
      'persons',
      'funnel-correlation',
      '--events',
      '[{"id": "$pageview"}, {"id": "signed_up"}]',
      '--param',
      'funnel_correlation_person_converted=TRUE',
      '--param',
      'funnel_correlation_person_entity={"id": "$pageview", "type": "events"}',
      '-o',
      'json',
    ],
    // The sandbox copies a PostHog that removed the endpoint: the verb says so, with exit 3.
    code: 3,
    line: /no longer offers funnel correlation persons/,
  },
  'persons lifecycle': {
    args: () => ['persons', 'lifecycle', '--target-date', new Date().toISOString().slice(0, 10), '--lifecycle-type', 'new', '-o', 'json'],
    code: 0,
    line: /\[/,
  },
  'persons trends': {
    args: () => ['persons', 'trends', '--events', '[{"id": "$pageview"}]', '--day', new Date().toISOString().slice(0, 10), '-o', 'json'],
    code: 0,
    line: /\[/,
  },
  'persons duplicates': { args: () => ['persons', 'duplicates', '-o', 'json'], code: 0, line: /"persons"|"key"/ },
  'persons merge': {
    args: () => ['persons', 'merge', '--groups', '-', '--dry-run'],
    options: () => ({ stdin: duplicateGroups }),
    code: 0,
    line: /^ {2}groups +2 \(3 persons merged away/m,
  },
  'persons reset-distinct-id': {
    args: () => ['persons', 'reset-distinct-id', fresh().distinctIds[0]],
    code: 0,
    line: /may be used again/,
  },
  'events delete': {
    args: () => ['events', 'delete', '--distinct-id', fresh().distinctIds[0], '--yes'],
    code: 0,
    line: /\tpending\t/,
  },
  'events deletion-requests': { args: () => ['events', 'deletion-requests'], code: 0, line: /\tpending\t/ },
  'users me': { args: () => ['users', 'me', '-o', 'json'], options: signedIn, code: 0, line: /sandbox@example\.com/ },
  'users 2fa status': { args: () => ['users', '2fa', 'status'], options: signedIn, code: 0, line: /^enabled\tfalse$/m },
  'users 2fa start': { args: () => ['users', '2fa', 'start', '-o', 'json'], options: signedIn, code: 0, line: /"secret"/ },
  'users 2fa validate': {
    args: () => ['users', '2fa', 'validate', totp(secret, Date.now())],
    options: signedIn,
    code: 0,
    line: /✔ 2FA is on/,
  },
  // Asks for a code on a terminal only: the whole flow runs on a pseudo-terminal in users-2fa.test.ts.
  'users 2fa enable': { args: () => ['users', '2fa', 'enable'], options: signedIn, code: 2, line: /already on|needs a terminal/ },
  'users 2fa backup-codes': { args: () => ['users', '2fa', 'backup-codes', '--yes'], options: signedIn, code: 0, line: /\w{5}/ },
  'users 2fa disable': { args: () => ['users', '2fa', 'disable', '--yes'], options: signedIn, code: 0, line: /2FA is off/ },
  'email verify': { args: () => ['email', 'verify', '123456'], options: signedIn, code: 0, line: /nothing to verify/ },
  'users update': {
    args: () => ['users', 'update', '--field', 'email=smoke@example.org', '-o', 'json'],
    options: signedIn,
    code: 0,
    line: /"pending_email": "smoke@example.org"/,
  },
  'email request-verification': {
    args: () => ['email', 'request-verification'],
    options: signedIn,
    code: 0,
    line: /✔ asked PostHog to e-mail a new verification code/,
  },
  'email cancel-change': { args: () => ['email', 'cancel-change'], options: signedIn, code: 0, line: /^pending_email\t$/m },
  'auth logout': { args: () => ['auth', 'logout'], code: 0, line: /✔ signed out/ },
  'evidence export-key': { args: () => ['evidence', 'export-key'], code: 0, line: /^[0-9a-f]{64}$/m },
  'evidence import-key': {
    args: () => ['evidence', 'import-key'],
    options: () => ({ stdin: evidenceKey, env: { HOGCTL_CONFIG_DIR: join(dir, 'other-config') } }),
    code: 0,
    line: /✔ the evidence key [0-9a-f]+ is stored/,
  },
  api: { args: () => ['api', 'GET', '/api/projects/{project_id}/persons/', '--field', 'limit=1'], code: 0, line: /"results"/ },
  // Serves until stopped: started and stopped as a child in sandbox-ready.test.ts.
  sandbox: { args: () => ['sandbox', '--persons', 'many'], code: 2, line: /--persons/ },
  // Serves on stdin until it ends: here it ends at once.
  mcp: { args: () => ['mcp'], code: 0, line: /hogctl mcp: serving \d+ tools/ },
  'mcp config': { args: () => ['mcp', 'config', '--client', 'claude'], code: 0, line: /"mcpServers"/ },
  demo: { args: () => ['demo', '--persons', '20'], code: 0, line: /a local PostHog sandbox is running/ },
  completion: { args: () => ['completion', 'bash'], code: 0, line: /complete -F/ },
  help: { args: () => ['help', 'exit-codes'], code: 0, line: /^Exit codes$/m },
};

describe('every verb of the command tree', () => {
  it('has one smoke line here', async () => {
    expect(Object.keys(SMOKE).sort()).toEqual((await verbsOfTheProgram()).sort());
  });
});

describe('each verb run by the built binary', () => {
  for (const [verb, smoke] of Object.entries(SMOKE)) {
    it(`hogctl ${verb}`, async () => {
      const args = smoke.args();
      const res = await world.run(args, smoke.options?.());
      const shown = `hogctl ${args.join(' ')}\n--- stdout\n${res.stdout}\n--- stderr\n${res.stderr}`;
      expect(res.code, shown).toBe(smoke.code);
      expect(`${res.stdout}\n${res.stderr}`, shown).toMatch(smoke.line);
      if (verb === 'users 2fa start') secret = JSON.parse(res.stdout).secret;
      if (verb === 'evidence export-key') evidenceKey = res.stdout.trim();
      if (verb === 'persons duplicates') duplicateGroups = res.stdout;
    });
  }
});
