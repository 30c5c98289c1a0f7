// For `npm test` run inside this package; at the repository root, the root's config runs these
// tests with the rest.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Some tests page through 50,000 persons; the machine may be shared with other test runs.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
