// The receipt as a one-page HTML report a DPO attaches to the ticket: the facts of
// receipt-view.ts in a table that reads on a desktop and a phone. Every text is escaped, and the
// page loads nothing (no script, no style sheet, no font from elsewhere).
import type { ReceiptFacts } from './receipt-view.js';

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** What a reader calls the report of each job: the command's name is the operator's word. */
const REPORT_TITLES: Record<string, string> = {
  'persons bulk-delete': 'Erasure report',
  'persons bulk-update': 'Update report',
  'persons merge': 'Merge report',
};

/** A sentence escaped, a command in it (between backticks) set as code. */
const withCode = (text: string) => escape(text).replace(/`([^`]+)`/g, '<code>$1</code>');

export function receiptHtml(view: ReceiptFacts, generatedAt: string): string {
  const rows = view.facts.map(([label, text]) => `<tr><th scope="row">${escape(label)}</th><td>${withCode(text)}</td></tr>`).join('\n');
  const command = view.title.replace(/: .*$/, '');
  const heading = REPORT_TITLES[command];
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(heading ?? view.title)}</title>
<style>
body { font: 16px/1.5 system-ui, sans-serif; margin: 2rem auto; max-width: 46rem; padding: 0 1rem; color: #222; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; vertical-align: top; padding: .4rem .6rem; border-bottom: 1px solid #ddd; overflow-wrap: anywhere; }
th { white-space: nowrap; width: 9rem; }
h1 { margin-bottom: .2rem; } .status { margin-top: 0; color: #555; } code { font-size: .9em; overflow-wrap: anywhere; }
@media (max-width: 30rem) { th, td { display: block; width: auto; border: 0; padding: .1rem 0; } td { padding-bottom: .6rem; } }
</style>
</head>
<body>
${heading ? `<h1>${escape(heading)}</h1>\n<p class="status">${escape(view.title)}</p>` : `<h1>${escape(view.title)}</h1>`}
<table>
${rows}
</table>
<p><small>Written by hogctl from the receipt on ${escape(generatedAt.slice(0, 16).replace('T', ' '))} UTC.</small></p>
</body>
</html>
`;
}
