// `persons bulk-delete`, in this process: the evidence of an erasure (plan, journal, receipt)
// under its evidence key. A plan edited by someone without the key is refused, whatever digest
// they recompute; the identifiers are named by a keyed hash that the files themselves do not let
// anyone reverse; and the key moves to another machine (CI, a DPO) through standard input or the
// environment, never argv.
import { createHash, createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Person } from '@hogctl/sandbox';
import { startWorld, type World } from '../harness.js';

let world: World;
let dir: string;

beforeAll(async () => {
  world = await startWorld({ persons: 400, projectPersons: { 2: 50 }, seed: 91 });
  dir = mkdtempSync(join(tmpdir(), 'hogctl-evidence-'));
});
afterAll(async () => {
  await world.close();
  rmSync(dir, { recursive: true, force: true });
});

const store = (project: number) => world.sandbox.stores.get(project)!;
const email = (p: Person) => (typeof p.properties.email === 'string' ? p.properties.email.toLowerCase() : undefined);
const bulkDeletes = (from: number) => world.sandbox.requests.slice(from).filter((r) => r.path.endsWith('/bulk_delete/'));
/** Persons of project 1 with an address no other person of it has. */
function withOwnAddress(): Person[] {
  const count = new Map<string, number>();
  for (const p of store(1)) if (email(p)) count.set(email(p)!, (count.get(email(p)!) ?? 0) + 1);
  return [...store(1)].filter((p) => email(p) && count.get(email(p)!) === 1);
}
let next = 0;
/** Persons no earlier test used. */
const take = (k: number) => withOwnAddress().slice(next, (next += k));

/** Writes a plan the way hogctl writes one: its body as indented JSON, then its trailing field. */
function planText(body: Record<string, unknown>, last: [string, string]): string {
  const text = JSON.stringify(body, null, 2);
  return `${text.slice(0, -2)},\n  "${last[0]}": "${last[1]}"\n}\n`;
}

async function makePlan(name: string, persons: Person[], extra: string[] = []): Promise<string> {
  const file = join(dir, `${name}.txt`);
  writeFileSync(file, `${persons.map(email).join('\n')}\n`);
  const planPath = join(dir, `${name}.plan.json`);
  const made = await world.run(['persons', 'bulk-delete', '--emails', file, '--dry-run', '--plan-out', planPath, ...extra]);
  expect(made.code, made.stderr).toBe(0);
  return planPath;
}

