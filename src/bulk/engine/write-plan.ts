// --plan-out: a dry run's plan written for review (plan-file.ts says what it holds and how it is
// signed), with the persons' distinct ids read now, so that applying it needs no read first.
import type { Context } from '../../context.js';
import { VERSION } from '../../context.js';
import { UsageError } from '../../errors.js';
import { writeSecretFile } from '../../config/secret-file.js';
import { evidenceKey, sealText } from '../../config/evidence-key.js';
import { findings } from './finish.js';
import { identifierKey } from '../input/identifiers.js';
import { JournalState } from './journal-state.js';
import { PLAN_FORMAT, planFileText, type PlanBody } from './plan-file.js';
import type { Prepared } from './prepare.js';
import { selectionOf } from '../input/input.js';
import { takeSnapshot } from './snapshot.js';

/**
 * --plan-out: the plan of a dry run, with the persons' distinct ids read now, so that applying it
 * needs no read before it sends.
 */
export async function writePlan(ctx: Context, p: Prepared, path: string): Promise<void> {
  const collected = new JournalState();
  for (const record of findings(p.targets, p.policy)) collected.apply(record);
  await takeSnapshot(ctx, p.client!, p.targets.projects, collected, async (record) => collected.apply(record), {
    policy: p.policy,
    reads: p.reads,
    done: p.kind.words.done,
  });
  const { list } = p.input;
  const ids = p.targets.identifiers;
  const key = evidenceKey(ctx.env);
  // The identifiers are named under the same key that signs the plan.
  if (p.policy.by === 'key' && p.policy.keyId !== key.id) {
    throw new UsageError('a plan cannot be made from a journal of an earlier case', 'make the plan with a new --journal');
  }
  const body: PlanBody = {
    plan_format: PLAN_FORMAT,
    command: p.kind.journal.command,
    hogctl_version: VERSION,
    created_at: p.startedAt,
    profile: p.profile,
    host: p.host,
    key_id: key.id,
    projects: p.targets.projects.map((t) => ({
      project: t.id,
      name: t.name,
      unreachable: t.unreachable ?? null,
      person_uuids: [...t.ids],
      distinct_ids: Object.fromEntries(Array.from(t.ids, (id) => [id, collected.recorded.get(t.id)?.get(id) ?? []])),
      matches: ids ? Object.fromEntries(t.matches) : null,
    })),
    // Plans are made by `persons bulk-delete` alone: the deletion's flags.
    flags: p.kind.journal.binding.fields.flags as Record<string, unknown>,
    input: {
      file: p.input.label,
      id_kind: list.kind,
      ids: list.ids.length,
      id_list_sha256: list.sha256,
      // The identifiers by their keys (keyed unless --keep-identifiers): which ones the plan covers.
      identifier_keys: Array.from(list.ids, (value) => identifierKey(value, p.policy)),
      selection: selectionOf(p.s.input) ?? null,
    },
    identifiers: ids
      ? {
          named_by: p.policy.by === 'key' ? 'key' : 'clear',
          matched: ids.matched,
          matching_several: ids.several,
          in_several_projects: ids.inSeveralProjects,
          persons: ids.persons,
          unmatched_keys: ids.unmatchedKeys,
          // Shown to whoever applies the plan, who holds the key: sealed, not only hashed.
          ...(p.policy.by === 'key' ? { unmatched_sealed: ids.unmatchedFirst.map((value) => sealText(key.seal, value)) } : {}),
        }
      : null,
  };
  writeSecretFile(path, planFileText(body, key.plan));
  ctx.info(`plan written to ${path}: apply it with \`hogctl ${p.kind.journal.command} --plan ${path}\``);
}
