// Checks that secrets (passwords, cookies, TOTP secrets, backup codes) stayed where they belong:
// never in argv, output or error messages, and on disk only in the 0600 session file.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';

/** Everything a test file's runs showed or were given, to scan at the end. */
export class Witness {
  readonly texts: string[] = [];
  readonly argvs: string[][] = [];

  saw(...texts: string[]): void {
    this.texts.push(...texts);
  }

  ran(argv: string[]): void {
    this.argvs.push(argv);
  }

  expectNever(secrets: string[], what: string): void {
    const real = secrets.filter((s) => s && s.length >= 6);
    expect(real.length, `no ${what} to look for`).toBeGreaterThan(0);
    for (const secret of real) {
      for (const argv of this.argvs) expect(argv.join(' '), `${what} in argv`).not.toContain(secret);
      for (const text of this.texts) expect(text.includes(secret), `${what} in output: ${text.slice(0, 300)}`).toBe(false);
    }
  }
}

export function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...filesUnder(path));
    else out.push(path);
  }
  return out;
}

/** No file under `dir` but `allowed` holds any secret; `allowed` is 0600 in a 0700 directory. */
export function expectSecretsOnlyIn(dir: string, allowed: string, secrets: string[]): void {
  expect(statSync(allowed).mode & 0o777).toBe(0o600);
  expect(statSync(join(allowed, '..')).mode & 0o777).toBe(0o700);
  for (const file of filesUnder(dir)) {
    if (file === allowed) continue;
    const content = readFileSync(file, 'utf8');
    for (const secret of secrets.filter((s) => s && s.length >= 6)) expect(content.includes(secret), `a secret in ${file}`).toBe(false);
  }
}

/** The cookie values in a session file. */
export function jarValues(file: string): string[] {
  return (JSON.parse(readFileSync(file, 'utf8')).cookies as Array<{ value: string }>).map((c) => c.value);
}
