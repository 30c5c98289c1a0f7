// `--project Staging`: a project named instead of numbered. PostHog's paths take the id, so the
// name is looked up among the projects the key can see (GET /api/projects/,
// docs/server-contract.md §8), ignoring case; a name that fits none, or several, is refused with
// the candidates, never guessed.
import { NotFoundError, UsageError } from '../errors.js';
import { suggest } from '../cli/suggest.js';

export interface NamedProject {
  id: number | string;
  name: string;
}

/** Whether `value` is an id the server takes as is (a number, or `@current`). */
export function isProjectId(value: string): boolean {
  return /^(\d+|@current)$/.test(value);
}

/** `from`: the variable the name came from, for the message (` (from HOGCTL_PROJECT_ID)`). */
export function projectByName(name: string, projects: NamedProject[], from = ''): string {
  const wanted = name.trim().toLowerCase();
  const exact = projects.filter((p) => p.name.trim().toLowerCase() === wanted);
  if (exact.length === 1) return String(exact[0]!.id);
  const list = (ps: NamedProject[]) => ps.map((p) => `"${p.name}" (${p.id})`).join(', ');
  if (exact.length > 1)
    throw new UsageError(
      `${exact.length} projects are named "${name}": ${list(exact)}`,
      'give the id instead, e.g. --project ' + exact[0]!.id,
    );
  const typo = suggest(
    wanted,
    projects.map((p) => p.name.trim().toLowerCase()),
  );
  const near = projects.filter((p) => {
    const lower = p.name.trim().toLowerCase();
    // A typo, a part of the name, or its start ("Stage" for "Staging").
    return (
      lower === typo || lower.includes(wanted) || wanted.includes(lower) || (wanted.length >= 4 && lower.startsWith(wanted.slice(0, 4)))
    );
  });
  throw new NotFoundError(
    `no project named "${name}"${from} among the ${projects.length} this key can see`,
    near.length
      ? `did you mean ${list(near.slice(0, 5))}? --project takes the name or the id`
      : `\`hogctl projects list\` shows their names and ids${projects.length && projects.length <= 5 ? `: ${list(projects)}` : ''}`,
  );
}
