import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    // Real processes on PostgreSQL: `npm run test:reliability` (vitest.reliability.config.ts).
    exclude: [...configDefaults.exclude, 'test/reliability/**'],
    globalSetup: ['test/helpers/build-setup.ts', 'test/helpers/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 2,
    reporters: ['default'],
  },
});
