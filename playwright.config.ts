// Playwright: 'renderer' runs the built renderer in Debian Chromium with a stubbed bridge (e2e/*.spec.ts);
// 'electron' launches the built desktop app (e2e/electron/*.spec.ts) and skips with a reason when no
// Electron binary exists. Never `npx playwright install`: the browser is /usr/bin/chromium.
import { existsSync } from 'node:fs'
import { defineConfig } from '@playwright/test'

const PORT = Number(process.env.E2E_PORT ?? 4173)
// Build the renderer alone (no main/preload needed): npx vite build --config src/renderer/vite.config.ts
const rendererBuilt = existsSync('out/renderer/index.html')

export default defineConfig({
  testDir: './e2e',
  workers: 1,
  reporter: [['list']],
  use: {
    baseURL: `http://127.0.0.1:${PORT}`,
    browserName: 'chromium',
    headless: !process.env.HEADED,
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-dev-shm-usage',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--disable-quic',
        '--no-first-run',
      ],
    },
    viewport: { width: 1280, height: 800 },
    video: 'off', // needs Playwright's own ffmpeg, which cannot be downloaded here
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
  },
  projects: [
    { name: 'renderer', testMatch: /e2e\/[^/]+\.spec\.ts$/ },
    { name: 'electron', testMatch: /e2e\/electron\/[^/]+\.spec\.ts$/, timeout: 60_000 },
  ],
  // The renderer project needs the built renderer served; without a build there is nothing to serve.
  webServer: rendererBuilt
    ? {
        command: `npx vite preview --outDir out/renderer --host 127.0.0.1 --port ${PORT} --strictPort`,
        url: `http://127.0.0.1:${PORT}`,
        reuseExistingServer: !process.env.CI,
        timeout: 60_000,
      }
    : undefined,
})
