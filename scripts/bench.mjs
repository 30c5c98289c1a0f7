// `npm run bench`: measures hogctl against baselines side by side in one run and prints ratios.
// Runs alternate between the contenders so that machine noise hits both alike. Each section can
// be run alone: `node scripts/bench.mjs startup list`.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../bin/hogctl.js', import.meta.url));
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

/** Runs each contender `rounds` times, interleaved, and returns the median wall times. */
async function sideBySide(contenders, rounds) {
  const times = contenders.map(() => []);
  for (let r = 0; r < rounds; r++) {
    for (const [i, c] of contenders.entries()) {
      const res = await c.run();
      if (res.code !== 0) throw new Error(`${c.name} exited ${res.code}: ${res.stderr.slice(0, 500)}`);
      times[i].push(res.ms);
    }
  }
  return times.map(median);
}

export async function startSandbox(args) {
  const child = spawn(process.execPath, [BIN, 'sandbox', '--port', '0', '--quiet', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const line = await new Promise((resolve, reject) => {
    let buf = '';
    child.stdout.on('data', (d) => {
      buf += d;
      const nl = buf.indexOf('\n');
      if (nl >= 0) resolve(buf.slice(0, nl));
    });
    child.on('exit', (code) => reject(new Error(`sandbox exited ${code}`)));
  });
  const info = JSON.parse(line);
  return { ...info, stop: () => child.kill('SIGTERM') };
}

async function benchStartup() {
  const node = { name: 'node -e 0', run: () => run(process.execPath, ['-e', '0']) };
  const cases = [
    ['--version', ['--version']],
    ['--help', ['--help']],
    ['completion bash', ['completion', 'bash']],
  ];
  console.log('\n## start-up (median of 15 interleaved runs)');
  for (const [label, args] of cases) {
    const [base, cli] = await sideBySide([node, { name: label, run: () => run(process.execPath, [BIN, ...args]) }], 15);
    console.log(`hogctl ${label.padEnd(16)} ${fmt(cli)} ms   node -e 0 ${fmt(base)} ms   ratio ${fmt(cli / base, 2)}x`);
  }
}

async function benchList() {
  const persons = 100_000;
  const sandbox = await startSandbox(['--persons', String(persons)]);
  const env = { HOGCTL_BASE_URL: sandbox.url, HOGCTL_PROJECT_ID: String(sandbox.project_id), HOGCTL_API_KEY: sandbox.api_key, HOGCTL_CONFIG_DIR: '/nonexistent-hogctl-bench' };
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
  const cliRun = () => run(process.execPath, ['--import', RSS, BIN, 'persons', 'list', '--all', '-o', 'ndjson', '--page-size', String(pageSize)], { env });
  const bareRun = () => run(process.execPath, ['--import', RSS, '--input-type=module', '-e', bare], { env: { ...env, NODE_PATH: '' } });
  try {
    const rows = (await cliRun()).lines;
    console.log(`\n## persons list --all -o ndjson over ${persons.toLocaleString('en')} sandbox persons (page size ${pageSize}, median of 3 interleaved runs)`);
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
    console.log(`bare undici   ${fmt(baseMs, 0)} ms   ${fmt(rows / (baseMs / 1000), 0)} rows/s   peak memory ${fmt(Math.max(...base.map((r) => r.rssMiB ?? 0)))} MiB`);
    console.log(`ratio         ${fmt(cliMs / baseMs, 2)}x the bare loop (target ≤ 1.3x), rows ${rows} of ${persons}`);
  } finally {
    sandbox.stop();
  }
}

if (want('startup')) await benchStartup();
if (want('list')) await benchList();
