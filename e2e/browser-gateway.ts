// Browser mode against the real stack, for the specs that need it: the scripted model server, the real
// runtime, and a headless gateway serving the built renderer. Registers the spec file's beforeAll /
// afterAll; the returned object's fields are set once beforeAll ran.
import { existsSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { test } from '@playwright/test'
import { startModelServer, type ModelServer, type ScriptItem } from '../test/fixtures/model-server'
import { startTestRuntime, type TestRuntime } from '../test/fixtures/test-runtime'
import { startGateway, type GatewayHandle } from '../src/main/gateway/server'

export const STATIC_DIR = join(process.cwd(), 'out', 'renderer')

export interface BrowserGateway {
  model: ModelServer
  rt: TestRuntime
  gw: GatewayHandle
  /** http://127.0.0.1:<port> (no trailing slash) */
  origin: string
}

export function useBrowserGateway(token: string, fallback: ScriptItem): BrowserGateway {
  test.skip(!existsSync(join(STATIC_DIR, 'index.html')), 'the renderer is not built: run `npx electron-vite build`')
  const env = {} as BrowserGateway
  test.beforeAll(async () => {
    env.model = await startModelServer({ fallback })
    env.rt = await startTestRuntime(env.model)
    env.gw = await startGateway({ host: env.rt.runtime, port: 0, token, stateDir: env.rt.stateDir, staticDir: STATIC_DIR })
    env.origin = env.gw.url.replace(/^ws:/, 'http:').replace(/\/$/, '')
  })
  test.afterAll(async () => {
    await env.gw?.close()
    await env.rt?.close()
    await env.model?.close()
    if (env.rt?.stateDir) rmSync(env.rt.stateDir, { recursive: true, force: true })
  })
  return env
}
