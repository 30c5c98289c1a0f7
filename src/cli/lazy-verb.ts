// Verbs are loaded one at a time: a group lists its verbs by name (the lists are part of the
// entry chunk), and the command line decides which to load, so `hogctl persons get` parses one
// verb's code rather than the group's twenty.
import type { Command } from 'commander';

/** A verb (or a nested group) by name, and how to build it. */
export interface LazyVerb {
  /** Must equal the name of the command `load` builds (a unit test checks every group). */
  name: string;
  load: () => Promise<Command>;
}

/**
 * The verbs the command line needs: only the one named, when `wanted` names one; otherwise all
 * of them (the group's help lists them, and a typo is matched against their names).
 */
export function loadVerbs(verbs: LazyVerb[], wanted: string | undefined): Promise<Command[]> {
  const named = verbs.find((verb) => verb.name === wanted);
  return Promise.all((named ? [named] : verbs).map((verb) => verb.load()));
}
