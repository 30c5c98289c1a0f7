// How the person can run hogctl from their shell: `hogctl` where it is on the PATH (a global or
// user install), else `npx hogctl`, which finds the package's bin after `npm ci` in a clone or an
// `npm install` in a project. A suggestion that prints `hogctl ...` where that is "command not
// found" is no suggestion.
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

export function hogctlCommand(env: NodeJS.ProcessEnv): string {
  // Run by `npx hogctl`, npm puts a hogctl on the PATH of this process only: the person's shell
  // runs it as they did.
  if (env.npm_command === 'exec') return 'npx hogctl';
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    try {
      accessSync(join(dir, 'hogctl'), constants.X_OK);
      return 'hogctl';
    } catch {
      // not in this directory
    }
  }
  return 'npx hogctl';
}
