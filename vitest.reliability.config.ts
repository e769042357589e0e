import { defineConfig } from 'vitest/config';

/** `npm run test:reliability`: real processes on PostgreSQL and Redis, one scenario at a time. */
export default defineConfig({
  test: {
    include: ['test/reliability/**/*.test.ts'],
    globalSetup: ['test/helpers/build-setup.ts'],
    testTimeout: 300_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 1,
    fileParallelism: false,
    reporters: ['default'],
  },
});
