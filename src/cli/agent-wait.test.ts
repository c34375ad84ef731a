// `loopdesk agent` whose run cannot start at once — every global slot taken, or its session's earlier run still
// going — says so on stderr once the wait is noticeable (> 1 s), then streams the reply as usual; a run that starts
// at once, and --json, print no such line.
import { afterEach, describe, expect, it } from 'vitest'
import { runCliCaptured } from '../../test/fixtures/cli-io'
import { useRuntimeGateway } from '../../test/fixtures/runtime-gateway'
import { tempDir } from '../../test/fixtures/temp-dir'
import { connectGateway } from './gateway-client'
import { generateNodeDeviceIdentity } from './identity'

const TOKEN = 'agent-wait-token-0123456789abcdef'
const env = useRuntimeGateway(TOKEN, { fallback: { text: 'the answer' } })
const identity = generateNodeDeviceIdentity()

const agent = (args: string[]) =>
  runCliCaptured(['agent', ...args, '--url', env.stack.gw.url, '--state-dir', tempDir('loopdesk-cli-wait-')], { LOOPDESK_GATEWAY_TOKEN: TOKEN })

/** A run that holds its slot (a model request that never answers) until released. */
async function holdSlot(sessionKey: string) {
  const c = await connectGateway({ url: env.stack.gw.url, token: TOKEN, identity })
  env.server.push({ hang: true })
  await c.request('agent', { sessionKey, message: 'hold', idempotencyKey: `hold-${sessionKey}` })
  return async () => {
    await c.request('chat.abort', { sessionKey })
    await c.close()
  }
}

afterEach(() => env.stack.rt.runtime.core.queue.setConcurrency('main', 4))

describe('loopdesk agent: a run waiting for a slot', () => {
  it('every global slot taken: one "waiting:" line naming the limit, then the reply', async () => {
    env.stack.rt.runtime.core.queue.setConcurrency('main', 1)
    const release = await holdSlot('agent:main:w-hold')
    const run = agent(['-m', 'hello', '--session-key', 'agent:main:w-global'])
    setTimeout(() => void release(), 1_600)
    const r = await run
    expect(r.code, r.err).toBe(0)
    expect(r.out).toBe('the answer\n')
    expect(r.err).toContain('waiting: for a free slot — 1 other session is running (limit 1)\n')
    expect(r.err.match(/waiting:/g)).toHaveLength(1)
  })

  it('behind its session’s earlier run: says that', async () => {
    const release = await holdSlot('agent:main:w-busy')
    const run = agent(['-m', 'hello', '--session-key', 'agent:main:w-busy'])
    setTimeout(() => void release(), 1_600)
    const r = await run
    expect(r.code, r.err).toBe(0)
    expect(r.err).toContain('waiting: for this session’s earlier run to finish\n')
  })

  it('--json, or a run that starts at once: no waiting line', async () => {
    env.stack.rt.runtime.core.queue.setConcurrency('main', 1)
    const release = await holdSlot('agent:main:w-hold2')
    const run = agent(['-m', 'hello', '--session-key', 'agent:main:w-json', '--json'])
    setTimeout(() => void release(), 1_600)
    const j = await run
    expect(j.code, j.err).toBe(0)
    expect(j.err).not.toContain('waiting')
    const quick = await agent(['-m', 'hello', '--session-key', 'agent:main:w-quick'])
    expect(quick.code, quick.err).toBe(0)
    expect(quick.err).not.toContain('waiting')
  })
})
