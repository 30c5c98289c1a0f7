import { Command } from 'commander';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { withContext } from '../../cli/with-context.js';
import { examples } from '../../cli/help-text.js';
import { readSecretFromStdin } from '../../io/read-secret.js';
import { configDir, ensurePrivateDir } from '../../config/paths.js';
import { createSecretFile, readSecretFile } from '../../config/secret-file.js';
import { EVIDENCE_KEY_ENV, evidenceKeyPath, parseEvidenceKey } from '../../config/evidence-key.js';

export function evidenceImportKeyCommand(): Command {
  return new Command('import-key')
    .summary('store an evidence key from standard input')
    .description(
      'Read an evidence key (what `hogctl evidence export-key` printed elsewhere) from standard input and store it in ' +
        'this config directory (a 0600 file), so that this machine can apply plans signed with it and check receipts ' +
        `made with it. A directory that has another key already is left alone: evidence made with that key could no ` +
        `longer be checked; move its file away first if you mean to replace it. ${EVIDENCE_KEY_ENV} gives a key without ` +
        'storing it, and wins over the file.',
    )
    .addHelpText('after', examples('hogctl evidence export-key | HOGCTL_CONFIG_DIR=./ci-config hogctl evidence import-key'))
    .action(withContext(evidenceImportKeyRun));
}

export async function evidenceImportKeyRun(ctx: Context): Promise<void> {
  const key = parseEvidenceKey(await readSecretFromStdin(ctx.io.stdin, 'evidence key', 'import-key'), 'standard input');
  const path = evidenceKeyPath(ctx.env);
  ensurePrivateDir(configDir(ctx.env));
  if (!createSecretFile(path, `${key.hex}\n`)) {
    const stored = readSecretFile(path);
    const same = stored !== undefined && parseEvidenceKey(stored, path).id === key.id;
    if (!same) {
      throw new UsageError(
        `${path} holds another evidence key already; it was left as it was`,
        `plans and receipts made with it would no longer be checkable: move it away first (\`mv ${path} ${path}.old\`) if you mean to replace it`,
      );
    }
    ctx.info(`✔ ${path} holds this evidence key (${key.id}) already`);
    return;
  }
  ctx.info(`✔ the evidence key ${key.id} is stored in ${path}`);
  if (ctx.env[EVIDENCE_KEY_ENV]) ctx.warn(`${EVIDENCE_KEY_ENV} is set, and wins over the stored key while it is`);
}