describe('a reviewed plan', () => {
  it('edited by someone who read the code but has no key (every unkeyed digest recomputed) is refused, and no one is deleted', async () => {
    const [named, victim] = take(2);
    const planPath = await makePlan('attacked', [named]);
    const plan = JSON.parse(readFileSync(planPath, 'utf8'));
    expect(plan.projects[0].person_uuids).toEqual([named.uuid]);

    // The attacker adds another person of the project, as the plan records persons, and
    // recomputes every digest that needs no secret: the SHA-256 of the body, as hogctl writes it.
    const { sha256: _digest, hmac_sha256: signature, ...body } = plan;
    body.projects[0].person_uuids.push(victim.uuid);
    body.projects[0].distinct_ids[victim.uuid] = [...victim.distinctIds];
    const recomputed = createHash('sha256')
      .update(JSON.stringify(body, null, 2))
      .digest('hex');
    const edited = join(dir, 'attacked.edited.json');
    writeFileSync(edited, planText(body, signature ? ['hmac_sha256', signature] : ['sha256', recomputed]));
    // Kept as it was, the signature field too; with one recomputed the way an unkeyed one is.
    const also = join(dir, 'attacked.edited2.json');
    writeFileSync(also, planText(body, ['hmac_sha256', recomputed]));

    for (const path of [edited, also]) {
      const from = world.sandbox.requests.length;
      const res = await world.run(['persons', 'bulk-delete', '--plan', path, '-y']);
      expect(res.code, res.stderr).toBe(2);
      expect(res.stderr).toContain(`the plan ${path} was changed after it was signed`);
      expect(bulkDeletes(from)).toEqual([]);
      expect(store(1).getByUuid(victim.uuid)).toBeDefined();
      expect(store(1).getByUuid(named.uuid)).toBeDefined();
    }

    // The plan as hogctl wrote it still applies, and deletes the one person it names.
    const applied = await world.run(['persons', 'bulk-delete', '--plan', planPath, '-y']);
    expect(applied.code, applied.stderr).toBe(0);
    expect(store(1).getByUuid(named.uuid)).toBeUndefined();
    expect(store(1).getByUuid(victim.uuid)).toBeDefined();
  });

  /** The plan at `planPath`, changed by `edit` and signed again as a holder of the evidence key would. */
  async function resigned(planPath: string, name: string, edit: (body: Record<string, any>) => void): Promise<string> {
    const exported = await world.run(['evidence', 'export-key']);
    expect(exported.code, exported.stderr).toBe(0);
    const key = Buffer.from(exported.stdout.trim(), 'hex');
    expect(key).toHaveLength(32);
    // As the help of bulk-delete documents it: HMAC-SHA256 under HMAC-SHA256(key, "hogctl plan signature").
    const planKey = createHmac('sha256', key).update('hogctl plan signature').digest();
    const sign = (body: Record<string, unknown>) =>
      createHmac('sha256', planKey)
        .update(JSON.stringify(body, null, 2))
        .digest('hex');
    const { hmac_sha256: signature, ...body } = JSON.parse(readFileSync(planPath, 'utf8'));
    expect(signature).toBe(sign(body));
    edit(body);
    const edited = join(dir, `${name}.edited.json`);
    writeFileSync(edited, planText(body, ['hmac_sha256', sign(body)]));
    return edited;
  }

  it('signed by a holder of the key but disagreeing with itself is refused; what it shows comes from its lists', async () => {
    const [named, victim] = take(2);
    const planPath = await makePlan('inconsistent', [named]);
    // The counters still say one person, the list names two.
    const edited = await resigned(planPath, 'inconsistent', (body) => {
      body.projects[0].person_uuids.push(victim.uuid);
      body.projects[0].distinct_ids[victim.uuid] = [...victim.distinctIds];
    });
    const from = world.sandbox.requests.length;
    const res = await world.run(['persons', 'bulk-delete', '--plan', edited, '-y']);
    expect(res.code, res.stderr).toBe(2);
    expect(res.stderr).toContain(`the plan ${edited} disagrees with itself`);
    expect(bulkDeletes(from)).toEqual([]);
    expect(store(1).getByUuid(victim.uuid)).toBeDefined();
  });

  it('signed, but naming a person by a UUID in capitals, is refused: a plan holds UUIDs as hogctl wrote them', async () => {
    const [named] = take(1);
    const planPath = await makePlan('capitals', [named]);
    const upper = named.uuid.toUpperCase();
    const edited = await resigned(planPath, 'capitals', (body) => {
      body.projects[0].person_uuids = [upper];
      body.projects[0].distinct_ids = { [upper]: body.projects[0].distinct_ids[named.uuid] };
    });
    const from = world.sandbox.requests.length;
    const res = await world.run(['persons', 'bulk-delete', '--plan', edited, '-y']);
    expect(res.code, res.stderr).toBe(2);
    expect(res.stderr).toContain(`the plan ${edited} disagrees with itself: in project 1, a person is not a UUID in lower case`);
    expect(bulkDeletes(from)).toEqual([]);
    expect(store(1).getByUuid(named.uuid)).toBeDefined();
  });

  it('with --project naming another project is refused, as --projects is', async () => {
    const [named] = take(1);
    const planPath = await makePlan('elsewhere', [named]);
    const from = world.sandbox.requests.length;
    const res = await world.run(['--project', '2', 'persons', 'bulk-delete', '--plan', planPath, '-y']);
    expect(res.code, res.stderr).toBe(2);
    expect(res.stderr).toContain(`the plan ${planPath} is for project 1, not 2; nothing was sent`);
    expect(bulkDeletes(from)).toEqual([]);
    expect(store(1).getByUuid(named.uuid)).toBeDefined();
    // Naming the plan's own project is no conflict.
    const same = await world.run(['--project', '1', 'persons', 'bulk-delete', '--plan', planPath, '-y']);
    expect(same.code, same.stderr).toBe(0);
    expect(store(1).getByUuid(named.uuid)).toBeUndefined();
  });

  it('applies on another machine with the key from the environment or imported from standard input, and not without it', async () => {
    const [named] = take(1);
    const planPath = await makePlan('ci', [named]);
    const key = (await world.run(['evidence', 'export-key'])).stdout.trim();
    const ci = mkdtempSync(join(tmpdir(), 'hogctl-ci-'));
    try {
      const without = await world.run(['persons', 'bulk-delete', '--plan', planPath, '-y'], { env: { HOGCTL_CONFIG_DIR: ci } });
      expect(without.code, without.stderr).toBe(2);
      expect(without.stderr).toContain('was signed with evidence key');
      expect(without.stderr).toContain('HOGCTL_EVIDENCE_KEY');
      const wrong = await world.run(['persons', 'bulk-delete', '--plan', planPath, '-y'], {
        env: { HOGCTL_CONFIG_DIR: ci, HOGCTL_EVIDENCE_KEY: 'ab'.repeat(32) },
      });
      expect(wrong.code).toBe(2);
      expect(store(1).getByUuid(named.uuid)).toBeDefined();

      const imported = await world.run(['evidence', 'import-key'], { env: { HOGCTL_CONFIG_DIR: ci }, stdin: `${key}\n` });
      expect(imported.code, imported.stderr).toBe(0);
      expect(imported.stdout + imported.stderr).not.toContain(key);
      expect(statSync(join(ci, 'evidence-key')).mode & 0o777).toBe(0o600);
      // A second import of another key would orphan the evidence made with the first: refused.
      const other = await world.run(['evidence', 'import-key'], { env: { HOGCTL_CONFIG_DIR: ci }, stdin: `${'cd'.repeat(32)}\n` });
      expect(other.code).toBe(2);

      const fromEnv = await world.run(['persons', 'bulk-delete', '--plan', planPath, '-y', '--dry-run'], {
        env: { HOGCTL_CONFIG_DIR: mkdtempSync(join(ci, 'env-')), HOGCTL_EVIDENCE_KEY: key },
      });
      expect(fromEnv.code, fromEnv.stderr).toBe(0);
      const applied = await world.run(['persons', 'bulk-delete', '--plan', planPath, '-y'], { env: { HOGCTL_CONFIG_DIR: ci } });
      expect(applied.code, applied.stderr).toBe(0);
      expect(store(1).getByUuid(named.uuid)).toBeUndefined();
    } finally {
      rmSync(ci, { recursive: true, force: true });
    }
  });

  it('of an earlier hogctl (an unkeyed SHA-256) is refused with the way to make a new one', async () => {
    const [named] = take(1);
    const planPath = await makePlan('old', [named]);
    const { hmac_sha256: _signature, key_id: _id, ...body } = JSON.parse(readFileSync(planPath, 'utf8'));
    body.plan_format = 1;
    const old = join(dir, 'old.format1.json');
    writeFileSync(
      old,
      planText(body, [
        'sha256',
        createHash('sha256')
          .update(JSON.stringify(body, null, 2))
          .digest('hex'),
      ]),
    );
    const res = await world.run(['persons', 'bulk-delete', '--plan', old, '-y']);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('is not signed');
    expect(res.stderr).toContain('--dry-run --plan-out');
    expect(store(1).getByUuid(named.uuid)).toBeDefined();
  });
});

