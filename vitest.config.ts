import { defineConfig } from 'vitest/config'
import react from '@vitejs/plugin-react'

// Two projects: plain Node for main/runtime/gateway/cli/shared, jsdom for the renderer.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'node',
          environment: 'node',
          include: ['src/main/**/*.test.ts', 'src/shared/**/*.test.ts', 'src/cli/**/*.test.ts', 'src/preload/**/*.test.ts', 'test/**/*.test.ts'],
          exclude: ['test/faults/**'],
          testTimeout: 30_000,
          hookTimeout: 30_000,
          // electron-store imports `electron` at load: inline it so vi.mock('electron') reaches it.
          server: { deps: { inline: ['electron-store'] } },
        },
      },
      {
        // Reliability and security suite (issue 7): child-process gateways, kills, fuzzing, load. One file at
        // a time (they are heavy on a 2-core machine); the CLI bundle the children run is built once first.
        test: {
          name: 'faults',
          environment: 'node',
          include: ['test/faults/**/*.test.ts'],
          globalSetup: ['./test/faults/global-setup.ts'],
          fileParallelism: false,
          testTimeout: 300_000,
          hookTimeout: 120_000,
        },
      },
      {
        plugins: [react()],
        test: {
          name: 'renderer',
          environment: 'jsdom',
          include: ['src/renderer/**/*.test.{ts,tsx}'],
          setupFiles: ['./test/setup.ts'],
          testTimeout: 20_000,
        },
      },
    ],
  },
})
