// The parts of `hogctl api` that touch the world: the path, the request body from a file or
// standard input, and printing whatever came back in the chosen format.
import { readFile } from 'node:fs/promises';
import type { Context } from '../../../context.js';
import { UsageError } from '../../../errors.js';
import type { ApiClient, ApiResponse, Query } from '../../../http/client.js';
import { RecordWriter, writeFiltered, writeRecord, type OutputSettings, type Row } from '../../../io/output.js';
import { writeAll } from '../../../io/streams.js';
import { counted } from '../../../io/counts.js';

/** A path under the base URL; `{project_id}` becomes the chosen project. */
export async function resolvePath(ctx: Context, raw: string): Promise<string> {
  const path = raw.trim();
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(path)) {
    throw new UsageError(
      `give a path, not a URL: "${raw}"`,
      'the host comes from the profile or --base-url, e.g. hogctl api GET /api/projects/{project_id}/persons/',
    );
  }
  if (path === '' || /\s/.test(path)) throw new UsageError(`invalid path "${raw}"`, 'e.g. /api/projects/{project_id}/persons/');
  const withSlash = path.startsWith('/') ? path : `/${path}`;
  if (!withSlash.includes('{project_id}')) return withSlash;
  return withSlash.split('{project_id}').join(encodeURIComponent(await ctx.projectId()));
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  stream.setEncoding('utf8');
  for await (const chunk of stream) text += chunk;
  return text;
}

/** The request body of --input: JSON from a file, or from standard input with `-`. */
export async function readJsonInput(ctx: Context, file: string): Promise<unknown> {
  const name = file === '-' ? 'standard input' : file;
  let text: string;
  try {
    text = file === '-' ? await readAll(ctx.io.stdin) : await readFile(file, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read --input ${name}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  if (text.trim() === '') throw new UsageError(`--input ${name} is empty`, 'give a JSON body, e.g. {"distinct_ids": ["user-881"]}');
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--input ${name} is not valid JSON: ${(error as Error).message}`);
  }
}

/** Fields as query parameters: text as it is, anything else as JSON (`5`, `true`, `[...]`). */
export function toQuery(fields: Record<string, unknown>): Query {
  const query: Query = {};
  for (const [key, value] of Object.entries(fields)) query[key] = typeof value === 'string' ? value : JSON.stringify(value);
  return query;
}

/** JSON unless -o (or HOGCTL_OUTPUT) asks for another format: `api` shows bodies, not tables. */
export async function outputFor(ctx: Context): Promise<OutputSettings> {
  return ctx.output({ defaultFormat: 'json' });
}

function isObject(value: unknown): value is Row {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The records in a body: an array, or a page's `results`; undefined when it has none. */
function recordsOf(body: unknown): Row[] | undefined {
  const list = Array.isArray(body) ? body : isObject(body) && Array.isArray(body.results) ? body.results : undefined;
  return list?.map((item: unknown) => (isObject(item) ? item : { value: item }));
}

export type Redact = (text: string) => string;

/** Every string in a value passed through `redact`: a server may echo a key back, e.g. in `next`. */
export function redactDeep(value: unknown, redact: Redact): unknown {
  if (typeof value === 'string') return redact(value);
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, redact));
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactDeep(v, redact)]));
  return value;
}

export async function printBody(ctx: Context, output: OutputSettings, res: ApiResponse<unknown>, redact: Redact): Promise<void> {
  const body = redactDeep(res.body, redact);
  if (body === null || body === undefined) {
    ctx.info(`${res.status} (empty body)`);
    return;
  }
  if (typeof body === 'string') {
    await writeAll(ctx.io.stdout, body.endsWith('\n') ? body : `${body}\n`);
    return;
  }
  const records = recordsOf(body);
  if (output.filter && !output.fields) {
    await writeFiltered(output, output.filter, body);
  } else if (output.format === 'json' && !output.fields) {
    await writeAll(ctx.io.stdout, `${JSON.stringify(body, null, 2)}\n`);
  } else if (records) {
    const writer = new RecordWriter(output, { columns: [] });
    await writer.writePage(records);
    await writer.end();
  } else if (isObject(body)) {
    await writeRecord(output, body, { columns: [] });
  } else {
    await writeAll(ctx.io.stdout, `${JSON.stringify(body)}\n`);
  }
}

/**
 * --paginate: follows `next` from page to page. In json the pages print whole, one after
 * another; other formats print every page's `results` as one stream of records.
 */
export async function printPages(
  ctx: Context,
  output: OutputSettings,
  client: ApiClient,
  path: string,
  query: Query | undefined,
  redact: Redact,
): Promise<void> {
  const rawPages = output.format === 'json' && !output.fields;
  const writer = rawPages ? undefined : new RecordWriter(output, { columns: [] });
  let url: string | null | undefined = client.url(path, query).href;
  const seen = new Set<string>();
  let pages = 0;
  while (url && !seen.has(url)) {
    seen.add(url);
    const res: ApiResponse<unknown> = await client.get<unknown>(url, undefined, { signal: ctx.deps.signal });
    const body = redactDeep(res.body, redact);
    const records = recordsOf(body);
    // Something that is not a page (no results) has nothing to follow: print it as it is.
    if (pages === 0 && !records) {
      await printBody(ctx, output, res, redact);
      return;
    }
    // A full last page links to an empty one (docs/server-contract.md §2); the empty one is not a page to print.
    if (!records || (records.length === 0 && pages > 0)) break;
    pages++;
    // With --jq, each page is filtered as it comes, as `gh api --paginate --jq` does.
    if (writer) await writer.writePage(records);
    else if (output.filter) await writeFiltered(output, output.filter, body);
    else await writeAll(ctx.io.stdout, `${JSON.stringify(body, null, 2)}\n`);
    url = isObject(res.body) && typeof res.body.next === 'string' ? res.body.next : null;
  }
  await writer?.end();
  ctx.debug(`--paginate: ${counted(pages, 'page')}`);
}
