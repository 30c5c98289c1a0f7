// What a status command prints: on a terminal, with no format asked for and no --fields, a few
// sentences a person reads at a glance (gh's `✓ Logged in to github.com as …`); anywhere else
// (a pipe, -o, --fields) the record with every field, for scripts. Both come from one record, so
// they never disagree.
import { writeRecord, type OutputSettings, type RecordShape, type Row } from './output.js';
import { writeAll } from './streams.js';
import { fitToTerminal } from './columns.js';

/** Whether the person at a terminal gets the summary rather than the record. */
export function summaryWanted(settings: OutputSettings): boolean {
  return settings.format === 'table' && !settings.chosen && !settings.fields && Boolean(settings.stdout.isTTY);
}

/** A line that says something holds (✔, green) or does not (✗, red), as gh marks them. */
export function mark(settings: OutputSettings, ok: boolean, text: string): string {
  const sign = ok ? '✔' : '✗';
  if (!settings.color) return `${sign} ${text}`;
  return `${ok ? '\u001b[32m' : '\u001b[31m'}${sign}\u001b[39m ${text}`;
}

export async function writeSummary(settings: OutputSettings, summary: string[], record: Row, shape: RecordShape): Promise<void> {
  if (!summaryWanted(settings)) return writeRecord(settings, record, shape);
  await writeAll(settings.stdout, `${fitToTerminal(settings.stdout, summary.join('\n'))}\n`);
}
