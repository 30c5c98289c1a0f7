// The evidence key: created once, 0600, never through a link; the environment wins; and the
// message when a file needs a key this machine does not have.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { evidenceKey, openText, readEvidenceKey, requireEvidenceKey, sealText } from '../../../src/config/evidence-key.js';
import { createSecretFile } from '../../../src/config/secret-file.js';
import { UsageError } from '../../../src/errors.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hogctl-evidence-key-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const env = (extra: Record<string, string> = {}) => ({ HOGCTL_CONFIG_DIR: join(dir, 'config'), ...extra });

describe('the evidence key', () => {
  it('is created on first need as a 0600 file in the config directory, and the same key after that', () => {
    expect(readEvidenceKey(env())).toBeUndefined();
    const first = evidenceKey(env());
    const path = join(dir, 'config', 'evidence-key');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readFileSync(path, 'utf8')).toBe(`${first.hex}\n`);
    expect(evidenceKey(env()).hex).toBe(first.hex);
    // Sub-keys derived apart: HMAC-SHA256 of the key and a label each.
    const raw = Buffer.from(first.hex, 'hex');
    expect(first.plan).toEqual(createHmac('sha256', raw).update('hogctl plan signature').digest());
    expect(first.identifiers).toEqual(createHmac('sha256', raw).update('hogctl identifier hash').digest());
    expect(first.plan.equals(first.identifiers)).toBe(false);
    expect(first.id).toMatch(/^[0-9a-f]{16}$/);
  });

  it('comes from HOGCTL_EVIDENCE_KEY first, which must be 64 hex digits (and is never repeated in the error)', () => {
    evidenceKey(env());
    const given = 'ab'.repeat(32);
    expect(readEvidenceKey(env({ HOGCTL_EVIDENCE_KEY: given }))!.hex).toBe(given);
    const bad = 'not-a-key-0123';
    expect(() => readEvidenceKey(env({ HOGCTL_EVIDENCE_KEY: bad }))).toThrow(/HOGCTL_EVIDENCE_KEY does not hold an evidence key/);
    try {
      readEvidenceKey(env({ HOGCTL_EVIDENCE_KEY: bad }));
    } catch (err) {
      expect(String((err as Error).message) + (err as UsageError).hint).not.toContain(bad);
    }
  });

  it('is refused through a symbolic link', () => {
    const elsewhere = join(dir, 'elsewhere');
    writeFileSync(elsewhere, `${'cd'.repeat(32)}\n`);
    const config = join(dir, 'config');
    evidenceKey(env());
    rmSync(join(config, 'evidence-key'));
    symlinkSync(elsewhere, join(config, 'evidence-key'));
    expect(() => readEvidenceKey(env())).toThrow(/symbolic link/);
    expect(() => createSecretFile(join(config, 'evidence-key'), 'x')).toThrow(/symbolic link/);
  });

  it('a file signed with another key, or on a machine without one, says which key it needs and how to bring it', () => {
    expect(() => requireEvidenceKey(env(), '0123456789abcdef', 'the plan p.json was signed')).toThrow(
      'the plan p.json was signed with evidence key 0123456789abcdef, and there is no evidence key here',
    );
    const key = evidenceKey(env());
    expect(() => requireEvidenceKey(env(), '0123456789abcdef', 'the plan p.json was signed')).toThrow(
      `and the key here (${join(dir, 'config', 'evidence-key')}) is ${key.id}`,
    );
    expect(requireEvidenceKey(env(), key.id, 'x').hex).toBe(key.hex);
  });

  it('seals an address that only its own key opens, and differently each time', () => {
    const key = evidenceKey(env());
    const other = readEvidenceKey(env({ HOGCTL_EVIDENCE_KEY: 'ab'.repeat(32) }))!;
    const sealed = sealText(key.seal, 'lee@example.net');
    expect(sealed).not.toContain('lee');
    expect(sealText(key.seal, 'lee@example.net')).not.toBe(sealed);
    expect(openText(key.seal, sealed)).toBe('lee@example.net');
    expect(openText(other.seal, sealed)).toBeUndefined();
    // A changed byte is refused, not read as another address.
    const bytes = Buffer.from(sealed, 'base64url');
    bytes[14] ^= 1;
    expect(openText(key.seal, bytes.toString('base64url'))).toBeUndefined();
    expect(openText(key.seal, 'short')).toBeUndefined();
  });
});
