import { defineConfig } from 'vitest/config'
import react from '@vitejs/plugin-react'

// Plain Node for main/runtime/gateway/cli/shared (and the gateway's protocol files once more with its sockets on the
// main thread), the faults suite, jsdom for the renderer.
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
        // The gateway's sockets on its main thread (LOOPDESK_SOCKET_THREAD=0, the fallback when a build lacks the
        // socket thread's worker): the protocol files again, with the main-thread listener.
        test: {
          name: 'node-main-thread-sockets',
          environment: 'node',
          include: [
            'src/main/gateway/{handshake,methods,malformed,protocol,events,ping-flood,address-key,rate-limit,auth-backoff,bind,static,interop,wait-on-close,agent-dedupe,accept-abort}.test.ts',
          ],
          env: { LOOPDESK_SOCKET_THREAD: '0' },
          testTimeout: 30_000,
          hookTimeout: 30_000,
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
