// What a subject-access bundle holds, file by file, and what PostHog holds about a person that it
// does not, with why: the manifest states both, and summary.html says the second to the person
// it is sent to. The reasons are PostHog's (docs/server-contract.md §15.2 and §15.6).
import { EVENTS_FILE, HISTORY_FILE } from './write-events.js';

/** Each file of a person's directory, and what it is. */
export const PERSON_FILES: Record<string, string> = {
  'person.json': 'the person as PostHog stores it: its properties and every distinct id',
  'properties-from-set-events.json':
    'the properties PostHog rebuilds from the $set and $set_once events of the two years before the export ' +
    '(properties set otherwise, and $unset, are not in it; the stored ones are in person.json)',
  [HISTORY_FILE]: 'every $set, $set_once and $unset the exported events carry, with its event (empty: none does)',
  'cohorts.json': 'the cohorts the person is in',
  'activity.json': "PostHog's activity log of the person (changes made in PostHog, and by whom)",
  'recordings.ndjson': 'the session recordings of the person, listed (with --recordings, their content is in recordings/)',
  'feature-flags.json': 'per distinct id, the value of every feature flag and the reason it has it',
  [EVENTS_FILE]: 'every event of every distinct id, up to the moment the export began',
};

/** Each file of a project's directory of the events of distinct ids of no person, and what it is. */
export const NO_PERSON_FILES: Record<string, string> = {
  [EVENTS_FILE]:
    'every event whose distinct id is one of the e-mail addresses (in any case of their letters) or distinct ids asked for and is held by no person exported ' +
    '(personless events, an address used only as a distinct id), up to the moment the export began',
  [HISTORY_FILE]: 'every $set, $set_once and $unset those events carry, with its event (empty: none does)',
};

export interface NotExported {
  what: string;
  why: string;
}

/** What PostHog holds about a person that the bundle does not, and why. */
export const NOT_IN_BUNDLE: NotExported[] = [
  {
    what: 'LLM analytics content: the prompts, outputs and traces as PostHog keeps them in its AI events table (ai_events, 30 days)',
    why: 'the export reads the events table: the $ai_* events there are in events.ndjson.gz as captured, but no endpoint serves the AI events table by person',
  },
  {
    what: 'heatmaps: the clicks, mouse movements and scroll depths of the pages the person visited',
    why: 'PostHog keeps them in a heatmaps table of their own, by session, which no endpoint serves by person',
  },
  {
    what: 'e-mails sent to the person by Workflows',
    why: 'PostHog lists them at /persons/{id}/emails/ only where a Workflows feature flag is on (a 404 elsewhere); this export does not read it',
  },
];
