// summary.html: one page a DPO can send on with the bundle, written for the person it is about.
// Self-contained (inline style, inline SVG, no script, no link, no image from anywhere), so it
// opens the same offline, in a mail client or years later, on a phone too: per project, each
// person's stored properties and distinct ids, what the files hold with counts and date ranges,
// a bar chart of the events per month, and what PostHog holds that the bundle does not. What the
// operator has to do about a part that could not be read is said to the operator (stderr, the
// manifest), never here.
import { formatNumber } from '../../../io/counts.js';
import { NOT_IN_BUNDLE } from './contents.js';

export interface SummaryPerson {
  uuid: string;
  distinctIds: string[];
  /** As stored (person.json); null when the record could not be read. */
  properties: Record<string, unknown> | null;
  events: number;
  firstEvent: string | null;
  lastEvent: string | null;
  /** "YYYY-MM" → events. */
  months: Record<string, number>;
  /** `missing`: not in the bundle (the manifest says why); `empty`: why it holds nothing. */
  parts: { name: string; count: number | null; missing?: boolean; empty?: string }[];
}

/** The events of a project whose distinct ids, among those asked for, are no person's. */
export interface SummaryNoPerson {
  distinctIds: string[];
  events: number;
  firstEvent: string | null;
  lastEvent: string | null;
  months: Record<string, number>;
  /** Not all of them are in the bundle (the manifest says why). */
  missing: boolean;
}

export interface SummaryProject {
  id: string;
  name: string | null;
  unreachable?: string;
  persons: SummaryPerson[];
  noPerson?: SummaryNoPerson;
}

export interface SummaryInput {
  host: string;
  requestedBy: string | null;
  createdAt: string;
  until: string;
  identifiers: string[];
  projects: SummaryProject[];
}

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
const n = formatNumber;
const day = (iso: string | null) => (iso ? iso.slice(0, 10) : '—');
/** "2026-11-22 10:00 UTC": a time as its reader reads it. */
const minute = (iso: string) => (/^\d{4}-\d\d-\d\dT\d\d:\d\d/.test(iso) ? `${iso.slice(0, 16).replace('T', ' ')} UTC` : iso);

/** Every month from the first to the last, gaps included, so the bars keep their time scale. */
function monthSpan(months: Record<string, number>): [string, number][] {
  const keys = Object.keys(months).sort();
  if (keys.length === 0) return [];
  const out: [string, number][] = [];
  let [y, m] = keys[0].split('-').map(Number);
  const [ly, lm] = keys[keys.length - 1].split('-').map(Number);
  while (y < ly || (y === ly && m <= lm)) {
    const key = `${y}-${String(m).padStart(2, '0')}`;
    out.push([key, months[key] ?? 0]);
    m++;
    if (m > 12) {
      m = 1;
      y++;
    }
  }
  return out;
}

/** Events per month as bars, with the month under every bar (or every few, when many). */
export function monthChart(months: Record<string, number>): string {
  const span = monthSpan(months);
  if (span.length === 0) return '<p class="none">No events.</p>';
  const width = 860;
  const height = 180;
  const left = 50;
  const bottom = 30;
  const max = Math.max(...span.map(([, v]) => v));
  const slot = (width - left) / span.length;
  const bar = Math.max(1, slot * 0.8);
  const every = Math.ceil(span.length / 12);
  const bars = span
    .map(([month, value], i) => {
      const h = max === 0 ? 0 : Math.round(((height - bottom - 10) * value) / max);
      const x = left + i * slot + (slot - bar) / 2;
      const label =
        i % every === 0 ? `<text x="${(x + bar / 2).toFixed(1)}" y="${height - bottom + 16}" text-anchor="middle">${month}</text>` : '';
      return `<rect x="${x.toFixed(1)}" y="${height - bottom - h}" width="${bar.toFixed(1)}" height="${h}"><title>${month}: ${n(value)} events</title></rect>${label}`;
    })
    .join('');
  return (
    `<svg viewBox="0 0 ${width} ${height}" role="img" aria-label="events per month">` +
    `<line x1="${left}" y1="${height - bottom}" x2="${width}" y2="${height - bottom}" class="axis"/>` +
    `<text x="${left - 6}" y="14" text-anchor="end">${n(max)}</text><text x="${left - 6}" y="${height - bottom}" text-anchor="end">0</text>` +
    `${bars}</svg>`
  );
}

