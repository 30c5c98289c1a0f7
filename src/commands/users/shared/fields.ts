// `--field key=value` for the user record: the fields PATCH /api/users/<id>/ writes
// (docs/server-contract.md §9), each parsed to the type the server expects, so a typo or a wrong type is
// refused before anything is sent. Passwords are refused outright: a flag value shows in `ps`
// and in shell history.
import { UsageError } from '../../../errors.js';
import { isUuid } from '../../../api/uuid.js';

type Kind = 'text' | 'email' | 'boolean' | 'object' | 'uuid' | 'integer';

export const USER_WRITABLE_FIELDS: Record<string, Kind> = {
  first_name: 'text',
  last_name: 'text',
  email: 'email',
  anonymize_data: 'boolean',
  toolbar_mode: 'text',
  theme_mode: 'text',
  role_at_organization: 'text',
  notification_settings: 'object',
  events_column_config: 'object',
  has_seen_product_intro_for: 'object',
  hedgehog_config: 'object',
  set_current_organization: 'uuid',
  set_current_team: 'integer',
};

const SECRET_FIELDS = new Set(['password', 'current_password']);

function parseValue(key: string, kind: Kind, raw: string): unknown {
  const bad = (expected: string) => new UsageError(`invalid --field ${key}=${raw}: expected ${expected}`);
  switch (kind) {
    case 'text':
      return raw;
    case 'email':
      if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(raw.trim())) throw bad('an e-mail address');
      return raw.trim();
    case 'boolean':
      if (raw !== 'true' && raw !== 'false') throw bad('true or false');
      return raw === 'true';
    case 'integer':
      if (!/^\d+$/.test(raw)) throw bad('a whole number');
      return Number(raw);
    case 'uuid':
      if (!isUuid(raw)) throw bad('a uuid');
      return raw;
    case 'object': {
      let value: unknown;
      try {
        value = JSON.parse(raw);
      } catch {
        throw bad('a JSON object, e.g. {"key": true}');
      }
      if (value === null || typeof value !== 'object' || Array.isArray(value)) throw bad('a JSON object, e.g. {"key": true}');
      return value;
    }
  }
}

/** The request body for `--field` pairs. */
export function parseUserFields(pairs: string[]): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError(`invalid --field "${pair}": expected key=value, e.g. --field first_name=Lee`);
    const key = pair.slice(0, eq).trim();
    if (SECRET_FIELDS.has(key)) {
      throw new UsageError(
        `--field ${key} is refused: hogctl never takes a password as a flag value (it would show in \`ps\` and shell history)`,
        'change the password in the PostHog web app',
      );
    }
    const kind = USER_WRITABLE_FIELDS[key];
    if (!kind)
      throw new UsageError(`unknown user field "${key}" for --field: writable fields are ${Object.keys(USER_WRITABLE_FIELDS).join(', ')}`);
    if (key in body) throw new UsageError(`--field ${key} is given twice`);
    body[key] = parseValue(key, kind, pair.slice(eq + 1));
  }
  return body;
}
