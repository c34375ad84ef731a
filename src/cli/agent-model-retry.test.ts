// `loopdesk agent` says on stderr when the model server refused a request that is sent again (a 429 or 5xx):
// before, a rate-limited run sat silent for as long as the server asked to wait. In-process CLI against the
// real runtime (with model retries on) + gateway + scripted model server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startModelServer, type ModelServer } from '../../test/fixtures/model-server'
import { tempDir } from '../../test/fixtures/temp-dir'
import { startTestRuntime, type TestRuntime } from '../../test/fixtures/test-runtime'
import { startGateway, type GatewayHandle } from '../main/gateway/server'
import type { CliIO } from './io'
import { runCli } from './main'

const TOKEN = 'retry-token-0123456789abcdef'
let server: ModelServer
let rt: TestRuntime
let gw: GatewayHandle

beforeAll(async () => {
  server = await startModelServer({ fallback: { text: 'ok' } })
  rt = await startTestRuntime(server, { runtime: { modelRetries: 2 } })
  gw = await startGateway({ host: rt.runtime, port: 0, token: TOKEN, stateDir: rt.stateDir, staticDir: null })
})
afterAll(async () => {
  await gw?.close()
  await rt?.close()
  await server?.close()
})

async function agent(message: string, key: string) {
  const out: string[] = []
  const err: string[] = []
  const io: CliIO = { env: { LOOPDESK_GATEWAY_TOKEN: TOKEN }, stdout: (t) => out.push(t), stderr: (t) => err.push(t), onSignal: () => () => {} }
  const dir = tempDir('loopdesk-cli-retry-')
  const code = await runCli(['agent', '-m', message, '--session-key', key, '--url', gw.url, '--state-dir', dir], io)
  return { code, out: out.join(''), err: err.join('') }
}

describe('loopdesk agent: model retries', () => {
  it('a 429 with retry-after is said on stderr with the wait; stdout keeps the reply alone', async () => {
    server.script([{ status: 429, retryAfter: 1, message: 'slow down' }, { text: 'after the wait', chunks: 1 }])
    const r = await agent('hi', 'agent:main:retry-429')
    expect(r.code).toBe(0)
    expect(r.out).toBe('after the wait\n')
    expect(r.err).toContain('… rate limited by the model server (HTTP 429), retrying in 1 s\n')
  })

  it('a 5xx without a wait says the server failed', async () => {
    server.script([{ status: 503, message: 'down' }, { text: 'back', chunks: 1 }])
    const r = await agent('hi', 'agent:main:retry-503')
    expect(r.code).toBe(0)
    expect(r.out).toBe('back\n')
    expect(r.err).toContain('… the model server failed (HTTP 503), retrying\n')
  })
})
