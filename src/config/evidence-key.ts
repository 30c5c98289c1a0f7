// The evidence key: 32 random bytes, one per config directory, that sign bulk plans and name the
// identifiers of an erasure (e-mail addresses) in its journal, receipt and plan. It is never
// stored in those files: a plan changed by anyone without it is refused, and the files alone do
// not let anyone tell which addresses they name (a salt stored beside its hashes let anyone hash
// guesses; a key kept apart does not).
//
// It lives in `<config dir>/evidence-key` (0600, created on first need, never through a link),
// or comes from HOGCTL_EVIDENCE_KEY, which wins: that is how a CI pipeline applies a plan made
// elsewhere. `hogctl evidence export-key` / `import-key` move it through standard output and
// input, never argv. Sub-keys are derived from it with HMAC-SHA256 and a label each, so that a
// hash of an identifier can never stand as the signature of a plan, nor the other way round; a
// third seals (AES-256-GCM) what must be kept whole but not in clear: the few addresses a plan
// shows its reviewer as given, and the queries of an erasure's event sweep in its journal.
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { UsageError } from '../errors.js';
import { configDir, ensurePrivateDir } from './paths.js';
import { createSecretFile, readSecretFile } from './secret-file.js';

export const EVIDENCE_KEY_ENV = 'HOGCTL_EVIDENCE_KEY';

/** The labels of the sub-keys: HMAC-SHA256(key, label). */
const PLAN_LABEL = 'hogctl plan signature';
const IDENTIFIER_LABEL = 'hogctl identifier hash';
const ID_LABEL = 'hogctl key id';
const SEAL_LABEL = 'hogctl sealed text';

export interface EvidenceKey {
  /** The key itself, as exported: 64 hexadecimal digits. */
  hex: string;
  /** Signs plans. */
  plan: Buffer;
  /** Names identifiers. */
  identifiers: Buffer;
  /** Seals what must be kept whole but not in clear (sealText). */
  seal: Buffer;
  /** A public name for the key (16 hex digits), so that a file can say which key it needs. */
  id: string;
  /** Where it came from: the file or the environment variable. */
  source: string;
}

const derive = (key: Buffer, label: string) => createHmac('sha256', key).update(label).digest();

function fromHex(hex: string, source: string): EvidenceKey {
  const key = Buffer.from(hex, 'hex');
  return {
    hex,
    plan: derive(key, PLAN_LABEL),
    identifiers: derive(key, IDENTIFIER_LABEL),
    seal: derive(key, SEAL_LABEL),
    id: derive(key, ID_LABEL).toString('hex').slice(0, 16),
    source,
  };
}

/** The key in `text`, or a UsageError naming where it was read (never the text itself). */
export function parseEvidenceKey(text: string, where: string): EvidenceKey {
  const hex = text.trim().toLowerCase();
  if (!/^[0-9a-f]{64}$/.test(hex)) {
    throw new UsageError(
      `${where} does not hold an evidence key: it must be 64 hexadecimal digits`,
      'use what `hogctl evidence export-key` prints on the machine that made the plan or the erasure',
    );
  }
  return fromHex(hex, where);
}

export function evidenceKeyPath(env: NodeJS.ProcessEnv): string {
  return join(configDir(env), 'evidence-key');
}

/** The key in effect (HOGCTL_EVIDENCE_KEY, else the file), or undefined when there is none. */
export function readEvidenceKey(env: NodeJS.ProcessEnv): EvidenceKey | undefined {
  const fromEnv = env[EVIDENCE_KEY_ENV];
  if (fromEnv) return parseEvidenceKey(fromEnv, EVIDENCE_KEY_ENV);
  const path = evidenceKeyPath(env);
  const text = readSecretFile(path);
  return text === undefined ? undefined : parseEvidenceKey(text, path);
}

/** The key in effect, created (in the config directory) when there is none yet. */
export function evidenceKey(env: NodeJS.ProcessEnv): EvidenceKey {
  const existing = readEvidenceKey(env);
  if (existing) return existing;
  const path = evidenceKeyPath(env);
  ensurePrivateDir(configDir(env));
  // Created only if absent: two runs starting together end up with the same key.
  createSecretFile(path, `${randomBytes(32).toString('hex')}\n`);
  return readEvidenceKey(env)!;
}

/** How to get a key onto this machine: what a message about a missing or other key ends with. */
function keyHint(env: NodeJS.ProcessEnv): string {
  return (
    `on the machine that holds it, run \`hogctl evidence export-key\`, and here either pipe that into ` +
    `\`hogctl evidence import-key\` (it goes to ${evidenceKeyPath(env)}) or set ${EVIDENCE_KEY_ENV} to it`
  );
}

/** What a file needs: the key named `id`. Refuses when there is no key here, or another one. */
export function requireEvidenceKey(env: NodeJS.ProcessEnv, id: string, what: string): EvidenceKey {
  const key = readEvidenceKey(env);
  if (!key) throw new UsageError(`${what} with evidence key ${id}, and there is no evidence key here`, keyHint(env));
  if (key.id !== id) {
    throw new UsageError(`${what} with evidence key ${id}, and the key here (${key.source}) is ${key.id}`, keyHint(env));
  }
  return key;
}

/** HMAC-SHA256 (hex) of `text` under one of the sub-keys. */
export function keyedHash(subKey: Buffer, text: string): string {
  return createHmac('sha256', subKey).update(text).digest('hex');
}

/** `text` encrypted under the seal sub-key (AES-256-GCM, a random IV each): base64url of IV,
 * ciphertext and tag. Only a holder of the evidence key can read it back. */
export function sealText(sealKey: Buffer, text: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', sealKey, iv);
  const body = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
}

/** What sealText sealed, or undefined when `sealed` was not sealed under this key. */
export function openText(sealKey: Buffer, sealed: string): string | undefined {
  const bytes = Buffer.from(sealed, 'base64url');
  if (bytes.length < 28) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', sealKey, bytes.subarray(0, 12));
    decipher.setAuthTag(bytes.subarray(bytes.length - 16));
    return Buffer.concat([decipher.update(bytes.subarray(12, bytes.length - 16)), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}
