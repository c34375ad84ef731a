import { resolve } from 'node:path'
import { defineConfig } from 'electron-vite'
import react from '@vitejs/plugin-react'

export default defineConfig({
  main: {
    build: {
      rollupOptions: {
        input: {
          index: resolve('src/main/index.ts'),
          // the gateway's socket thread (socket-thread-entry.ts): found beside the chunk that starts it, so
          // chunks sit beside the entries rather than in chunks/
          'socket-thread-worker': resolve('src/main/gateway/socket-thread-worker.ts'),
        },
        output: {
          entryFileNames: (chunk) => (chunk.name === 'socket-thread-worker' ? '[name].mjs' : '[name].js'),
          chunkFileNames: '[name]-[hash].js',
        },
      },
    },
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
