// Renderer-only build (same settings as electron.vite.config.ts's renderer block) for the browser
// e2e and the UI bench when the main/preload bundles are not needed or not buildable:
//   npx vite build --config src/renderer/vite.config.ts   → out/renderer
import { resolve } from 'node:path'
import { defineConfig } from 'vite'
import react from '@vitejs/plugin-react'

const root = resolve(import.meta.dirname)

export default defineConfig({
  root,
  base: './',
  resolve: { alias: { '@renderer': resolve(root, 'src'), '@shared': resolve(root, '../shared') } },
  plugins: [react()],
  build: {
    outDir: resolve(root, '../../out/renderer'),
    emptyOutDir: true,
    minify: true,
    // Chromium has modulepreload: no polyfill in the entry
    modulePreload: { polyfill: false },
    rollupOptions: { input: resolve(root, 'index.html') },
  },
})
