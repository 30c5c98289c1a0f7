// `npm run bench`: measures hogctl against baselines side by side in one run and prints ratios.
// Runs alternate between the contenders so that machine noise hits both alike. Each section can
// be run alone: `node scripts/bench.mjs startup list verify export emails update ingest memory merge subject events`
// (`bulk` includes `windows`).
import { spawn } from 'node:child_process';
import { closeSync, cpSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../bin/hogctl.cjs', import.meta.url));
const RSS = fileURLToPath(new URL('./max-rss.mjs', import.meta.url));
const wanted = new Set(process.argv.slice(2));
const want = (name) => wanted.size === 0 || wanted.has(name);

function run(cmd, args, { env = {}, stdin = '' } = {}) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let lines = 0;
    child.stdout.on('data', (d) => {
      for (let i = d.indexOf(10); i !== -1; i = d.indexOf(10, i + 1)) lines++;
      if (stdout.length < 1_000_000) stdout += d;
    });
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const rss = /max-rss-kib=(\d+)/.exec(stderr);
      resolve({ code, ms, stdout, stderr, lines, rssMiB: rss ? Number(rss[1]) / 1024 : undefined });
    });
    child.stdin.end(stdin);
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (n, d = 1) => n.toFixed(d);

/**
 * Runs the baseline and the contender `rounds` times, alternately, and returns their median wall
 * times and the median of the per-round ratios. Each round's pair runs back to back, so the
 * paired ratio cancels the machine's load as it drifts over the run, which a ratio of medians
 * does not.
 */
async function pairedRatio(baseline, contender, rounds) {
  const base = [];
  const cli = [];
  for (let r = 0; r < rounds; r++) {
    for (const [c, times] of [
      [baseline, base],
      [contender, cli],
    ]) {
      const res = await c.run();
      if (res.code !== 0) throw new Error(`${c.name} exited ${res.code}: ${res.stderr.slice(0, 500)}`);
      times.push(res.ms);
    }
  }
  return { base: median(base), cli: median(cli), ratio: median(cli.map((ms, i) => ms / base[i])) };
}

export async function startSandbox(args) {
  const { child, info } = await spawnSandbox(args);
  return { ...info, stop: () => child.kill('SIGTERM') };
}

/** `hogctl sandbox` on a free port (node started with `nodeArgs`), once it has printed its ready
 * line: that line parsed, with `env`; `stderr()` is what it has written there so far. */
