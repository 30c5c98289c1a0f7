// A merge plan (`persons merge --dry-run --plan-out`) is signed as the plans of bulk-delete are
// (src/bulk/engine/plan-file.ts): the file ends with an HMAC-SHA256 of everything before it, as
// written, under the plan sub-key of the evidence key, which the file names by its public id. So a
// plan a second person reviewed is the plan that runs: `--groups <plan>` refuses one changed by
// anyone who does not hold the key, and one written before plans were signed.
import { timingSafeEqual } from 'node:crypto';
import { UsageError } from '../errors.js';
import { evidenceKey, keyedHash, requireEvidenceKey } from './evidence-key.js';

const redo = 'make a new plan with --dry-run --plan-out, and have it reviewed';

/** The file's text: the body as hogctl writes it, with the key's id, then its signature. */
export function signedPlanText(body: Record<string, unknown>, env: NodeJS.ProcessEnv): string {
  const key = evidenceKey(env);
  const text = JSON.stringify({ ...body, key_id: key.id }, null, 2);
  return `${text.slice(0, -2)},\n  "hmac_sha256": "${keyedHash(key.plan, text)}"\n}\n`;
}

/** The plan's signature, once checked; refuses a plan unsigned, edited, or signed with another key. */
export function checkPlanSignature(text: string, source: string, env: NodeJS.ProcessEnv): string {
  const changed = (why: string) => new UsageError(`the plan ${source} was changed after it was signed (${why}); nothing was sent`, redo);
  const parsed = JSON.parse(text) as Record<string, unknown>;
  const { hmac_sha256: stated, ...body } = parsed;
  if (stated === undefined) throw new UsageError(`the plan ${source} is not signed: an earlier hogctl wrote it; nothing was sent`, redo);
  if (typeof stated !== 'string' || typeof body.key_id !== 'string') throw changed('it has no signature');
  const key = requireEvidenceKey(env, body.key_id, `the plan ${source} was signed`);
  const bodyText = JSON.stringify(body, null, 2);
  const expected = Buffer.from(keyedHash(key.plan, bodyText), 'hex');
  const given = Buffer.from(stated, 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw changed('its signature does not match its content');
  if (`${bodyText.slice(0, -2)},\n  "hmac_sha256": "${stated}"\n}\n` !== text) throw changed('its text is not as hogctl wrote it');
  return stated;
}
