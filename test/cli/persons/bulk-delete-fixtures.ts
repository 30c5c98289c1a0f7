// What the tests of `persons bulk-delete` share, in this process (test/cli/persons/) and as the
// built binary (test/e2e/bulk-delete-interrupted.test.ts): persons taken a slice at a time, input
// files, the requests sent and the journal read back. No state here: each file keeps its own.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RecordedRequest } from '@hogctl/sandbox';
import type { World } from '../harness.js';

/** `take(n)`: the next `n` of `values` that no earlier call handed out. */
export function slices(values: string[]): (n: number) => string[] {
  let cursor = 0;
  return (n) => {
    const out = values.slice(cursor, cursor + n);
    cursor += n;
    if (out.length < n) throw new Error('the sandbox ran out of persons for this file');
    return out;
  };
}

/** `file(name, content)`: writes it in `dir` and gives its path. */
export function filesIn(dir: string): (name: string, content: string | Buffer) => string {
  return (name, content) => {
    const path = join(dir, name);
    writeFileSync(path, content);
    return path;
  };
}

export function bulkRequests(w: World, since: number): RecordedRequest[] {
  return w.sandbox.requests.slice(since).filter((r) => r.path.endsWith('/persons/bulk_delete/'));
}

export function sentIds(requests: RecordedRequest[]): string[] {
  return requests.flatMap((r) => {
    const body = JSON.parse(r.body);
    return body.ids ?? body.distinct_ids;
  });
}

export const isAlive = (w: World, uuid: string) => w.sandbox.store.getByUuid(uuid) !== undefined;

/** The records of a journal; a line cut short by a kill is skipped. */
export function readJsonLines(path: string): any[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .flatMap((l) => {
      try {
        return [JSON.parse(l)];
      } catch {
        return [];
      }
    });
}
