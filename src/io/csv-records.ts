// Counts the records of a CSV text with a real parser, since a quoted field may hold line
// breaks. csv-parse is a heavy module that only `persons list --server-format csv` needs, so it
// loads here, on the first call, and nowhere else (the import rule, ARCHITECTURE.md §6).
export async function countCsvRecords(text: string): Promise<number> {
  const { parse } = await import('csv-parse/sync');
  return (parse(text, { relax_column_count: true }) as unknown[]).length;
}
