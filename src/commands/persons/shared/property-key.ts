// A property key given as an argument: anything but empty (PostHog keys may hold spaces, dots and $).
import { UsageError } from '../../../errors.js';

export function checkPropertyKey(key: string): string {
  if (key === '')
    throw new UsageError('the property key is empty', "give the key, e.g. plan or '$browser' (single quotes keep the shell away from $)");
  return key;
}