describe('a plan of every kind of input', () => {
  it('agrees with itself as hogctl writes it, and applies', async () => {
    const [a, b, c, d, e, f] = take(6);
    const inputs: [string, string[], string][] = [
      ['uuids.txt', ['--file'], `${a.uuid}\n`],
      // Integer ids are numbered per project: one project.
      ['integers.txt', ['--project', '1', '--file'], `${b.id}\n`],
      ['distinct.txt', ['--distinct-ids', '--file'], `${c.distinctIds[0]}\n`],
      ['mixed.csv', ['--file'], `email,distinct_id,person_id\n${email(d)},,\n,no-such-device,\n`],
      ['clear.txt', ['--keep-identifiers', '--emails'], `${email(e)}\nnobody@example.net\n`],
    ];
    for (const [name, flags, content] of inputs) {
      const file = join(dir, `kinds-${name}`);
      writeFileSync(file, content);
      const planPath = join(dir, `kinds-${name}.plan.json`);
      const where = flags.includes('--project') ? [] : ['--projects', '1,2'];
      const made = await world.run(['persons', 'bulk-delete', ...flags, file, ...where, '--dry-run', '--plan-out', planPath]);
      expect(made.code, made.stderr).toBe(0);
      const applied = await world.run(['persons', 'bulk-delete', '--plan', planPath, '-y']);
      expect(applied.code, `${name}: ${applied.stderr}`).toBe(0);
    }
    for (const p of [a, b, c, d, e]) expect(store(1).getByUuid(p.uuid)).toBeUndefined();
    const where = join(dir, 'kinds-where.plan.json');
    store(1).setProperties(f.id, { plan: 'evidence-test' });
    const made = await world.run(['persons', 'bulk-delete', '--where', 'plan=evidence-test', '--dry-run', '--plan-out', where]);
    expect(made.code, made.stderr).toBe(0);
    const applied = await world.run(['persons', 'bulk-delete', '--plan', where, '-y']);
    expect(applied.code, applied.stderr).toBe(0);
    expect(store(1).getByUuid(f.uuid)).toBeUndefined();
  });
});

