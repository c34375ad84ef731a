// `loopdesk gateway call METHOD --params -`: the params from standard input. An argument stops at 128 KiB on
// Linux (MAX_ARG_STRLEN: the shell says "Argument list too long"), so a message or attachment past that could not
// be sent with --params at all, though the gateway takes frames up to 25 MiB.
import { describe, expect, it } from 'vitest'
import { runCliCaptured } from '../../test/fixtures/cli-io'
import { useRuntimeGateway } from '../../test/fixtures/runtime-gateway'
import { tempDir } from '../../test/fixtures/temp-dir'

const TOKEN = 'gateway-call-stdin-token-0123456789'
const env = useRuntimeGateway(TOKEN, { fallback: { text: 'read it' } })

const call = (args: string[], stdin: string) =>
  runCliCaptured(['gateway', 'call', ...args, '--url', env.stack.gw.url, '--state-dir', tempDir('loopdesk-cli-call-stdin-')], { LOOPDESK_GATEWAY_TOKEN: TOKEN }, stdin)

describe('gateway call --params -', () => {
  it('sends params read from standard input, past what one argument can hold', async () => {
    // 140 KB of UTF-8 (past the 128 KiB an argument holds), 70,000 characters (within the mock model's window)
    const message = `start ${'é'.repeat(70_000)} end`
    expect(Buffer.byteLength(message)).toBeGreaterThan(128 * 1024)
    const r = await call(['agent', '--expect-final', '--timeout', '60000', '--params', '-'], JSON.stringify({ message, idempotencyKey: 'stdin-k1', sessionKey: 'agent:main:stdin-call' }) + '\n')
    expect(r.code, r.err).toBe(0)
    expect(JSON.parse(r.out)).toMatchObject({ runId: 'stdin-k1', status: 'ok' })
    const body = env.server.requests.at(-1)!.body as { messages: Array<{ role: string; content: unknown }> }
    expect(JSON.stringify(body.messages)).toContain(message)
  })

  it('empty input, or input that is not a JSON object, is a usage error (exit 2), nothing sent', async () => {
    const before = env.server.requests.length
    expect(await call(['health', '--params', '-'], 'not json')).toMatchObject({ code: 2, err: expect.stringContaining('--params is not valid JSON') })
    expect(await call(['health', '--params', '-'], '\n')).toMatchObject({ code: 2, err: 'loopdesk: --params -: standard input was empty (see: loopdesk --help)\n' })
    expect(await call(['health', '--params', '-'], '[1]')).toMatchObject({ code: 2, err: expect.stringContaining('--params must be a JSON object') })
    expect(env.server.requests.length).toBe(before)
  })
})