async function spawnSandbox(args, nodeArgs = []) {
  const child = spawn(process.execPath, [...nodeArgs, BIN, 'sandbox', '--port', '0', '--quiet', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
  const line = await new Promise((resolve, reject) => {
    let buf = '';
    child.stdout.on('data', (d) => {
      buf += d;
      const nl = buf.indexOf('\n');
      if (nl >= 0) resolve(buf.slice(0, nl));
    });
    child.on('exit', (code) => reject(new Error(`sandbox exited ${code}: ${stderr.slice(-500)}`)));
  });
  const info = JSON.parse(line);
  return { child, info: { ...info, env: sandboxEnv(info) }, stderr: () => stderr };
}

/** The variables that point hogctl at a sandbox (its ready line), with its config in `configDir`. */
function sandboxEnv(info) {
  return (configDir) => ({
    HOGCTL_BASE_URL: info.url,
    HOGCTL_PROJECT_ID: String(info.project_id),
    HOGCTL_API_KEY: info.api_key,
    HOGCTL_CONFIG_DIR: configDir,
  });
}

async function benchStartup() {
  const node = { name: 'node -e 0', run: () => run(process.execPath, ['-e', '0']) };
  const cases = [
    ['--version', ['--version']],
    ['--help', ['--help']],
    ['completion bash', ['completion', 'bash']],
  ];
  const rounds = 21;
  console.log(
    `\n## start-up (${rounds} rounds, each running node -e 0 and hogctl back to back; median times, median of the rounds' ratios; targets: 1.3x for help, version and completion, 1.5x for persons get)`,
  );
  for (const [label, args] of cases) {
    const { base, cli, ratio } = await pairedRatio(node, { name: label, run: () => run(process.execPath, [BIN, ...args]) }, rounds);
    console.log(`hogctl ${label.padEnd(16)} ${fmt(cli)} ms   node -e 0 ${fmt(base)} ms   ratio ${fmt(ratio, 2)}x`);
  }
  // A whole request command: settings, HTTP client, one GET, output.
  const sandbox = await startSandbox(['--persons', '100']);
  try {
    const env = sandbox.env('/nonexistent-hogctl-bench');
    const getPerson =
      (bin, extraEnv = {}) =>
      () =>
        run(process.execPath, [bin, 'persons', 'get', '1', '-o', 'json'], { env: { ...env, ...extraEnv } });
    const { base, cli, ratio } = await pairedRatio(node, { name: 'persons get', run: getPerson(BIN) }, rounds);
    console.log(`hogctl ${'persons get 1'.padEnd(16)} ${fmt(cli)} ms   node -e 0 ${fmt(base)} ms   ratio ${fmt(ratio, 2)}x`);
    // node reads the certificates NODE_EXTRA_CA_CERTS names as it starts, before any code runs; on
    // a machine that sets it for every process, bare node's time is mostly that, and the ratios
    // above are smaller than they would be elsewhere. The same pair without it:
    if (process.env.NODE_EXTRA_CA_CERTS) {
      const bare = { NODE_EXTRA_CA_CERTS: undefined };
      const plain = await pairedRatio(
        { name: 'node -e 0', run: () => run(process.execPath, ['-e', '0'], { env: bare }) },
        { name: 'persons get', run: getPerson(BIN, bare) },
        rounds,
      );
      console.log(
        `hogctl ${'persons get 1'.padEnd(16)} ${fmt(plain.cli)} ms   node -e 0 ${fmt(plain.base)} ms   ratio ${fmt(plain.ratio, 2)}x without NODE_EXTRA_CA_CERTS (set here: node -e 0 reads its certificates first)`,
      );
    }
    // What the shipped V8 code caches of the CLI and undici save (scripts/bundle/README.md): the
    // same command, run from a copy of the package without them.
    const copy = mkdtempSync(join(tmpdir(), 'hogctl-bench-'));
    try {
      for (const part of ['bin', 'dist', 'package.json'])
        cpSync(fileURLToPath(new URL(`../${part}`, import.meta.url)), join(copy, part), { recursive: true });
      rmSync(join(copy, 'dist/undici.cjs.cache'));
      rmSync(join(copy, 'dist/main.cjs.cache'));
      const cache = await pairedRatio(
        { name: 'without the code cache', run: getPerson(join(copy, 'bin/hogctl.cjs')) },
        { name: 'with the code cache', run: getPerson(BIN) },
        rounds,
      );
      console.log(
        `hogctl ${'persons get 1'.padEnd(16)} ${fmt(cache.cli)} ms with the shipped code caches, ${fmt(cache.base)} ms without   ratio ${fmt(cache.ratio, 2)}x`,
      );
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  } finally {
    sandbox.stop();
  }
}

async function benchList() {
  const persons = 100_000;
  const sandbox = await startSandbox(['--persons', String(persons)]);
  const env = sandbox.env('/nonexistent-hogctl-bench');
  const pageSize = 1000;
  // The baseline: the least a client can do, a bare undici loop fetching the same pages and
  // writing each person as a JSON line, in its own process like the CLI.
  const bare = `
    import { request, Agent } from 'undici';
    const agent = new Agent({ keepAliveTimeout: 10000 });
    let url = process.env.HOGCTL_BASE_URL + '/api/projects/' + process.env.HOGCTL_PROJECT_ID + '/persons/?limit=${pageSize}';
    let rows = 0;
    while (url) {
      const res = await request(url, { dispatcher: agent, headers: { authorization: 'Bearer ' + process.env.HOGCTL_API_KEY } });
      const page = await res.body.json();
      if (!page.results.length) break;
      let out = '';
      for (const p of page.results) out += JSON.stringify(p) + '\\n';
      if (!process.stdout.write(out)) await new Promise((r) => process.stdout.once('drain', r));
      rows += page.results.length;
      url = page.next;
    }
    await agent.close();
  `;
  const cliRun = () =>
    run(process.execPath, ['--import', RSS, BIN, 'persons', 'list', '--all', '-o', 'ndjson', '--page-size', String(pageSize)], { env });
  const bareRun = () => run(process.execPath, ['--import', RSS, '--input-type=module', '-e', bare], { env: { ...env, NODE_PATH: '' } });
  try {
    const rows = (await cliRun()).lines;
    console.log(
      `\n## persons list --all -o ndjson over ${persons.toLocaleString('en')} sandbox persons (page size ${pageSize}, median of 3 interleaved runs)`,
    );
    const cli = [];
    const base = [];
    for (let r = 0; r < 3; r++) {
      cli.push(await cliRun());
      base.push(await bareRun());
    }
    for (const res of [...cli, ...base]) if (res.code !== 0) throw new Error(`list run failed: ${res.stderr.slice(0, 500)}`);
    const cliMs = median(cli.map((r) => r.ms));
    const baseMs = median(base.map((r) => r.ms));
    const peak = Math.max(...cli.map((r) => r.rssMiB ?? 0));
    console.log(`hogctl        ${fmt(cliMs, 0)} ms   ${fmt(rows / (cliMs / 1000), 0)} rows/s   peak memory ${fmt(peak)} MiB`);
    console.log(
      `bare undici   ${fmt(baseMs, 0)} ms   ${fmt(rows / (baseMs / 1000), 0)} rows/s   peak memory ${fmt(Math.max(...base.map((r) => r.rssMiB ?? 0)))} MiB`,
    );
    console.log(`ratio         ${fmt(cliMs / baseMs, 2)}x the bare loop (target ≤ 1.3x), rows ${rows} of ${persons}`);
  } finally {
    sandbox.stop();
  }
}

/** Each person's uuid and first distinct id, read page by page with a bare loop. */
async function sandboxPersons(sandbox, count) {
  const { request } = await import('undici');
  const out = [];
  for (let offset = 0; offset < count; offset += 1000) {
    const res = await request(
      `${sandbox.url}/api/projects/${sandbox.project_id}/persons/?limit=${Math.min(1000, count - offset)}&offset=${offset}`,
      { headers: { authorization: `Bearer ${sandbox.api_key}` } },
    );
    const page = await res.body.json();
    for (const p of page.results) out.push({ uuid: p.uuid, distinctId: p.distinct_ids[0] });
  }
  return out;
}

async function sandboxRequests(sandbox) {
  const { request } = await import('undici');
  return (await request(`${sandbox.url}/_sandbox/requests`)).body.json();
}

/**
 * What looking the persons up cost a run by distinct ids: its time beyond the same deletion by
 * person UUIDs, and the batch_by_distinct_ids reads it made (from the sandbox's request log).
 */
function lookupCost(byDistinctId, byUuid) {
  const reads = byDistinctId.requests.filter((r) => r.path.endsWith('/batch_by_distinct_ids/')).length;
  return `${fmt((byDistinctId.res.ms - byUuid.res.ms) / 1000, 1)} s more than by UUIDs (${reads} batch_by_distinct_ids reads)`;
}

async function benchBulk() {
  const dir = mkdtempSync(join(tmpdir(), 'hogctl-bench-bulk-'));
  const count = 100_000;
  const single = 2_000;
  const limit = 600;
  const env = (sandbox) => sandbox.env(dir);
  const bulk = async (sandbox, name, ids, rate, idKind = '--distinct-ids') => {
    const file = join(dir, `${name}.txt`);
    writeFileSync(file, `${ids.join('\n')}\n`);
    const res = await run(
      process.execPath,
      // A run by distinct ids looks the persons up first (batch_by_distinct_ids), so that the
      // receipt names them by UUID. These sandboxes limit no reads, and hogctl is told so, as
      // --rate tells it the delete limit; at PostHog Cloud's 240 reads a minute the lookup of
      // 100,000 ids alone takes about two minutes.
      [
        BIN,
        'persons',
        'bulk-delete',
        '--file',
        file,
        ...(idKind ? [idKind] : []),
        '--rate',
        String(rate),
        '--read-rate',
        '1000000',
        '--no-verify',
        '-y',
        '-q',
        '-o',
        'json',
      ],
      { env: env(sandbox) },
    );
    if (res.code !== 0) throw new Error(`bulk-delete exited ${res.code}: ${res.stderr.slice(0, 500)}`);
    const summary = JSON.parse(res.stdout);
    if (summary.persons_deleted !== ids.length) throw new Error(`bulk-delete deleted ${summary.persons_deleted} of ${ids.length}`);
    return res;
  };
  // --no-verify: the deletion alone. The verification afterwards reads 200 persons a request at
  // --read-rate (240 a minute by default, PostHog Cloud's), about two minutes for 100,000 persons
  // whatever the deletion took, and the one-DELETE-per-person baseline checks nothing either.
  // Each line compares the deletion alone: a run by person UUIDs. A run by distinct ids first
  // looks the persons up (batch_by_distinct_ids, 200 ids a read) so that its journal and receipt
  // name them by UUID; what that lookup costs is reported beside, as the same run by distinct ids.
  console.log(
    `\n## persons bulk-delete of ${count.toLocaleString('en')} persons (one run each; the sandbox is a separate process; --no-verify: deletion only)`,
  );
  try {
    // 1. Against the server's limit: hogctl is told the limit with --rate and should use it all.
    // One sandbox a run, so that the second does not start in a window the first used up.
    const limitedRun = async (name, idOf, idKind) => {
      const limited = await startSandbox(['--persons', String(count), '--rate-limit', `delete=${limit},read=off`]);
      try {
        const ids = (await sandboxPersons(limited, count)).map(idOf);
        const res = await bulk(limited, name, ids, limit, idKind);
        return { res, requests: await sandboxRequests(limited) };
      } finally {
        limited.stop();
      }
    };
    const byUuid = await limitedRun('limited-uuids', (p) => p.uuid, '');
    const deletes = byUuid.requests.filter((r) => r.path.endsWith('/bulk_delete/'));
    const at = deletes.map((r) => r.at);
    const perMinute = ((deletes.length - 1) / (Math.max(...at) - Math.min(...at))) * 60_000;
    const throttled = deletes.filter((r) => r.status === 429).length;
    console.log(
      `sandbox limit ${limit}/min, --rate ${limit}, person UUIDs: ${deletes.length} requests (${throttled} answered 429) at ${fmt(perMinute, 0)} requests/min while sending = ${fmt(perMinute / limit, 2)} of the limit (target ≥ 0.9); ${fmt(byUuid.res.ms / 1000, 1)} s end to end`,
    );
    const byDistinctId = await limitedRun('limited', (p) => p.distinctId, '--distinct-ids');
    console.log(
      `  the same by distinct ids: ${fmt(byDistinctId.res.ms / 1000, 1)} s, of which the lookup ${lookupCost(byDistinctId, byUuid)}`,
    );

    // 2. No limit: how fast the deletion alone is (by person UUIDs), and how much faster than one
    // DELETE per person; beside it, the same by distinct ids, which looks the persons up first.
    const free = await startSandbox(['--persons', String(2 * count + single)]);
    try {
      const persons = await sandboxPersons(free, 2 * count + single);
      const freeByDistinctId = await bulk(
        free,
        'free',
        persons.slice(0, count).map((p) => p.distinctId),
        1_000_000,
      );
      const freeByUuid = await bulk(
        free,
        'free-uuids',
        persons.slice(count, 2 * count).map((p) => p.uuid),
        1_000_000,
        '',
      );
      // The baseline: a bare undici loop deleting persons one request at a time, in its own process.
      const bare = `
        import { request, Agent } from 'undici';
        const agent = new Agent({ keepAliveTimeout: 10000 });
        let input = '';
        for await (const chunk of process.stdin) input += chunk;
        const base = process.env.HOGCTL_BASE_URL + '/api/projects/' + process.env.HOGCTL_PROJECT_ID + '/persons/';
        for (const uuid of input.trim().split('\\n')) {
          const res = await request(base + uuid + '/', { method: 'DELETE', dispatcher: agent, headers: { authorization: 'Bearer ' + process.env.HOGCTL_API_KEY } });
          await res.body.dump();
          if (res.statusCode !== 202 && res.statusCode !== 204) throw new Error('DELETE answered ' + res.statusCode);
        }
        await agent.close();
      `;
      const one = await run(process.execPath, ['--input-type=module', '-e', bare], {
        env: env(free),
        stdin: persons
          .slice(2 * count)
          .map((p) => p.uuid)
          .join('\n'),
      });
      if (one.code !== 0) throw new Error(`one-by-one DELETE loop failed: ${one.stderr.slice(0, 500)}`);
      const state = await (await import('undici')).request(`${free.url}/_sandbox/state`).then((r) => r.body.json());
      const uuidRate = count / (freeByUuid.ms / 1000);
      const oneRate = single / (one.ms / 1000);
      console.log(
        `no limit, person UUIDs: hogctl ${fmt(freeByUuid.ms / 1000, 1)} s = ${fmt(uuidRate, 0)} ids/s end to end (--concurrency 4)`,
      );
      console.log(
        `  the same by distinct ids: ${fmt(freeByDistinctId.ms / 1000, 1)} s, of which the lookup ${lookupCost({ res: freeByDistinctId, requests: await sandboxRequests(free) }, { res: freeByUuid })}`,
      );
      console.log(
        `one DELETE /persons/:id/ at a time: ${single.toLocaleString('en')} in ${fmt(one.ms / 1000, 1)} s = ${fmt(oneRate, 0)} ids/s, so ${fmt((one.ms * count) / single / 1000, 0)} s for ${count.toLocaleString('en')}`,
      );
      console.log(
        `speedup ${fmt(uuidRate / oneRate, 1)}x over one DELETE per person, the deletion alone (sandbox persons left: ${state.persons})`,
      );
    } finally {
      free.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** "1m02s", "2h05m", "45s" (the plan's formatDuration) in ms. */
function parseDuration(text) {
  const m = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(text);
  return m ? ((Number(m[1] ?? 0) * 60 + Number(m[2] ?? 0)) * 60 + Number(m[3] ?? 0)) * 1000 : NaN;
}

/**
 * PostHog's two delete windows (480/minute + 4800/hour, per key) scaled down so that the long
 * one binds within a minute: how much of the sustained budget hogctl uses over a run that crosses
 * the long window three times, whether it provokes any 429, and how close the plan's estimate is.
 * The run passes --no-verify: this measures the pacing of deletes, which the plan estimates; the
 * verification afterwards reads every id at the read rate (240 a minute) and would add minutes
 * the estimate does not cover.
 */
async function benchWindows() {
  const [{ mkdtempSync, writeFileSync, rmSync }, { tmpdir }, { join }, { randomUUID }] = await Promise.all([
    import('node:fs'),
    import('node:os'),
    import('node:path'),
    import('node:crypto'),
  ]);
  const dir = mkdtempSync(join(tmpdir(), 'hogctl-bench-windows-'));
  const burst = { limit: 8, windowMs: 1000 };
  const sustained = { limit: 80, windowMs: 20_000 };
  const requests = 250;
  const spec = `${burst.limit}/1s,${sustained.limit}/${sustained.windowMs / 1000}s`;
  const sandbox = await startSandbox(['--persons', '10', '--rate-limit', `delete=${spec},read=off`]);
  try {
    // Ids that match no person: the server answers them the same way and the pacing is the point.
    const file = join(dir, 'ids.txt');
    writeFileSync(file, Array.from({ length: requests * 1000 }, () => randomUUID()).join('\n'));
    const env = sandbox.env(dir);
    console.log(
      `\n## persons bulk-delete under two delete windows scaled down (sandbox delete=${spec}, --rate ${spec}; ${requests} requests; --no-verify: deletion pacing only)`,
    );
    const res = await run(
      process.execPath,
      [BIN, 'persons', 'bulk-delete', '--file', file, '--rate', spec, '--no-verify', '-y', '-o', 'json'],
      { env },
    );
    if (res.code !== 0) throw new Error(`bulk-delete exited ${res.code}: ${res.stderr.slice(0, 500)}`);
    const sent = (await sandboxRequests(sandbox)).filter((r) => r.path.endsWith('/bulk_delete/'));
    const throttled = sent.filter((r) => r.status === 429).length;
    const at = sent.map((r) => r.at).sort((a, b) => a - b);
    // The sustained window allows `limit` requests in any `windowMs`: over the whole windows the
    // run spans, from its first request, the most it could send is windows × limit.
    const windows = Math.floor((at.at(-1) - at[0]) / sustained.windowMs);
    const inWindows = at.filter((t) => t < at[0] + windows * sustained.windowMs).length;
    const share = inWindows / (windows * sustained.limit);
    const estimate = /estimated time about (\S+)/.exec(res.stderr)?.[1];
    const estimateMs = parseDuration(estimate ?? '');
    const error = (estimateMs - res.ms) / res.ms;
    console.log(`${sent.length} requests (${throttled} answered 429), crossing the ${sustained.windowMs / 1000} s window ${windows} times`);
    console.log(
      `sustained budget used: ${inWindows} requests in the first ${windows} windows of ${sustained.windowMs / 1000} s = ${fmt(share, 3)} of ${windows} × ${sustained.limit} (target ≥ 0.95, no 429)`,
    );
    console.log(
      `plan's estimate ${estimate} vs measured ${fmt(res.ms / 1000, 1)} s end to end, without the verification afterwards (--no-verify): error ${fmt(error * 100, 1)}% (target within 10%)`,
    );
  } finally {
    sandbox.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The verification of 2,000,000 ids that name no one (a plain file of UUIDs), against a sandbox
 * whose delete windows and read limit are PostHog's (480/minute + 4800/hour, 240 reads/minute)
 * sped up 18 times (the sustained delete rate: 4,800/h = 1.33/s → 24/s). bulk_delete answers
 * every request with persons_found 0, so nothing needs reading back; before, each id was read
 * back (10,000 reads of 200: 42 minutes at 240/minute). Prints the plan's estimate of the whole
 * run (its verification included) against the measured time, and the verification's own time
 * and reads.
 */
async function benchVerify() {
  const [{ mkdtempSync, writeFileSync, rmSync }, { tmpdir }, { join }, { randomUUID }] = await Promise.all([
    import('node:fs'),
    import('node:os'),
    import('node:path'),
    import('node:crypto'),
  ]);
  const dir = mkdtempSync(join(tmpdir(), 'hogctl-bench-verify-'));
  const scale = 18;
  const ids = 2_000_000;
  const deleteSpec = `${(480 * scale) / 60}/1s,${(4800 * scale) / 60}/60s`;
  const readsPerMinute = 240 * scale;
  // Each bulk_delete is answered after the 500 ms the plan assumes of a request (ASSUMED_REQUEST_MS
  // in src/bulk/engine/plan.ts): the sandbox answers in a few ms, which measured its speed, not the plan's.
  const sandbox = await startSandbox([
    '--persons',
    '10',
    '--rate-limit',
    `delete=${deleteSpec},read=${readsPerMinute}`,
    '--faults',
    'slow=1@500,path=bulk_delete',
  ]);
  try {
    const file = join(dir, 'unknown.txt');
    writeFileSync(file, Array.from({ length: ids }, () => randomUUID()).join('\n'));
    const env = sandbox.env(dir);
    console.log(
      `\n## persons bulk-delete of 2,000,000 unknown ids, verification included (sandbox delete=${deleteSpec}, read=${readsPerMinute}/min: PostHog's limits ${scale}x faster; each bulk_delete answered after 500 ms)`,
    );
    // Each stderr line with the time it came: the plan, the verification's start and its end.
    const at = {};
    const startedAt = Date.now();
    const child = spawn(
      process.execPath,
      [
        BIN,
        'persons',
        'bulk-delete',
        '--file',
        file,
        '--rate',
        deleteSpec,
        '--read-rate',
        String(readsPerMinute),
        '--concurrency',
        '16',
        '-y',
        '-o',
        'json',
      ],
      { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += d;
      const now = Date.now();
      if (!at.plan && stderr.includes('\n  receipt ')) at.plan = now;
      if (!at.verifying && stderr.includes('verifying: ')) at.verifying = now;
      if (!at.verified && /✔ verified|cannot verify/.test(stderr)) at.verified = now;
    });
    const code = await new Promise((resolve) => child.on('close', resolve));
    const endedAt = Date.now();
    if (code !== 0) throw new Error(`bulk-delete exited ${code}: ${stderr.slice(-500)}`);
    const requests = await sandboxRequests(sandbox);
    const deletes = requests.filter((r) => r.path.endsWith('/bulk_delete/')).length;
    const reads = requests.filter((r) => r.path.endsWith('/batch_by_uuids/') && r.at > startedAt).length;
    const verifyMs = at.verified - at.verifying;
    const runMs = endedAt - at.plan;
    const total = /estimated time in all about (\S+)/.exec(stderr)?.[1];
    const sending = /estimated time about (\S+)/.exec(stderr)?.[1];
    const verifyLine = /\n  verify\s+(.*)/.exec(stderr)?.[1] ?? '';
    const estimateMs = parseDuration(total ?? '');
    const error = (estimateMs - runMs) / runMs;
    const oldReads = Math.ceil(ids / 200);
    console.log(`plan: sending about ${sending}; verify: ${verifyLine}`);
    console.log(
      `${deletes} bulk_delete requests, then the verification: ${reads} reads in ${fmt(verifyMs / 1000, 1)} s (reading every id back would be ${oldReads.toLocaleString('en')} reads: ${fmt((oldReads / readsPerMinute) * 60, 0)} s at this scale, ${fmt(oldReads / 240, 0)} min at PostHog's 240/min)`,
    );
    console.log(
      `the verification time of 2 M unknown ids: plan's estimate of the run, verification included, ${total} vs measured ${fmt(runMs / 1000, 1)} s from the plan to the end (reading the 2 M ids before the plan took ${fmt((at.plan - startedAt) / 1000, 1)} s): error ${fmt(error * 100, 1)}% (target within 10%)`,
    );
  } finally {
    sandbox.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * An export of 1,000,000 persons with `persons query --all` from a sandbox whose HogQL limit is
 * scaled down (4 queries per 40 s for the legacy 120 an hour): the first run stops at a wait past
 * --max-wait and prints its cursor; after the window, --after continues there, waiting out the
 * limit as it goes. Every row must come out once, in at most 21 queries.
 */
async function benchExport() {
  const persons = 1_000_000;
  const [{ mkdtempSync, rmSync }, { tmpdir }, { join }] = await Promise.all([import('node:fs'), import('node:os'), import('node:path')]);
  const dir = mkdtempSync(join(tmpdir(), 'hogctl-bench-export-'));
  const sandbox = await startSandbox(['--persons', String(persons), '--rate-limit', 'query=4/40s']);
  const env = sandbox.env(dir);
  const query = 'SELECT id FROM persons';
  // Collects ids only (the run helper keeps the first MB of stdout for error messages). The CSV
  // header comes once, from the first run: a continuation (--after) prints none, so the two
  // outputs appended are one CSV.
  const ids = new Set();
  let rows = 0;
  let header = true;
  const exportRun = (args) =>
    new Promise((resolve, reject) => {
      const started = process.hrtime.bigint();
      const child = spawn(process.execPath, ['--import', RSS, BIN, 'persons', 'query', query, '--all', '-o', 'csv', ...args], {
        env: { ...process.env, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let rest = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (d) => {
        const lines = (rest + d).split('\n');
        rest = lines.pop();
        for (const line of lines) {
          if (header) header = false;
          else {
            rows++;
            ids.add(line);
          }
        }
      });
      child.stderr.on('data', (d) => (stderr += d));
      child.on('error', reject);
      child.on('close', (code) => {
        const rss = /max-rss-kib=(\d+)/.exec(stderr);
        resolve({ code, stderr, ms: Number(process.hrtime.bigint() - started) / 1e6, rssMiB: rss ? Number(rss[1]) / 1024 : undefined });
      });
    });
  try {
    console.log(
      `\n## persons query --all export of ${persons.toLocaleString('en')} persons under a scaled HogQL limit (sandbox query=4/40s), interrupted once and continued with --after`,
    );
    const first = await exportRun(['--max-wait', '5s']);
    const cursor = /--after (\S+)$/m.exec(first.stderr)?.[1];
    if (first.code !== 6 || !cursor)
      throw new Error(`the first run should stop at the limit with a cursor: exit ${first.code}: ${first.stderr.slice(-500)}`);
    const firstRows = rows;
    // "Resume then": after the window the server named.
    await new Promise((r) => setTimeout(r, 40_000));
    const second = await exportRun(['--after', cursor]);
    if (second.code !== 0) throw new Error(`the continuation exited ${second.code}: ${second.stderr.slice(-500)}`);
    if (ids.has('id')) throw new Error('the continuation printed a second CSV header');
    const waits = (second.stderr.match(/^rate-limited by the server/gm) ?? []).length;
    const posts = (await sandboxRequests(sandbox)).filter((r) => r.path.endsWith('/query/'));
    const ran = posts.filter((r) => r.status === 200).length;
    console.log(
      `first run: ${firstRows.toLocaleString('en')} rows, stopped at a wait past --max-wait 5s (exit 6) and printed its cursor; ${fmt(first.ms / 1000, 1)} s`,
    );
    console.log(
      `continued with --after: ${(rows - firstRows).toLocaleString('en')} rows, ${waits} waits for the limit; ${fmt(second.ms / 1000, 1)} s`,
    );
    console.log(
      `rows ${rows.toLocaleString('en')}, unique ${ids.size.toLocaleString('en')} of ${persons.toLocaleString('en')} (target: every row once); queries run ${ran} (target ≤ 21), refused with 429 ${posts.length - ran}`,
    );
    console.log(
      `peak memory ${fmt(Math.max(first.rssMiB ?? 0, second.rssMiB ?? 0))} MiB (50,000-row pages; constant in the number of rows)`,
    );
  } finally {
    sandbox.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function benchEmails() {
  const persons = 20_000;
  const dir = mkdtempSync(join(tmpdir(), 'hogctl-bench-emails-'));
  const sandbox = await startSandbox(['--persons', String(persons)]);
  const env = sandbox.env(dir);
  try {
    const listed = await run(process.execPath, [BIN, 'persons', 'list', '--all', '--fields', 'properties.email', '-o', 'csv'], { env });
    const known = listed.stdout
      .split('\n')
      .slice(1)
      .filter((l) => l.includes('@'))
      .slice(0, 9_800);
    const unknown = Array.from({ length: 10_000 - known.length }, (_, i) => `nobody${i}@example.org`);
    const file = join(dir, 'erasure.txt');
    writeFileSync(file, `${[...known, ...unknown].join('\n')}\n`);
    const before = (await sandboxRequests(sandbox)).length;
    const res = await run(process.execPath, [BIN, 'persons', 'bulk-delete', '--emails', file, '--dry-run', '-o', 'json'], {
      env,
    });
    if (res.code !== 0) throw new Error(`bulk-delete --emails exited ${res.code}: ${res.stderr.slice(-500)}`);
    const queries = (await sandboxRequests(sandbox)).slice(before).filter((r) => r.path.endsWith('/query/')).length;
    const unmatched = JSON.parse(res.stdout).unresolved;
    console.log(
      `\n## persons bulk-delete --emails: finding the persons of 10,000 e-mail addresses (${known.length.toLocaleString('en')} known, ${unknown.length} unknown) among ${persons.toLocaleString('en')} sandbox persons (dry run)`,
    );
    console.log(
      `${queries} HogQL queries (target ≤ 20) against 10,000 list requests for one per address: ${fmt(10_000 / queries, 0)}x fewer requests (target ≥ 500x); ${unmatched} addresses named no one; ${fmt(res.ms / 1000, 1)} s end to end`,
    );
  } finally {
    sandbox.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * persons bulk-update: one property set and two unset on 100,000 persons chosen by --where, through
 * capture, against the same change through the REST API (--via api), paced as PostHog paces a
 * personal key (240 person requests a minute, three requests a person). The REST run is measured on
 * 2,000 persons with the budget scaled up ten times on both sides, then scaled back: it is bound by
 * the pacing, not by the requests' own time. Neither run reads the persons back (--no-verify): that
 * read costs both the same.
 */
async function benchUpdate() {
  const [{ mkdtempSync, rmSync }, { tmpdir }, { join }] = await Promise.all([import('node:fs'), import('node:os'), import('node:path')]);
  const dir = mkdtempSync(join(tmpdir(), 'hogctl-bench-update-'));
  const change = ['--where', 'plan=free', '--set', 'plan=starter', '--unset', 'country', '--unset', 'sessions', '-y', '--no-verify'];
  const env = (sandbox, name) => sandbox.env(join(dir, name));
  // No seeded event history: the first captured event makes the sandbox seed 570,000 past events
  // (HogQL's events table), which took its own CPU from 4 to 9 s of this run and slowed every
  // capture answer; the change being measured reads and writes persons only.
  const capture = await startSandbox(['--persons', '190000', '--events-per-person', '0']);
  let viaCapture;
  try {
    const res = await run(process.execPath, [BIN, 'persons', 'bulk-update', ...change, '-o', 'json'], { env: env(capture, 'capture') });
    if (res.code !== 0) throw new Error(`bulk-update exited ${res.code}: ${res.stderr.slice(-500)}`);
    const persons = JSON.parse(res.stdout).sent;
    const requests = (await sandboxRequests(capture)).filter((r) => r.path === '/batch/').length;
    viaCapture = { persons, requests, ms: res.ms };
  } finally {
    capture.stop();
  }
  const scale = 10;
  const rest = await startSandbox(['--persons', '3400', '--rate-limit', `read=${240 * scale}`]);
  let viaApi;
  try {
    const res = await run(
      process.execPath,
      [BIN, 'persons', 'bulk-update', ...change, '--via', 'api', '--rate', `${(240 * scale) / 3}/min`, '-o', 'json'],
      {
        env: env(rest, 'api'),
      },
    );
    if (res.code !== 0) throw new Error(`bulk-update --via api exited ${res.code}: ${res.stderr.slice(-500)}`);
    const persons = JSON.parse(res.stdout).sent;
    const throttled = (await sandboxRequests(rest)).filter((r) => r.status === 429).length;
    viaApi = { persons, ms: res.ms, throttled };
  } finally {
    rest.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  const apiFor100k = (viaApi.ms * scale * viaCapture.persons) / viaApi.persons;
  console.log(`\n## persons bulk-update: one property set and two unset, --where plan=free`);
  console.log(
    `capture       ${viaCapture.persons.toLocaleString('en')} persons in ${fmt(viaCapture.ms / 1000, 1)} s, ${viaCapture.requests} /batch/ requests (${fmt((100 * viaCapture.requests) / viaCapture.persons, 2)}% of the persons; target ≤ 1%)`,
  );
  console.log(
    `--via api     ${viaApi.persons.toLocaleString('en')} persons in ${fmt(viaApi.ms / 1000, 1)} s at ${scale}x PostHog's budget (${viaApi.throttled} answered 429); at the real budget, ${viaCapture.persons.toLocaleString('en')} persons would take ${fmt(apiFor100k / 3_600_000, 1)} h`,
  );
  console.log(`ratio         capture is ${fmt(apiFor100k / viaCapture.ms, 0)}x faster (target ≥ 100x)`);
}

/** A file of `count` random UUIDs, one a line, written in slices. */
function writeUuids(file, count, randomUUID) {
  const fd = openSync(file, 'w');
  try {
    for (let i = 0; i < count; i += 100_000)
      writeSync(fd, `${Array.from({ length: Math.min(100_000, count - i) }, () => randomUUID()).join('\n')}\n`);
  } finally {
    closeSync(fd);
  }
}

/**
 * Peak memory (resident set) of persons bulk-delete over 1,000,000 and 10,000,000 person ids: a dry
 * run, and a run interrupted halfway with Ctrl-C then continued with --resume (--no-verify: the
 * deletion alone; the sandbox answers ids of no person as it answers real ones). Targets: at most
 * 512 MiB at 10,000,000, and a resume no larger than its run. The ten-million run and resume take
 * several minutes: `HOGCTL_BENCH_MEMORY_SIZES=1000000` measures the million alone. Then a dry run of
 * 1,000,000 e-mail addresses (--emails) and of a 1,000,000-row --values-from
 * (`HOGCTL_BENCH_MEMORY_INPUTS`, a list of sizes; empty: neither).
 */
async function benchMemory() {
  const { randomUUID } = await import('node:crypto');
  const dir = mkdtempSync(join(tmpdir(), 'hogctl-bench-memory-'));
  const sizes = (process.env.HOGCTL_BENCH_MEMORY_SIZES ?? '1000000,10000000').split(',').filter(Boolean).map(Number);
  const sandbox = await startSandbox(['--persons', '10']);
  const env = sandbox.env(dir);
  const mib = (r) => (r.rssMiB === undefined ? 'n/a' : `${fmt(r.rssMiB, 0)} MiB`);
  console.log(
    `\n## memory: persons bulk-delete over a file of person ids (peak resident set; targets: ≤ 512 MiB at 10,000,000 ids, a --resume no larger than its run)`,
  );
  try {
    for (const count of sizes) {
      const file = join(dir, `ids-${count}.txt`);
      writeUuids(file, count, randomUUID);
      const journal = join(dir, `ids-${count}.ndjson`);
      const bulk = (args) => ['--import', RSS, BIN, 'persons', 'bulk-delete', '--file', file, '--journal', journal, ...args];
      const dry = await run(process.execPath, bulk(['--dry-run', '-o', 'json']), { env });
      if (dry.code !== 0) throw new Error(`the dry run exited ${dry.code}: ${dry.stderr.slice(-500)}`);
      // Stopped with Ctrl-C once the journal names about half the ids (each is 39 bytes of a
      // `sending` line): the sandbox's log of requests is capped, so it cannot count them.
      const half = (count * 39) / 2;
      const first = await new Promise((resolve, reject) => {
        const started = process.hrtime.bigint();
        const child = spawn(process.execPath, bulk(['--rate', '100000/min', '--concurrency', '8', '--no-verify', '-y', '-o', 'json']), {
          env: { ...process.env, ...env },
          stdio: ['ignore', 'ignore', 'pipe'],
        });
        let stderr = '';
        child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-20_000)));
        const poll = setInterval(() => {
          let size = 0;
          try {
            size = statSync(journal).size;
          } catch {
            // not written yet
          }
          if (size >= half) {
            clearInterval(poll);
            child.kill('SIGINT');
          }
        }, 500);
        child.on('error', reject);
        child.on('close', (code) => {
          clearInterval(poll);
          const rss = /max-rss-kib=(\d+)/.exec(stderr);
          resolve({ code, stderr, ms: Number(process.hrtime.bigint() - started) / 1e6, rssMiB: rss ? Number(rss[1]) / 1024 : undefined });
        });
      });
      if (first.code !== 130 && first.code !== 0) throw new Error(`the run exited ${first.code}: ${first.stderr.slice(-500)}`);
      const resumed = await run(process.execPath, bulk(['--resume', '--no-verify', '-y', '-o', 'json']), { env });
      if (resumed.code !== 0) throw new Error(`the resume exited ${resumed.code}: ${resumed.stderr.slice(-500)}`);
      const summary = JSON.parse(resumed.stdout);
      if (summary.sent !== count) throw new Error(`the resume accounts for ${summary.sent} of ${count} ids`);
      const receipt = statSync(join(dir, `ids-${count}.receipt.json`)).size;
      console.log(
        `${count.toLocaleString('en').padStart(10)} ids: dry run ${mib(dry)} (${fmt(dry.ms / 1000, 1)} s); run ${mib(first)} (stopped at half, ${fmt(first.ms / 1000, 1)} s); --resume ${mib(resumed)} (${fmt(resumed.ms / 1000, 1)} s); receipt ${fmt(receipt / 2 ** 20, 0)} MiB`,
      );
      rmSync(file);
    }
    // The other inputs that can be millions long: e-mail addresses (each looked up, even in a dry
    // run) and a file of per-person values for bulk-update.
    for (const count of (process.env.HOGCTL_BENCH_MEMORY_INPUTS ?? '1000000').split(',').filter(Boolean).map(Number)) {
      const emails = join(dir, `emails-${count}.txt`);
      const fd = openSync(emails, 'w');
      try {
        for (let i = 0; i < count; i += 100_000)
          writeSync(fd, `${Array.from({ length: Math.min(100_000, count - i) }, (_, k) => `nobody${i + k}@example.org`).join('\n')}\n`);
      } finally {
        closeSync(fd);
      }
      const byEmail = await run(
        process.execPath,
        ['--import', RSS, BIN, 'persons', 'bulk-delete', '--emails', emails, '--read-rate', '1000000', '--dry-run', '-o', 'json'],
        { env },
      );
      if (byEmail.code !== 0) throw new Error(`bulk-delete --emails exited ${byEmail.code}: ${byEmail.stderr.slice(-500)}`);
      rmSync(emails);
      const values = join(dir, `values-${count}.ndjson`);
      const vd = openSync(values, 'w');
      try {
        for (let i = 0; i < count; i += 100_000)
          writeSync(
            vd,
            `${Array.from({ length: Math.min(100_000, count - i) }, (_, k) => JSON.stringify({ person_id: randomUUID(), plan: 'team', seats: (i + k) % 50 })).join('\n')}\n`,
          );
      } finally {
        closeSync(vd);
      }
      const perPerson = await run(
        process.execPath,
        ['--import', RSS, BIN, 'persons', 'bulk-update', '--values-from', values, '--read-rate', '1000000', '--dry-run', '-o', 'json'],
        { env },
      );
      if (perPerson.code !== 0) throw new Error(`bulk-update --values-from exited ${perPerson.code}: ${perPerson.stderr.slice(-500)}`);
      rmSync(values);
      console.log(
        `${count.toLocaleString('en').padStart(10)} addresses (--emails, dry run, none known): ${mib(byEmail)} (${fmt(byEmail.ms / 1000, 1)} s); rows of --values-from (bulk-update, dry run): ${mib(perPerson)} (${fmt(perPerson.ms / 1000, 1)} s)`,
      );
    }
  } finally {
    sandbox.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `hogctl sandbox` with its peak memory reported when it stops (`stop()` resolves to MiB). */
async function startMeasuredSandbox(args) {
  const { child, info, stderr } = await spawnSandbox(args, ['--import', RSS]);
  const stop = () =>
    new Promise((resolve) => {
      child.on('close', () => {
        const rss = /max-rss-kib=(\d+)/.exec(stderr());
        resolve(rss ? Number(rss[1]) / 1024 : NaN);
      });
      child.kill('SIGTERM');
    });
  return { ...info, stop };
}

async function sandboxState(sandbox) {
  const { request } = await import('undici');
  return (await request(`${sandbox.url}/_sandbox/state`)).body.json();
}

async function benchIngest() {
  const { PostHog } = await import('posthog-node');
  const events = 100_000;
  const users = 10_000;
  console.log(
    `\n## sandbox ingestion: ${events.toLocaleString('en')} events sent with posthog-node (4 clients), then a HogQL count over 1,000,000 events`,
  );
  const ingest = await startMeasuredSandbox(['--persons', '1000', '--events-per-person', '0', '--apply-delay', '0']);
  try {
    const { request } = await import('undici');
    const project = await request(`${ingest.url}/api/projects/${ingest.project_id}/`, {
      headers: { authorization: `Bearer ${ingest.api_key}` },
    });
    const token = (await project.body.json()).api_token;
    // Four clients, as four app servers would send: one alone waits on each request in turn.
    // Each has its own users, so the events of one distinct id stay in order.
    const clients = Array.from(
      { length: 4 },
      () => new PostHog(token, { host: ingest.url, flushAt: 100, flushInterval: 0, maxQueueSize: events + 1 }),
    );
    const started = process.hrtime.bigint();
    for (let i = 0; i < events; i++) {
      const user = i % users;
      const client = clients[user % clients.length];
      const distinctId = `bench-user-${user}`;
      if (i % 10 === 0) client.identify({ distinctId, properties: { email: `${distinctId}@example.com`, plan: i % 3 ? 'free' : 'team' } });
      else
        client.capture({
          distinctId,
          event: i % 4 ? '$pageview' : 'feature_used',
          properties: { $current_url: `https://example.com/${i % 50}`, n: i },
        });
    }
    await Promise.all(clients.map((c) => c.shutdown()));
    const sent = Number(process.hrtime.bigint() - started) / 1e6;
    let state = await sandboxState(ingest);
    while (state.projects['1'].events < events) {
      await new Promise((r) => setTimeout(r, 20));
      state = await sandboxState(ingest);
    }
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    console.log(
      `ingested     ${events.toLocaleString('en')} events (${state.projects['1'].personsCreated.toLocaleString('en')} persons created) in ${fmt(ms / 1000, 1)} s: ${Math.round(events / (ms / 1000)).toLocaleString('en')} events/s (the clients finished sending at ${fmt(sent / 1000, 1)} s; ${state.capture.requests} /batch/ requests)`,
    );
  } finally {
    console.log(`peak memory  ${fmt(await ingest.stop())} MiB (the sandbox, ${events.toLocaleString('en')} events)`);
  }

  const dir = mkdtempSync(join(tmpdir(), 'hogctl-bench-ingest-'));
  const counted = await startMeasuredSandbox(['--persons', '100000', '--events-per-person', '10']);
  const env = counted.env(dir);
  try {
    for (const [label, hogql] of [
      ['count() (first use: lays down the seeded history)', 'SELECT count() FROM events'],
      ['count() again', 'SELECT count() FROM events'],
      ["count() WHERE event = '$pageview'", "SELECT count() FROM events WHERE event = '$pageview'"],
      ["count() WHERE properties.$browser = 'Safari'", "SELECT count() FROM events WHERE properties.$browser = 'Safari'"],
      ['event, count() GROUP BY event', 'SELECT event, count() FROM events GROUP BY event'],
    ]) {
      const res = await run(process.execPath, [BIN, 'persons', 'query', hogql, '-o', 'json'], { env });
      if (res.code !== 0) throw new Error(`${hogql} exited ${res.code}: ${res.stderr.slice(-500)}`);
      console.log(`${label.padEnd(48)} ${fmt(res.ms)} ms  ${res.stdout.trim().slice(0, 120)}`);
    }
  } finally {
    console.log(`peak memory  ${fmt(await counted.stop())} MiB (the sandbox, 100,000 persons and 1,000,000 events; target < 1024 MiB)`);
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Duplicate persons: 1,500 groups of 2 to 5 persons sharing an address in varied letter case,
 * sent with posthog-node, among 20,000 persons; found with `persons duplicates`, merged with
 * `persons merge`, under PostHog Cloud's budgets (the sandbox's --rate-limit cloud).
 */
async function benchMerge() {
  const { PostHog } = await import('posthog-node');
  const { request } = await import('undici');
  const groups = 1_500;
  const size = (i) => 2 + (i % 4);
  const dupes = Array.from({ length: groups }, (_, i) => size(i)).reduce((a, b) => a + b, 0);
  console.log(
    `\n## persons duplicates and merge: ${groups.toLocaleString('en')} groups (${dupes.toLocaleString('en')} persons) among 20,000 persons, --rate-limit cloud`,
  );
  const sandbox = await startSandbox(['--persons', String(20_000 - dupes), '--rate-limit', 'cloud']);
  const dir = mkdtempSync(join(tmpdir(), 'hogctl-bench-merge-'));
  const env = sandbox.env(dir);
  try {
    const project = await request(`${sandbox.url}/api/projects/${sandbox.project_id}/`, {
      headers: { authorization: `Bearer ${sandbox.api_key}` },
    });
    const token = (await project.body.json()).api_token;
    const posthog = new PostHog(token, { host: sandbox.url, flushAt: 500, flushInterval: 0, maxQueueSize: dupes + 1 });
    const variants = (e) => [e.toUpperCase(), ` ${e}`, e.charAt(0).toUpperCase() + e.slice(1), `${e} `, e];
    for (let i = 0; i < groups; i++)
      for (let k = 0; k < size(i); k++)
        posthog.identify({ distinctId: `bench-dup-${i}-${k}`, properties: { email: variants(`dup${i}@example.com`)[k], plan: `p${k}` } });
    await posthog.shutdown();
    for (;;) {
      const state = await (await request(`${sandbox.url}/_sandbox/state`)).body.json();
      if (state.projects['1'].events >= dupes) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const before = (await sandboxRequests(sandbox)).length;
    // The groups go to a file as a person would keep them (run() keeps only the first megabyte).
    const file = join(dir, 'groups.ndjson');
    const found = await run('sh', ['-c', `"${process.execPath}" "${BIN}" persons duplicates -o ndjson > "${file}"`], { env });
    if (found.code !== 0) throw new Error(`persons duplicates exited ${found.code}: ${found.stderr.slice(-500)}`);
    const queries = (await sandboxRequests(sandbox)).slice(before).filter((r) => r.path.endsWith('/query/')).length;
    const lines = readFileSync(file, 'utf8').trim().split('\n').length;
    console.log(`duplicates   ${lines.toLocaleString('en')} groups in ${fmt(found.ms / 1000, 1)} s, ${queries} HogQL queries`);
    const middle = (await sandboxRequests(sandbox)).length;
    const merged = await run(process.execPath, [BIN, 'persons', 'merge', '--groups', file, '--yes', '-o', 'json'], { env });
    if (merged.code !== 0) throw new Error(`persons merge exited ${merged.code}: ${merged.stderr.slice(-500)}`);
    const counts = JSON.parse(merged.stdout);
    const requests = (await sandboxRequests(sandbox)).slice(middle);
    const capture = requests.filter((r) => r.path === '/batch/').length;
    const throttled = requests.filter((r) => r.status === 429).length;
    console.log(
      `merge        ${counts.merged.toLocaleString('en')} of ${counts.groups.toLocaleString('en')} groups merged in ${fmt(merged.ms / 1000, 1)} s: ${fmt((requests.length + queries) / counts.merged, 3)} requests a merged group (${capture} capture, ${requests.length - capture} reads and queries, ${queries} to find them; ${throttled} answered 429), ${Math.round(counts.merged / (merged.ms / 60_000)).toLocaleString('en')} groups a minute`,
    );
  } finally {
    sandbox.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (want('startup')) await benchStartup();
if (want('list')) await benchList();
if (want('bulk')) await benchBulk();
if (want('bulk') || want('windows')) await benchWindows();
if (want('verify')) await benchVerify();
if (want('export')) await benchExport();
if (want('emails')) await benchEmails();
if (want('update')) await benchUpdate();
if (want('ingest')) await benchIngest();
if (want('memory')) await benchMemory();
if (want('merge')) await benchMerge();
if (want('subject')) await benchSubjectAccess();
if (want('events')) await benchEventsDelete();

/**
 * `persons export` of one person with 100,000 and then 200,000 events: the events read per query
 * (target: every query but the last returns the 50,000-row cap), per second, and the peak memory,
 * which must not grow with the events (one page at a time is held).
 */
async function benchSubjectAccess() {
  console.log(
    '\n## subject access (persons export of one person: events per query, per second, peak memory; then again with the heap capped at 128 MiB, which only a run whose live memory does not grow with the events passes)',
  );
  for (const events of [100_000, 200_000]) {
    for (const cap of [[], ['--max-old-space-size=128']]) {
      const dir = mkdtempSync(join(tmpdir(), 'hogctl-bench-sar-'));
      const sandbox = await startSandbox(['--persons', '1', '--events-per-person', String(events), '--project-persons', '2=0,3=0']);
      try {
        const out = join(dir, 'bundle');
        const args = [...cap, '--import', RSS, BIN, 'persons', 'export', '--email', 'user1@example.com', '--out', out, '-o', 'json'];
        const res = await run(process.execPath, args, { env: sandbox.env(join(dir, 'config')) });
        if (res.code !== 0) throw new Error(`persons export exited ${res.code}: ${res.stderr.slice(-500)}`);
        const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
        const person = manifest.projects[0].persons[0];
        const queries = person.counts.event_queries;
        const perQuery = Math.round(person.counts.events / queries).toLocaleString('en-US');
        const perSecond = Math.round(person.counts.events / (res.ms / 1000)).toLocaleString('en-US');
        console.log(
          `  ${events.toLocaleString('en-US')} events${cap.length ? ', heap capped at 128 MiB' : ''}: ${queries} event queries (${perQuery} events a query), ${perSecond} events/s over the whole run, peak ${fmt(res.rssMiB)} MiB`,
        );
      } finally {
        sandbox.stop();
        rmSync(dir, { recursive: true, force: true });
      }
    }
  }
}

/**
 * events delete of 20,000 distinct ids (a dry run): how many requests of at most 100,000 bytes
 * the selection takes, and how long the plan says they take under PostHog's limits (10 creates an
 * hour, 5 active requests, one weekly deletion per batch of five), read from the printed plan.
 */
async function benchEventsDelete() {
  const ids = 20_000;
  const dir = mkdtempSync(join(tmpdir(), 'hogctl-bench-events-delete-'));
  const sandbox = await startSandbox(['--persons', '10']);
  try {
    await fetch(`${sandbox.url}/_sandbox/projects/1/self-service-data-deletion/on`, { method: 'POST' });
    // Distinct ids as an anonymous SDK makes them: a prefix and a random-looking tail.
    const file = join(dir, 'ids.txt');
    writeFileSync(
      file,
      `${Array.from({ length: ids }, (_, i) => `anon-${String(i).padStart(6, '0')}-${(i * 2654435761).toString(16).padStart(16, '0')}`).join('\n')}\n`,
    );
    const res = await run(process.execPath, [BIN, 'events', 'delete', '--distinct-ids', file, '--dry-run'], {
      env: sandbox.env(join(dir, 'config')),
    });
    if (res.code !== 0) throw new Error(`events delete exited ${res.code}: ${res.stderr.slice(-500)}`);
    const requests = /requests: (\d+)/.exec(res.stderr)?.[1];
    const estimate = /estimate: (.*)$/m.exec(res.stderr)?.[1];
    if (!requests || !estimate) throw new Error(`events delete printed no plan:\n${res.stderr.slice(-1000)}`);
    console.log(`\n## events delete of ${ids.toLocaleString('en-US')} distinct ids (dry run, PostHog's limits)`);
    console.log(`${requests} requests of at most 100,000 bytes; the plan's estimate: ${estimate}; the plan in ${fmt(res.ms / 1000, 1)} s`);
  } finally {
    sandbox.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
