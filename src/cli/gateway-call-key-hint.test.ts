// `loopdesk gateway call agent` (or chat.send) without an idempotencyKey: the gateway's schema error names the
// missing field; the CLI adds what to put there, with a fresh key to copy. Other request errors stay as they were.
import { describe, expect, it } from 'vitest'
import { runCliCaptured } from '../../test/fixtures/cli-io'
import { useRuntimeGateway } from '../../test/fixtures/runtime-gateway'
import { tempDir } from '../../test/fixtures/temp-dir'

const TOKEN = 'gateway-call-key-hint-token-0123456'
const env = useRuntimeGateway(TOKEN)

const call = (method: string, params: unknown) =>
  runCliCaptured(['gateway', 'call', method, '--params', JSON.stringify(params), '--url', env.stack.gw.url, '--state-dir', tempDir('loopdesk-cli-keyhint-')], {
    LOOPDESK_GATEWAY_TOKEN: TOKEN,
  })

describe('gateway call without an idempotencyKey', () => {
  it('agent: the schema error, then what the key is and a command line with a fresh one; exit 1', async () => {
    const r = await call('agent', { message: 'hi' })
    expect(r.code).toBe(1)
    const line = r.err.trim()
    expect(line.split('\n')).toHaveLength(1)
    expect(line).toMatch(/^loopdesk: INVALID_REQUEST: invalid agent params: .*idempotencyKey — agent needs an idempotencyKey, any string unique to this request/)
    expect(line).toMatch(/--params '\{"message":"hi","idempotencyKey":"[0-9a-f-]{36}"\}'; `loopdesk agent -m TEXT` makes one for you$/)
  })

  it('chat.send: the same hint, without the agent command', async () => {
    const r = await call('chat.send', { sessionKey: 'agent:main:main', message: 'hi' })
    expect(r.code).toBe(1)
    expect(r.err).toContain('— chat.send needs an idempotencyKey')
    expect(r.err).not.toContain('loopdesk agent -m')
  })

  it('another params error is left as the gateway said it', async () => {
    const r = await call('agent', { message: 'hi', idempotencyKey: 'k1', bogus: 1 })
    expect(r.code).toBe(1)
    expect(r.err.trim()).toBe("loopdesk: INVALID_REQUEST: invalid agent params: /: unexpected property 'bogus'")
  })
})
