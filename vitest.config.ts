import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      { test: { name: 'sync-protocol', include: ['sync-protocol/src/**/*.test.ts'], environment: 'node' } },
      {
        test: {
          name: 'api',
          include: ['api/src/**/*.test.ts'],
          environment: 'node',
          testTimeout: 20_000,
          hookTimeout: 20_000,
        },
      },
      { test: { name: 'pwa', include: ['pwa/src/**/*.test.{ts,tsx}'], environment: 'node' } },
    ],
  },
});
