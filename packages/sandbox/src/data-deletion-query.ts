// What a data deletion request's query and variables must be (PostHog/posthog PR #104278,
// posthog/data_deletion.py: `validate_payload_size`, `compile_event_uuid_query`; posthog/schema.py
// `HogQLVariable`): at most 100,000 bytes each, variables an object of HogQLVariable values, and a
// query of exactly one UUID-typed column. It is parsed by PostHog's own grammar
// (hogql/posthog-grammar.ts, loaded by the routes before they call here), so a syntax error is
// PostHog's; then it runs on the sandbox's HogQL subset (hogql/execute.ts) over the whole project,
// with no implicit LIMIT.

import { fieldError } from './errors.js';
import { selectAll } from './hogql/execute.js';
import { parseSelect } from './hogql/posthog-grammar.js';
import { expressions, HogQLError, type Expr, type SelectQuery } from './hogql/types.js';
import type { EventStore } from './events.js';
import type { SandboxStore } from './store.js';

export const MAX_QUERY_BYTES = 100_000;
export const MAX_VARIABLES_BYTES = 100_000;

/** Python's `json.dumps(value, separators=(",", ":"))`: ensure_ascii escapes every non-ASCII
 * UTF-16 unit as \uXXXX, which is what the variables limit measures. */
function pythonCompactJson(value: unknown): string {
  return JSON.stringify(value).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * `validate_payload_size`. Whether a payload of exactly 100,000 bytes passes is not in the source
 * read; the sandbox refuses only what is larger [an assumption].
 */
export function checkPayloadSize(query: string, variables: Record<string, unknown>): void {
  if (Buffer.byteLength(query, 'utf8') > MAX_QUERY_BYTES)
    throw fieldError('query', 'invalid_input', `The query must be smaller than ${MAX_QUERY_BYTES} bytes.`);
  if (Buffer.byteLength(pythonCompactJson(variables), 'utf8') > MAX_VARIABLES_BYTES)
    throw fieldError('variables', 'invalid_input', `The query variables must be smaller than ${MAX_VARIABLES_BYTES} bytes.`);
}

const VARIABLE_FIELDS = new Set(['code_name', 'variableId', 'value', 'isNull']);

/** `HogQLVariable.model_validate` of each value (`extra="forbid"`); the keys are not checked. */
function variableValues(variables: Record<string, unknown>): Map<string, { value: unknown; isNull: boolean; hasValue: boolean }> {
  const byCodeName = new Map<string, { value: unknown; isNull: boolean; hasValue: boolean }>();
  for (const raw of Object.values(variables)) {
    const ok =
      raw !== null &&
      typeof raw === 'object' &&
      !Array.isArray(raw) &&
      Object.keys(raw).every((k) => VARIABLE_FIELDS.has(k)) &&
      typeof (raw as Record<string, unknown>).code_name === 'string' &&
      typeof (raw as Record<string, unknown>).variableId === 'string' &&
      [undefined, null, true, false].includes((raw as Record<string, unknown>).isNull as never);
    if (!ok) throw fieldError('variables', 'invalid_input', 'The query variables are invalid.');
    const v = raw as Record<string, unknown>;
    byCodeName.set(v.code_name as string, { value: v.value ?? null, isNull: v.isNull === true, hasValue: 'value' in v });
  }
  return byCodeName;
}

/** Every expression of a query and of its `IN (SELECT …)` subqueries. */
function* allExpressions(query: SelectQuery): Generator<Expr> {
  for (const e of expressions(query)) {
    yield e;
    if (e.kind === 'subquery') yield* allExpressions(e.query);
  }
}

/** A 400 on `query`, as PostHog answers a HogQL error of a deletion request's query. */
export function queryError(message: string) {
  return fieldError('query', 'invalid_input', message);
}

export interface SelectionSource {
  store: SandboxStore;
  events: EventStore | undefined;
  teamId: number;
}

/**
 * Compiles and runs the query, and answers with the event UUIDs it selects: what preview counts
 * and what pickup queues. HogQL errors and the shape checks are 400s on `query`, in
 * `compile_event_uuid_query`'s order.
 */
export function selectEventUuids(query: string, variables: Record<string, unknown>, source: SelectionSource): string[] {
  const byCodeName = variableValues(variables);
  let parsed;
  try {
    parsed = parseSelect(query);
  } catch (error) {
    if (error instanceof HogQLError) throw queryError(error.message);
    throw error;
  }
  // `{variables.<code_name>}` placeholders take the request's values (the newest
  // posthog/hogql/variables.py); a plain `{name}` is left unfilled, as on this path.
  const values: Record<string, unknown> = {};
  const missing: string[] = [];
  for (const e of allExpressions(parsed)) {
    if (e.kind !== 'placeholder' || !e.name.startsWith('variables.')) continue;
    const variable = byCodeName.get(e.name.slice('variables.'.length));
    if (!variable || (!variable.hasValue && !variable.isNull)) missing.push(e.name.slice('variables.'.length));
    else values[e.name] = variable.isNull ? null : variable.value;
  }
  if (missing.length) throw queryError(`Set a value or a default for each query variable. Missing: ${[...new Set(missing)].join(', ')}`);
  let result;
  try {
    result = selectAll({ query: parsed, values, store: source.store, events: source.events, teamId: source.teamId });
  } catch (error) {
    if (error instanceof HogQLError) throw queryError(error.message);
    throw error;
  }
  if (result.columns.length !== 1) throw queryError('The HogQL query must select exactly one event UUID column.');
  if (!/^(Nullable\()?UUID\)?$/.test(result.types[0][1])) throw queryError('The selected column must contain event UUIDs.');
  return result.rows.map((row) => row[0]).filter((uuid): uuid is string => typeof uuid === 'string');
}
