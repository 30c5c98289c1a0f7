// Reads CSV text with a real parser, since a quoted field may hold line breaks. csv-parse is a
// heavy module that only `persons list --server-format csv` and `persons bulk-update
// --values-from` need, so it loads here, on the first call, and nowhere else (the import rule,
// ARCHITECTURE.md §6).
export async function countCsvRecords(text: string): Promise<number> {
  const { parse } = await import('csv-parse/sync');
  return (parse(text, { relax_column_count: true }) as unknown[]).length;
}

/** The records of a CSV text, each with the line it ends on (for messages that name the line). */
export async function parseCsvRecords(text: string): Promise<{ record: string[]; line: number }[]> {
  const { parse } = await import('csv-parse/sync');
  const records = parse(text, { relax_column_count: true, skip_empty_lines: true, info: true }) as unknown as {
    record: string[];
    info: { lines: number };
  }[];
  return records.map(({ record, info }) => ({ record, line: info.lines }));
}
