import { resolve } from 'node:path'
import { defineConfig } from 'electron-vite'
import react from '@vitejs/plugin-react'
import { build } from 'esbuild'
import type { Plugin } from 'vite'
import { workerBuild } from './bin/cli-bundle.mjs'

/**
 * out/main/socket-thread-worker.mjs: the gateway's socket thread, bundled by esbuild as the CLI's is (its packages
 * inlined: a thread loading typebox's files one by one started in ~0.4–0.9 s instead of ~0.1 s).
 */
function socketThreadWorker(): Plugin {
  return {
    name: 'loopdesk:socket-thread-worker',
    async writeBundle(options) {
      await build({ ...workerBuild(options.dir!, resolve('src/main/gateway/socket-thread-worker.ts')), logLevel: 'warning' })
    },
  }
}

export default defineConfig({
  main: {
    build: {
      rollupOptions: {
        input: {
          index: resolve('src/main/index.ts'),
        },
        // the gateway's socket-thread worker is found beside the chunk that starts it (socket-thread-entry.ts):
        // chunks sit beside the entry and the worker rather than in chunks/
        output: { chunkFileNames: '[name]-[hash].js' },
      },
    },
    plugins: [socketThreadWorker()],
  },
  preload: {
    build: {
      rollupOptions: {
        // Sandboxed preloads cannot be ESM: emit a single CommonJS file.
        input: { index: resolve('src/preload/index.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: resolve('src/renderer'),
    resolve: { alias: { '@renderer': resolve('src/renderer/src'), '@shared': resolve('src/shared') } },
    plugins: [react()],
    build: { minify: true, modulePreload: { polyfill: false }, rollupOptions: { input: resolve('src/renderer/index.html') } },
  },
})
