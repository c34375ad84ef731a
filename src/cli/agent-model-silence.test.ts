// `loopdesk agent` while the model server sends nothing: one "waiting:" line on stderr per silence (the runtime's
// `silence` stream, declared by the CLI's cap), then — a reply stalled past the idle timeout — the run's error
// naming the provider, exit 1; the text that came before the stall stays on stdout. Short thresholds from the config.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCliCaptured } from '../../test/fixtures/cli-io'
import { startModelServer, type ModelServer } from '../../test/fixtures/model-server'
import { startTestRuntime, testConfig, type TestRuntime } from '../../test/fixtures/test-runtime'
import { tempDir } from '../../test/fixtures/temp-dir'
import { startGateway, type GatewayHandle } from '../main/gateway/server'

const TOKEN = 'agent-model-silence-token-0123456789'
let server: ModelServer
let rt: TestRuntime
let gw: GatewayHandle

beforeAll(async () => {
  server = await startModelServer()
  rt = await startTestRuntime(server, { config: testConfig(server, { agents: { defaults: { llm: { silenceNoticeSeconds: 1, idleTimeoutSeconds: 2 } } } }) })
  gw = await startGateway({ host: rt.runtime, port: 0, token: TOKEN, stateDir: rt.stateDir, staticDir: null })
})
afterAll(async () => {
  await gw?.close()
  await rt?.close()
  await server?.close()
})

const agent = (args: string[]) =>
  runCliCaptured(['agent', ...args, '--url', gw.url, '--state-dir', tempDir('loopdesk-cli-silence-')], { LOOPDESK_GATEWAY_TOKEN: TOKEN })

describe('loopdesk agent: a model server gone quiet', () => {
  it('stalled mid-reply: a "waiting:" line, then the stall as the error (exit 1), the partial reply on stdout', async () => {
    server.push({ textChunks: ['Line 1 of a long reply.', ' never sent'], firstDelayMs: 0, delayMs: 600_000 })
    const r = await agent(['-m', 'STALLMID', '--session-key', 'agent:main:cli-stall'])
    expect(r.code, r.err).toBe(1)
    expect(r.out).toBe('Line 1 of a long reply.\n')
    expect(r.err).toContain('waiting: the model (mock) stopped sending 1 s ago; the run fails after 2 s without data (Ctrl-C stops it)\n')
    expect(r.err.match(/waiting:/g)).toHaveLength(1)
    expect(r.err).toMatch(/^error: The model server \(mock\) stopped sending: no data for 2 s in the middle of its reply\./m)
  })

  it('a reply that flows: no waiting line', async () => {
    server.push({ text: 'quick answer' })
    const r = await agent(['-m', 'hi', '--session-key', 'agent:main:cli-quick'])
    expect(r.code, r.err).toBe(0)
    expect(r.err).not.toContain('waiting')
  })
})
