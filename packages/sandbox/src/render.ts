// Content negotiation and rendering, as DRF does it: `?format=` wins over the Accept header, an
// unknown format is a 404, an Accept header nothing can satisfy is a 406, and the CSV renderer
// writes only `results` (so anything without results renders as an empty CSV).

import { json, lastParam, type RequestContext, type Renderer, type SandboxResponse } from './context.js';
import { notAcceptable, notFound } from './errors.js';
import { renderCsv } from './csv.js';

const MEDIA: Record<Renderer, string> = { json: 'application/json', csv: 'text/csv' };

export function negotiate(ctx: RequestContext, renderers: Renderer[]): Renderer {
  const format = lastParam(ctx.query, 'format');
  if (format !== null) {
    if ((renderers as string[]).includes(format)) return format as Renderer;
    throw notFound();
  }
  const accept = ctx.headers.accept;
  if (!accept || accept.trim() === '') return renderers[0];
  const wanted = accept
    .split(',')
    .map((part, index) => {
      const [type, ...params] = part.trim().split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      return { type: type.trim().toLowerCase(), q: q ? Number(q.slice(2)) : 1, index };
    })
    .filter((w) => w.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  for (const w of wanted) {
    if (w.type === '*/*' || w.type === 'application/*') return renderers[0];
    const found = renderers.find((r) => MEDIA[r] === w.type || (w.type === 'text/*' && MEDIA[r].startsWith('text/')));
    if (found) return found;
  }
  throw notAcceptable();
}

/** Renders a successful body with the negotiated renderer. */
export function render(ctx: RequestContext, status: number, data: unknown, headers: Record<string, string> = {}): SandboxResponse {
  if (ctx.renderer === 'csv') {
    const results = Array.isArray(data)
      ? data
      : data && typeof data === 'object' && Array.isArray((data as { results?: unknown }).results)
        ? (data as { results: unknown[] }).results
        : [];
    return { status, headers: { 'Content-Type': 'text/csv; charset=utf-8', ...headers }, body: renderCsv(results) };
  }
  return json(status, data, headers);
}
