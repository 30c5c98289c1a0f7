// The README's command reference and the completion scripts are generated from the command
// tree; this fails when a command changes and `npm run docs` was not run.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { generatedFiles } from '../../../scripts/write-generated.js';

const files = await generatedFiles();

describe('generated files', () => {
  for (const [path, expected] of Object.entries(files)) {
    it(`${path} matches the command tree (run \`npm run docs\` to update)`, () => {
      expect(readFileSync(path, 'utf8')).toBe(expected);
    });
  }
});
