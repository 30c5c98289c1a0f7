// Backup codes are shown only when asked for, on stdout (data), with a warning on stderr that
// they are secrets.
import type { Context } from '../../../../context.js';
import { writeRecord } from '../../../../io/output.js';
import { writeAll } from '../../../../io/streams.js';

export async function writeBackupCodes(ctx: Context, codes: string[], record: Record<string, unknown> = {}): Promise<void> {
  ctx.warn(
    `the ${codes.length} backup codes below are secrets: each signs in to this account once in place of a 2FA code; keep them somewhere safe, out of logs, tickets and chat`,
  );
  const output = await ctx.output();
  if (output.format === 'table' && !output.fields) {
    await writeAll(ctx.io.stdout, codes.map((c) => `${c}\n`).join(''));
    return;
  }
  const full = { ...record, backup_codes: codes };
  await writeRecord(output, full, { columns: Object.keys(full), fields: Object.keys(full) });
}
