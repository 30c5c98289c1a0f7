// The help topics (`hogctl help exit-codes`, `hogctl help environment`). The README's tables of
// the same name are generated from these rows, so the two cannot disagree.

export interface Topic {
  title: string;
  intro: string;
  head: [string, string];
  rows: [string, string][];
}

export const TOPICS: Record<string, Topic> = {
  'exit-codes': {
    title: 'Exit codes',
    intro: 'Every command exits with one of these codes; scripts can rely on them.',
    head: ['code', 'meaning'],
    rows: [
      ['0', 'success, also an empty result, `--help`, `--version`'],
      ['1', 'unexpected error (a bug: a short report is printed; `--debug` adds the details)'],
      ['2', 'usage error: bad flags or arguments, invalid input file, `--yes` needed but not given'],
      ['3', 'not found'],
      ['4', 'authentication or permission: no credentials, 401, 403, missing scope, session needed, wrong password or code'],
      ['5', 'the API rejected the request (400, 409, 415, 422)'],
      ['6', 'still rate-limited after retries'],
      ['7', 'server or network failure after retries, timeout'],
      ['8', 'partial failure of a bulk operation (summary on stderr, details in the journal and receipt)'],
      ['130', 'cancelled (Ctrl-C, or a declined confirmation)'],
    ],
  },
  environment: {
    title: 'Environment variables',
    intro: 'Settings resolve in this order, first wins: flags, these variables, the chosen profile, the current profile.',
    head: ['variable', 'meaning'],
    rows: [
      ['`HOGCTL_PROFILE`', 'profile to use (like `--profile`)'],
      ['`HOGCTL_BASE_URL`', 'PostHog site URL, e.g. `https://eu.posthog.com` (like `--base-url`)'],
      ['`HOGCTL_PROJECT_ID`', 'project id (like `--project`)'],
      ['`HOGCTL_API_KEY`', "personal API key; beats the profile's stored key (there is no flag for it)"],
      ['`HOGCTL_CONFIG_DIR`', 'where profiles, sessions and journals live (default `$XDG_CONFIG_HOME/hogctl` or `~/.config/hogctl`)'],
      ['`HOGCTL_OUTPUT`', 'default output format: table, json, ndjson or csv'],
      ['`HOGCTL_TIMEOUT`', 'default per-request timeout in seconds (like `--timeout`)'],
      ['`HOGCTL_PROGRESS_INTERVAL`', 'seconds between progress lines of long jobs off a terminal (default 10)'],
      ['`NO_COLOR`, `FORCE_COLOR`', 'turn colour off / on whatever the terminal'],
      ['`HTTPS_PROXY`, `HTTP_PROXY`, `NO_PROXY`', 'proxies, honoured for every request'],
      ['`CI`', 'nothing special: prompts depend only on whether stdin and stderr are terminals, and `--no-input`'],
    ],
  },
};

export function topicText(name: string): string {
  const t = TOPICS[name];
  const plain = (s: string) => s.replace(/`/g, '');
  const width = Math.max(t.head[0].length, ...t.rows.map(([a]) => plain(a).length));
  const lines = t.rows.map(([a, b]) => `  ${plain(a).padEnd(width)}  ${plain(b)}`);
  return `${t.title}\n\n${t.intro}\n\n${lines.join('\n')}\n`;
}

export function topicMarkdown(name: string): string {
  const t = TOPICS[name];
  return [t.intro, '', `| ${t.head[0]} | ${t.head[1]} |`, '|---|---|', ...t.rows.map(([a, b]) => `| ${a} | ${b} |`)].join('\n');
}
