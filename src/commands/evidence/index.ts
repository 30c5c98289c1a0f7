// The verbs of `hogctl evidence`, by name, each loaded only when needed (see src/cli/lazy-verb.ts).
import type { LazyVerb } from '../../cli/lazy-verb.js';

export const evidenceVerbs: LazyVerb[] = [
  { name: 'export-key', load: async () => (await import('./export-key.js')).evidenceExportKeyCommand() },
  { name: 'import-key', load: async () => (await import('./import-key.js')).evidenceImportKeyCommand() },
];
