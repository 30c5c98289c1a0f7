// Flags of which a command takes one at most: the inputs of a bulk job, --projects or
// --all-projects. Refused together with one message that names those given.
import { UsageError } from '../errors.js';

/**
 * The one flag given of `choices` (each a flag and whether it was given), or undefined when none
 * was; two or more are refused: "give one of --file and --where: the run reads one input".
 */
export function oneOf(choices: readonly (readonly [flag: string, given: boolean])[], why?: string): string | undefined {
  const given = choices.filter(([, g]) => g).map(([flag]) => flag);
  if (given.length > 1) throw new UsageError(`give one of ${given.join(' and ')}${why ? `: ${why}` : ''}`);
  return given[0];
}
