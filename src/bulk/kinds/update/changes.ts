// The changes of `persons bulk-update`: what every person gets (--set, --set-once, --unset) and,
// with --values-from, what each person gets of their own. They bind the journal, so that a
// resumed run makes exactly the same changes.
export interface Changes {
  /** capture: $set events through the ingestion API; api: the REST person endpoints. */
  via: 'capture' | 'api';
  set: Record<string, unknown>;
  set_once: Record<string, unknown>;
  unset: string[];
  /** --values-from: the file of per-person values and its SHA-256 (a changed file is another job). */
  values_from: { file: string; sha256: string } | null;
}

/** "--set plan=team --unset email phone", for the plan and the binding of the journal. */
export function describeChanges(c: Changes): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(c.set)) parts.push(`set ${key}=${JSON.stringify(value)}`);
  for (const [key, value] of Object.entries(c.set_once)) parts.push(`set once ${key}=${JSON.stringify(value)}`);
  if (c.unset.length) parts.push(`unset ${c.unset.join(', ')}`);
  if (c.values_from) parts.push(`values from ${c.values_from.file}`);
  return `${parts.join(' · ')} (through ${c.via === 'capture' ? 'capture' : 'the REST API'})`;
}
