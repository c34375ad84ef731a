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