function mergeMonths(persons: { months: Record<string, number> }[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const p of persons) for (const [k, v] of Object.entries(p.months)) out[k] = (out[k] ?? 0) + v;
  return out;
}

/** Distinct ids a page lists; person.json holds every one. */
const IDS_SHOWN = 50;
/** Characters of a property's value a page shows. */
const VALUE_SHOWN = 200;

const shown = (value: unknown) => {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  return text.length > VALUE_SHOWN ? `${text.slice(0, VALUE_SHOWN - 1)}…` : text;
};

function propertiesTable(properties: Record<string, unknown> | null): string {
  if (properties === null) return '<p class="none">The stored record could not be read.</p>';
  const keys = Object.keys(properties).sort();
  if (keys.length === 0) return '<p class="none">No properties are stored.</p>';
  const rows = keys.map((k) => `<tr><td>${esc(k)}</td><td class="value">${esc(shown(properties[k]))}</td></tr>`).join('');
  return `<table class="props"><thead><tr><th>Property</th><th>Value</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function distinctIdList(ids: string[]): string {
  const more = ids.length > IDS_SHOWN ? `<li class="none">… and ${n(ids.length - IDS_SHOWN)} more (all are in person.json)</li>` : '';
  return `<ul class="ids">${ids
    .slice(0, IDS_SHOWN)
    .map((id) => `<li><code>${esc(id)}</code></li>`)
    .join('')}${more}</ul>`;
}

/** A part, its count, and under its name (so that a phone's narrow column stays readable) why
 * it is missing or empty. */
function partRow(part: SummaryPerson['parts'][number]): string {
  const items = part.missing ? '' : part.count === null ? '✓' : n(part.count);
  const remark = part.missing ? '<span class="warn">not included in this export</span>' : part.empty ? esc(part.empty) : '';
  return `<tr><td>${esc(part.name)}${remark ? `<div class="remark">${remark}</div>` : ''}</td><td class="num">${items}</td></tr>`;
}

function personSection(p: SummaryPerson): string {
  const ids = p.distinctIds.length;
  return `<h3>Person <code>${esc(p.uuid)}</code></h3>
<p>${n(ids)} ${ids === 1 ? 'distinct id' : 'distinct ids'} · ${n(p.events)} events${p.events ? `, from ${day(p.firstEvent)} to ${day(p.lastEvent)}` : ''}</p>
<h4>Properties</h4>${propertiesTable(p.properties)}
<h4>Distinct ids</h4>${distinctIdList(p.distinctIds)}
<h4>What the files hold</h4>
<table class="parts"><thead><tr><th>Part</th><th class="num">Items</th></tr></thead><tbody>${p.parts.map(partRow).join('')}</tbody></table>`;
}

function noPersonSection(u: SummaryNoPerson): string {
  const missing = u.missing ? '<p class="warn">Not all of these events are included in this export.</p>' : '';
  return `<h3>Events of distinct ids that are no person's</h3>
<p>These events carry a distinct id asked for that no person holds: they were sent without a person profile, or under an address used only as a distinct id. ${n(u.events)} events${u.events ? `, from ${day(u.firstEvent)} to ${day(u.lastEvent)}` : ''}.</p>${missing}
<h4>Distinct ids</h4>${distinctIdList(u.distinctIds)}`;
}

function projectSection(project: SummaryProject): string {
  const title = `Project ${esc(project.id)}${project.name ? ` — ${esc(project.name)}` : ''}`;
  if (project.unreachable)
    return `<section><h2>${title}</h2><p class="warn">Could not be searched: ${esc(project.unreachable)}</p></section>`;
  const units = [...project.persons, ...(project.noPerson ? [project.noPerson] : [])];
  const events = units.reduce((k, p) => k + p.events, 0);
  const firsts = units
    .map((p) => p.firstEvent)
    .filter((x): x is string => Boolean(x))
    .sort();
  const lasts = units
    .map((p) => p.lastEvent)
    .filter((x): x is string => Boolean(x))
    .sort();
  const found = project.persons.length ? '' : '<p class="none">No person found here.</p>';
  return `<section><h2>${title}</h2>
<p>${n(project.persons.length)} ${project.persons.length === 1 ? 'person' : 'persons'} · ${n(events)} events${events ? `, from ${day(firsts[0])} to ${day(lasts[lasts.length - 1])}` : ''}</p>
${units.length ? `<h3>Events per month</h3>${monthChart(mergeMonths(units))}` : ''}${found}
${project.persons.map(personSection).join('\n')}${project.noPerson ? `\n${noPersonSection(project.noPerson)}` : ''}</section>`;
}

function notInBundle(): string {
  return `<section><h2>What PostHog holds that this export does not</h2><ul>${NOT_IN_BUNDLE.map(
    (x) => `<li><strong>${esc(x.what)}</strong>: ${esc(x.why)}.</li>`,
  ).join('')}</ul></section>`;
}

export function summaryHtml(s: SummaryInput): string {
  const projects = s.projects.map(projectSection).join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Subject access export</title>
<meta name="viewport" content="width=device-width,initial-scale=1">
<style>
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1d1f24;max-width:920px;margin:2em auto;padding:0 1em}
h4{font-size:.95em;margin:.8em 0 .2em;color:#3d4250}svg{width:100%;height:auto}.props td.value,.ids code,.remark{overflow-wrap:anywhere}
.parts{width:100%}.parts td:first-child{white-space:normal}.remark{font-size:.88em;color:#5a5f6b}.ids{columns:2 16em;padding-left:1.2em;margin:.2em 0}.props{width:100%}.props td:first-child{width:30%;white-space:normal;overflow-wrap:anywhere}
h1{font-size:1.6em;margin-bottom:.2em}h2{border-bottom:1px solid #d5d8de;padding-bottom:.2em;margin-top:1.6em}h3{font-size:1.05em;margin-bottom:.3em}
table{border-collapse:collapse;margin:.3em 0 1em}td,th{padding:.2em .8em .2em 0;text-align:left}td:first-child{white-space:nowrap}td{vertical-align:top}th{border-bottom:1px solid #d5d8de}
.num{text-align:right}.warn{color:#a4470a}.none{color:#6b7080}dl{display:grid;grid-template-columns:max-content 1fr;gap:.1em 1em}dt{color:#6b7080}
svg rect{fill:#3a5bd9}svg text{font-size:14px;fill:#6b7080}svg .axis{stroke:#9aa0ad}code{font-size:.92em}
</style></head><body>
<h1>Subject access export</h1>
<dl><dt>Asked for</dt><dd>${s.identifiers.map((i) => esc(i)).join(', ')}</dd>
<dt>Prepared by</dt><dd>${esc(s.requestedBy ?? 'unknown')}</dd>
<dt>Source</dt><dd>${esc(s.host)}</dd>
<dt>Data up to</dt><dd>${esc(minute(s.until))}</dd>
<dt>Exported</dt><dd>${esc(minute(s.createdAt))}</dd></dl>
<p>What ${esc(s.host)} holds in PostHog about the person asked for, up to ${esc(minute(s.until))}. The files sent with this page hold every record; this page shows the stored properties and counts the rest.</p>
${projects}
${notInBundle()}
</body></html>
`;
}
