// The help topics: tables (`hogctl help exit-codes`, `hogctl help environment`) and prose pages
// (`hogctl help erasure`), the long explanations a verb's short help names instead of printing
// them before its options. The README's tables and its help-topics section are generated from
// these, so the two cannot disagree.

import { wrapHanging } from '../io/columns.js';

export interface TableTopic {
  title: string;
  intro: string;
  head: [string, string];
  rows: [string, string][];
}

export interface ProseTopic {
  title: string;
  /** What the page explains, in a line: for the list of topics. */
  about: string;
  paragraphs: string[];
}

export type Topic = TableTopic | ProseTopic;

const isProse = (t: Topic): t is ProseTopic => 'paragraphs' in t;

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
      [
        '9',
        'done, at least in part, but not all of it recorded: a receipt, journal, plan or bundle file could not be written whole, or `--jq`/`--template` failed on the output (the message says what was done and how to get the rest)',
      ],
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
      [
        '`HOGCTL_CAPTURE_URL`',
        "ingestion host of the capture requests of `persons bulk-update` and `persons merge` (`--capture-url` beats it; it beats the profile's)",
      ],
      [
        '`HOGCTL_EVIDENCE_KEY`',
        "the evidence key that signs plans and names an erasure's addresses, instead of the config directory's file (a CI secret)",
      ],
      ['`NO_COLOR`, `FORCE_COLOR`', 'turn colour off / on whatever the terminal'],
      ['`HTTPS_PROXY`, `HTTP_PROXY`, `NO_PROXY`', 'proxies, honoured for every request'],
      ['`CI`', 'nothing special: prompts depend only on whether stdin and stderr are terminals, and `--no-input`'],
    ],
  },
  'bulk-input': {
    title: 'Bulk jobs: what the input can be, and how it is looked up',
    about: 'the files and selections bulk-delete and bulk-update read, and how they are looked up',
    paragraphs: [
      'Input: one id per line (blank lines and # comments ignored), CSV with --column, a JSON array, or NDJSON (strings, or objects with --column); "-" reads standard input. The format follows the file extension or the content; --format overrides it. A CSV whose header has two or more of the columns email, distinct_id and person_id (or uuid, or id) is read as mixed identifiers: every non-empty cell is looked up as its column says.',
      'A plain file of person ids for one project is sent as it is. Everything else, distinct ids too, is looked up first, with reads only (batched HogQL queries for addresses, batch_by_uuids and batch_by_distinct_ids for ids, 200 a request): the plan then says how many persons each project holds and lists the identifiers that name no one, and one identifier that names several persons deletes them all. On a terminal, more than 100 persons (from a file or a selection) are confirmed by typing the count.',
    ],
  },
  'bulk-plans': {
    title: 'Bulk deletions: plan, review, apply',
    about: 'a signed plan file reviewed before it is applied (--plan-out, --plan)',
    paragraphs: [
      'Plan, review, apply: --dry-run --plan-out plan.json writes the resolved plan (host, projects, person UUIDs, the persons each identifier names, flags), signed with an HMAC-SHA256 under the evidence key of the config directory (a 0600 file, created on first need; the plan names it by a public id and never holds it). --plan plan.json applies exactly that plan with no lookup. What the signature protects against: an edit of the plan, by one byte, by anyone who does not hold the key, even one who read this code and recomputes every digest it could; not an edit by someone who holds the key, who can sign what they like (give it only to those you would let approve a plan). A plan is also refused when it disagrees with itself (its counts against its lists), when it is unsigned (made by an earlier hogctl: make a new one), and when it is meant for another profile, host or projects (--project or --projects naming others). What the plan shows before it is applied (persons, projects, flags, counts) is counted from the lists that will be sent. To apply it on another machine (CI), give that machine the key: `hogctl evidence export-key` there into `hogctl evidence import-key`, or into the HOGCTL_EVIDENCE_KEY secret of the pipeline; never as a flag.',
    ],
  },
  erasure: {
    title: 'Erasure: e-mail addresses, the evidence, and the check afterwards',
    about: 'what an erasure matches, what its journal and receipt keep, and how it is checked later',
    paragraphs: [
      'With --emails <file> (or --email <address>, repeated) the values are e-mail addresses, as an erasure request names people: each address is matched (exactly, ignoring the case of ASCII letters) against the email property and against the distinct ids, in HogQL reads of up to 1,000 addresses at a time, and looked up as a distinct id with batch_by_distinct_ids (200 a request), which also finds a person revived after an earlier deletion (HogQL does not show one until its distinct id is reset); every person it names is deleted, and the plan and the receipt say how many addresses were found where and list those that name no one. A stored address that differs from one given only by spaces around it or a trailing dot is not matched: the plan lists it as a near-match, with its person, which is deleted only if you give its person id. The journal, the receipt and the plan name each address (and each distinct id that looks like one) by HMAC-SHA256 under the evidence key, which none of them holds, so that the evidence holds no new personal data: without the key, no one can tell which addresses they name, even by hashing guesses (the same key signs plans: one secret to keep, and sub-keys derived apart so that neither use can stand for the other). With the key, `hogctl persons erasure-status --receipt <file> --check-email <address>` tells whether an erasure was asked to erase an address; `hogctl evidence export-key` gives the key to a DPO. --keep-identifiers names them in clear where your policy wants that. What the receipt and the journal keep in clear: the UUIDs of the persons and their other distinct ids (such as user-1971), which `persons erasure-status` needs to ask whether they name someone again; they name a person as well as an address does, so keep these files as private as the data they record.',
      '--backup <file> writes the records of every person (NDJSON) before the first deletion, for clean-ups that may need undoing. An erasure should not keep one: the point of an erasure is that the data is gone, and a backup is a new copy of it to account for.',
      "After the run, every person the server reported deleted is checked gone with the server (200 a request, within the read rate of 240 a minute; ids of a request that found no one are not read back; --no-verify skips it), with --delete-events the deletion of their events is checked queued, and the receipt says what was found. The plan's estimate counts these reads. PostHog deletes events in a weekly batch: `hogctl persons erasure-status --receipt <file>` checks later. Against `hogctl sandbox`, `hogctl api POST /_sandbox/deletions/run` runs that batch at once, so that an erasure can be seen complete (or its events_remain) offline. Running a finished erasure again sends no deletion and checks again.",
      "Once that deletion has run, it counts the events that still carry one of the erased distinct ids (a HogQL query, 1,000 distinct ids a query): the status is then events_remain, with the count and the distinct ids. PostHog's weekly job squashes person overrides first, so a person's own personless and pre-merge events go with it; events of distinct ids that were never the person's (an address used only as a personless distinct id) stay, as do those dated after the request.",
      "With --sweep-events (and --delete-events) the erasure also asks PostHog's self-service deletion (data_deletion_requests, on where PostHog enabled it for the project) to delete the events of every distinct id it found, and of the addresses or distinct ids given even where they name no person, collected up to the run's start; the receipt keeps the requests. erasure-status then calls the case complete only when every request has completed and a fresh count of those events is zero; events collected after the erasure are said apart. Where the API is not there (404, the flag off, a key without data_deletion:write) the persons are still deleted, and the run and erasure-status say what was not swept and what to do. The receipt and erasure-status list what PostHog keeps after a person deletion.",
      'What the receipt holds in clear: the UUIDs of the persons, and their distinct ids (such as user-1971), because this check asks the server whether each still names no one, and it cannot ask by a hash. They name a person as well as an address does: keep the receipt as private as the data it records. The e-mail addresses of the request, and distinct ids that look like one, are kept by HMAC-SHA256 under the evidence key of the config directory (`hogctl evidence export-key`), which the receipt does not hold: without the key, no one can tell from the receipt, its journal or its plan which addresses they name, even by hashing guesses. Those distinct ids cannot be checked here (--keep-identifiers keeps them in clear). Recording deletions cannot be read back from the API.',
      '--check-email <address> (or - to read it from standard input) asks the receipt alone, with the evidence key and without the server, whether this erasure was asked to erase that address: exit 0 yes (and whether it named a person), 3 no, 2 the receipt or the key cannot answer (a receipt of an earlier hogctl, another key).',
    ],
  },
  'bulk-runs': {
    title: 'Bulk jobs: journal, resume, lost answers, Ctrl-C, exit codes',
    about: 'how a bulk run is journaled, resumed, retried, stopped, and what its exit code means',
    paragraphs: [
      'A request may take up to 120 s (deleting 1000 persons is slow on a busy server) unless --timeout says otherwise. When an answer is lost (a timeout, a dropped connection, a 502/504, a killed run), the ids of that request are checked with the server before they are sent again, so the receipt counts what the lost request deleted.',
      '--resume needs only --file (and --journal if one was given): the journal remembers the flags, the receipt path, the output format, the rate, the concurrency and the retries of the run.',
      'Persons the server found but could not delete (deletion_errors in its answer) are sent again, at most --retries times; what is left, --resume sends.',
      'Ctrl-C (or SIGTERM) stops sending and waits for the requests in flight; a second one quits at once. Either way the journal and the receipt say what is known, and the resume command is printed. Ctrl-C while verifying does the same (verification: interrupted); --resume then verifies what is left.',
      'Exit codes of bulk-delete: 0 every request succeeded, 2 invalid input or flags (nothing sent), 4 authentication or permission (nothing more sent), 6 the server asked to wait longer than --max-wait (resume then), 8 some requests failed after retries (listed in the receipt; --resume retries them), persons could not be deleted (deletion_errors) or were still there when verified, or a project could not be searched, 9 requests were sent but the journal or the receipt could not be written whole (a full disk) or --jq/--template failed on the summary (the message says what was done; --resume writes the receipt again, and checks ids whose answers the journal lacks before sending them again), 130 interrupted.',
      'Exit codes of erasure-status: 0 complete in every project, 8 something is pending or back (listed), 2 the receipt cannot be used.',
    ],
  },
  capture: {
    title: 'Bulk updates: capture, acceptance, verification',
    about: 'how bulk-update changes persons (capture or the REST API), checks them, and what its exit code means',
    paragraphs: [
      "Through capture by default, the way PostHog itself changes persons: one $set event per person, addressed to a distinct id the person has, in gzipped /batch/ requests of 500 persons. The project API key is read with your personal key when the run starts and kept in memory only; the events go to the ingestion host (us.i.posthog.com for us.posthog.com, eu.i.posthog.com for eu.posthog.com, the site itself when self-hosted; --capture-url, HOGCTL_CAPTURE_URL or the profile's capture URL overrides it). Every person is looked up first, so none is ever created. --via api uses the REST endpoints instead (PATCH /persons/{id}/ and delete_property, within PostHog's 240 a minute), for servers or policies without capture; it cannot set once. A project that does not process person profiles (person_processing_opt_out) is refused: PostHog would drop every change.",
      'A request counts only when capture accepts it ({"status": "Ok"}): any other answer (or an older server\'s quota_limited answer) stops the run, and --resume sends those persons again, with the same event uuids and timestamps.',
      'Capture applies changes within seconds, not at once: afterwards the persons are read back until every change shows or --verify-timeout passes, and the receipt says, per person, applied, still pending or failed. Capture\'s acceptance is no promise: a project over its billing limit gets the same {"status": "Ok"} and its events are dropped, so a person still pending may never change. Check the organization\'s billing limits and the project\'s ingestion warnings, then run the update again (a new run: --resume only reads pending persons back).',
      "To keep a person's analytics and drop their personal data, unset the properties that hold it (e.g. --unset email --unset name --unset phone). This changes the person only: properties already captured on past events are not changed; `persons bulk-delete --keep-person --delete-events` deletes those events.",
      'Plan, confirmation (the count typed above 100 persons), dry run, journal, --resume (nothing but the input and --resume: the journal remembers the changes), receipt and Ctrl-C work as for `persons bulk-delete`. An update is not an erasure: its journal and receipt keep in clear what it was given (addresses, distinct ids, person ids) and the changes; keep them as private as the persons they name. There is no --plan file for updates, and so no signature.',
      "Exit codes of bulk-update: 0 every change accepted (and shown, when verified), 2 invalid input or flags, or a project that does not process person profiles (nothing sent), 4 authentication or permission, 5 an older server answered that the project is over its billing quota, 6 the server asked to wait longer than --max-wait, 7 the server failed after retries or answered in a way that is not capture's acceptance, 8 some requests failed or changes did not show in time (listed in the receipt; a project over its billing limit ends here), 9 changes were sent but the journal or the receipt could not be written whole, or --jq/--template failed on the summary (the message says what was done and how to get the rest), 130 interrupted.",
    ],
  },
};

/** The names of the prose pages, in order. */
export const PROSE_TOPICS = Object.keys(TOPICS).filter((name) => isProse(TOPICS[name]));

/** `hogctl help <topic>`: a table, or paragraphs wrapped at `width` (at spaces). */
export function topicText(name: string, width = 80): string {
  const t = TOPICS[name];
  if (isProse(t)) return `${t.title}\n\n${t.paragraphs.map((p) => wrapHanging(p, width)).join('\n\n')}\n`;
  return tableText(t);
}

function tableText(t: TableTopic): string {
  const plain = (s: string) => s.replace(/`/g, '');
  const width = Math.max(t.head[0].length, ...t.rows.map(([a]) => plain(a).length));
  const lines = t.rows.map(([a, b]) => `  ${plain(a).padEnd(width)}  ${plain(b)}`);
  return `${t.title}\n\n${t.intro}\n\n${lines.join('\n')}\n`;
}

export function topicMarkdown(name: string): string {
  const t = TOPICS[name];
  if (isProse(t)) return t.paragraphs.join('\n\n');
  return [t.intro, '', `| ${t.head[0]} | ${t.head[1]} |`, '|---|---|', ...t.rows.map(([a, b]) => `| ${a} | ${b} |`)].join('\n');
}
