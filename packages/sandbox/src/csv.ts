// CSV as djangorestframework-csv 2.1.1 renders a page (docs/server-contract.md §6.2): only `results`,
// nested values flattened into dotted columns (`properties.email`, `distinct_ids.0`), empty
// dicts and lists contribute no column, the header is the sorted union of all keys, and values
// are written by Python's csv module (minimal quoting, \r\n, None as empty, True/False).

type Flat = Record<string, unknown>;

function flattenInto(out: Flat, prefix: string, value: unknown): void {
  if (Array.isArray(value)) {
    value.forEach((v, i) => flattenInto(out, prefix ? `${prefix}.${i}` : String(i), v));
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) flattenInto(out, prefix ? `${prefix}.${k}` : k, v);
  } else {
    out[prefix] = value;
  }
}

export function flatten(item: unknown): Flat {
  const out: Flat = {};
  flattenInto(out, '', item);
  return out;
}

function pythonStr(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (value === true) return 'True';
  if (value === false) return 'False';
  return String(value);
}

function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function renderCsv(results: unknown[]): string {
  if (results.length === 0) return '';
  const rows = results.map(flatten);
  const header = [...new Set(rows.flatMap((r) => Object.keys(r)))].sort();
  const lines = [header.map(csvField).join(',')];
  for (const row of rows) lines.push(header.map((key) => csvField(pythonStr(row[key]))).join(','));
  return lines.join('\r\n') + '\r\n';
}
