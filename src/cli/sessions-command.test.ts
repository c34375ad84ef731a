// `loopdesk sessions`: the gateway's sessions as a table (or JSON), newest first; --search by title, key and
// messages. In-process CLI against the real runtime + gateway + scripted model server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startModelServer, type ModelServer } from '../../test/fixtures/model-server'
import { runCliCaptured } from '../../test/fixtures/cli-io'
import { tempDir } from '../../test/fixtures/temp-dir'
import { startTestRuntimeGateway, type TestRuntime, type TestRuntimeGateway } from '../../test/fixtures/test-runtime'
import type { GatewayHandle } from '../main/gateway/server'

const TOKEN = 'sessions-token-0123456789abcdef'
let server: ModelServer
let rt: TestRuntime
let gw: GatewayHandle
let stack: TestRuntimeGateway | undefined

async function run(message: string, key: string, reply: string) {
  server.push({ text: reply, chunks: 1 })
  await rt.call('agent', { message, sessionKey: key, idempotencyKey: `${key}-${message}` })
  await rt.call('agent.wait', { runId: `${key}-${message}`, timeoutMs: 10_000 })
}

beforeAll(async () => {
  server = await startModelServer({ fallback: { text: 'ok' } })
  stack = await startTestRuntimeGateway(server, TOKEN)
  rt = stack.rt
  gw = stack.gw
  await run('plan the garden beds', 'agent:main:garden', 'Tomatoes go in the sunniest bed.')
  await run('what about taxes?', 'agent:main:taxes', 'File before April.')
  await rt.call('sessions.patch', { key: 'agent:main:taxes', label: 'Tax questions' })
})
afterAll(async () => {
  await stack?.close()
  await server?.close()
})

const cli = (args: string[]) =>
  runCliCaptured(['sessions', ...args, '--url', gw.url, '--state-dir', tempDir('loopdesk-cli-ses-')], { LOOPDESK_GATEWAY_TOKEN: TOKEN })

describe('loopdesk sessions', () => {
  it('lists newest first with the titles the window shows', async () => {
    const r = await cli([])
    expect(r.code).toBe(0)
    const lines = r.out.trim().split('\n')
    expect(lines[0]).toMatch(/^KEY\s+TITLE\s+STATUS\s+UPDATED\s+TOKENS$/)
    expect(lines[1]).toMatch(/^agent:main:taxes\s+Tax questions\s+idle\s+just now\s+\d+$/)
    expect(lines[2]).toMatch(/^agent:main:garden\s+plan the garden beds\s+idle\s+just now\s+\d+$/)
    const limited = await cli(['--limit', '1'])
    expect(limited.out.trim().split('\n')).toHaveLength(2)
  })

  it('--search finds a session by its messages and shows the matching line; --json for scripts', async () => {
    const r = await cli(['--search', 'sunniest'])
    expect(r.code).toBe(0)
    expect(r.out).toMatch(/agent:main:garden .*\n {4}assistant: Tomatoes go in the sunniest bed\.\n$/)
    expect(r.out).not.toContain('taxes')
    const byTitle = JSON.parse((await cli(['--search', 'tax', '--json'])).out) as Array<{ key: string; title: string; match?: string }>
    expect(byTitle.map((s) => s.key)).toEqual(['agent:main:taxes'])
    expect((await cli(['--search', 'nothing like this'])).out).toBe('no sessions match "nothing like this"\n')
  })

  it('a run the user stopped reads "stopped" (OpenClaw status killed)', async () => {
    server.push({ textChunks: ['slow ', 'reply ', 'never ', 'finished'], delayMs: 300 })
    await rt.call('agent', { message: 'long one', sessionKey: 'agent:main:stopped', idempotencyKey: 'stop-1' })
    await server.waitForRequests(server.requests.length + 1, 10_000)
    await rt.call('chat.abort', { sessionKey: 'agent:main:stopped', runId: 'stop-1' })
    await rt.call('agent.wait', { runId: 'stop-1', timeoutMs: 10_000 })
    expect((await cli(['--limit', '1'])).out.split('\n')[1]).toMatch(/^agent:main:stopped\s+long one\s+stopped\s/)
  })

  it('usage errors exit 2', async () => {
    expect((await cli(['--limit', '0'])).code).toBe(2)
    expect((await cli(['--search', ' '])).code).toBe(2)
    expect((await cli(['stray'])).code).toBe(2)
  })
})
