// The sandbox server for `hogctl sandbox` and `hogctl demo`. It is the largest part of the bundle
// and no other command needs it, so it loads here, when one of them starts it, and not when the
// verb is loaded for its help (the import rule, ARCHITECTURE.md §6).
import type { Sandbox, SandboxOptions } from '@hogctl/sandbox';

export async function startSandbox(options: SandboxOptions): Promise<Sandbox> {
  const sandbox = await import('@hogctl/sandbox');
  return sandbox.startSandbox(options);
}