describe('the identifiers in the evidence', () => {
  it('cannot be recovered by hashing guesses with anything the receipt, journal or plan holds; the key holder can check an address', async () => {
    const erased = take(4);
    // The guesses: every address of the project (the erased among them) and 100 more.
    const guesses = [...new Set([...store(1)].map(email).filter((e): e is string => e !== undefined))];
    for (let i = 0; i < 100; i++) guesses.push(`guess${i}@example.com`);
    for (const p of erased) expect(guesses).toContain(email(p));

    const file = join(dir, 'erasure.txt');
    writeFileSync(file, `${erased.map(email).join('\n')}\nnobody@example.net\n`);
    const planPath = join(dir, 'erasure.plan.json');
    expect((await world.run(['persons', 'bulk-delete', '--emails', file, '--dry-run', '--plan-out', planPath])).code).toBe(0);
    const journal = join(dir, 'erasure.ndjson');
    const receipt = join(dir, 'erasure.receipt.json');
    const res = await world.run(['persons', 'bulk-delete', '--emails', file, '--journal', journal, '--receipt', receipt, '-y']);
    expect(res.code, res.stderr).toBe(0);
    for (const p of erased) expect(store(1).getByUuid(p.uuid)).toBeUndefined();

    // The attacker: every value stored in the files is a candidate salt or key, every 64-hex
    // value a candidate hash; each guess is hashed every way hogctl's code ever did.
    const texts = [receipt, journal, planPath].map((path) => readFileSync(path, 'utf8'));
    for (const text of texts) for (const p of erased) expect(text).not.toContain(email(p));
    const strings = new Set<string>(['']);
    const collect = (v: unknown): void => {
      if (typeof v === 'string') strings.add(v);
      else if (Array.isArray(v)) v.forEach(collect);
      else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) (strings.add(k), collect(x));
    };
    const [receiptText, journalText, planText_] = texts;
    collect(JSON.parse(receiptText));
    for (const line of journalText.trim().split('\n')) collect(JSON.parse(line));
    collect(JSON.parse(planText_));
    const hashes = new Set([...strings].map((s) => s.replace(/^(sha256|hmac):/, '')).filter((s) => /^[0-9a-f]{64}$/.test(s)));
    const salts = [...strings].filter((s) => s.length <= 64 && /^[0-9a-f]*$/.test(s));
    expect(hashes.size).toBeGreaterThan(0);
    const recovered = guesses.filter((g) =>
      salts.some(
        (salt) =>
          hashes.has(createHash('sha256').update(`${salt}:${g}`).digest('hex')) ||
          hashes.has(createHash('sha256').update(`${salt}${g}`).digest('hex')) ||
          (salt.length > 0 && hashes.has(createHmac('sha256', salt).update(g).digest('hex'))) ||
          (salt.length > 0 && hashes.has(createHmac('sha256', Buffer.from(salt, 'hex')).update(g).digest('hex'))),
      ),
    );
    expect(recovered).toEqual([]);

    // The holder of the key (this config directory, or a DPO who imported it) can check.
    const check = (address: string, stdin?: string) =>
      world.run(['persons', 'erasure-status', '--receipt', receipt, '--check-email', stdin === undefined ? address : '-'], { stdin });
    const yes = await check(email(erased[2])!.toUpperCase());
    expect(yes.code, yes.stderr).toBe(0);
    expect(yes.stderr).toContain('this erasure was asked to erase');
    const fromStdin = await check('', `${email(erased[0])}\n`);
    expect(fromStdin.code, fromStdin.stderr).toBe(0);
    // The status is the run's, and named so.
    const json = await world.run(['persons', 'erasure-status', '--receipt', receipt, '--check-email', email(erased[0])!, '-o', 'json']);
    expect(JSON.parse(json.stdout)).toMatchObject([{ asked: true, matched: true, run_status: 'completed' }]);
    const unmatched = await check('nobody@example.net');
    expect(unmatched.code, unmatched.stderr).toBe(0);
    expect(unmatched.stderr).toContain('no person had it');
    const no = await check('guess1@example.com');
    expect(no.code).toBe(3);
    expect(no.stderr).toContain('not among the addresses this erasure was asked to erase');
    // Without the key, the receipt cannot answer.
    const stranger = await world.run(['persons', 'erasure-status', '--receipt', receipt, '--check-email', email(erased[1])!], {
      env: { HOGCTL_CONFIG_DIR: mkdtempSync(join(dir, 'stranger-')) },
    });
    expect(stranger.code).toBe(2);
    expect(stranger.stderr).toContain('evidence key');
    expect(statSync(join(world.configDir, 'evidence-key')).mode & 0o777).toBe(0o600);

    // A receipt of format 1 (a development build before the first release) is refused, not guessed at.
    const old = JSON.parse(readFileSync(receipt, 'utf8'));
    const oldPath = join(dir, 'old.receipt.json');
    writeFileSync(oldPath, JSON.stringify({ ...old, receipt_format: 1 }, null, 2));
    for (const args of [
      ['persons', 'erasure-status', '--receipt', oldPath],
      ['persons', 'receipt', oldPath],
    ]) {
      const refused = await world.run(args);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(`${oldPath} has receipt format 1: an earlier development build of hogctl wrote it`);
      expect(refused.stderr).toContain('run the job again with a new --journal');
    }
  });
});
