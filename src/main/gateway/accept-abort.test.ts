// Over the gateway of a REAL runtime: a message accepted is kept however early it is stopped, an abort sent right
// behind its chat.send (back to back on one connection) stops that run, and a chat.send retried during its accept
// runs once.
import { describe, expect, it } from 'vitest'
import { useRuntimeGateway } from '../../../test/fixtures/runtime-gateway'
import { connectGateway } from '../../cli/gateway-client'
import { generateNodeDeviceIdentity } from '../../cli/identity'
import { applyLaneConcurrency, GLOBAL_LANE } from '../runtime/lanes'
import { until } from '../../../test/fixtures/until'

const TOKEN = 'accept-abort-token-0123456789'
const env = useRuntimeGateway(TOKEN, { fallback: { text: 'ok' } })
const identity = generateNodeDeviceIdentity()

type Row = { role: string; stopReason?: string; content: Array<{ text?: string }> }
const content = Buffer.from('z'.repeat(5 * 1000 * 1000 - 1000)).toString('base64')
const attachments = [{ type: 'file', mimeType: 'text/plain', fileName: 'big.txt', content }]

describe('early stops over the gateway', () => {
  it('chat.abort of a run waiting for a free lane keeps the message and its attachment reference', async () => {
    // one run at a time: the second session's run is acked "started" and waits for the global lane
    const queue = env.stack.rt.runtime.core.queue
    queue.setConcurrency(GLOBAL_LANE, 1)
    const c = await connectGateway({ url: env.stack.gw.url, token: TOKEN, identity })
    try {
      env.server.push({ hang: true })
      await c.request('chat.send', { sessionKey: 'agent:main:gw-busy', message: 'take the lane', idempotencyKey: 'gk0' })
      await until(() => env.server.inFlight() === 1, 5000)
      const key = 'agent:main:gw-keep'
      expect(await c.request('chat.send', { sessionKey: key, message: 'see the file', idempotencyKey: 'gk1', attachments })).toMatchObject({ status: 'started' })
      expect(await c.request('chat.abort', { sessionKey: key, runId: 'gk1' })).toMatchObject({ aborted: true })
      expect(await c.request('agent.wait', { runId: 'gk1', timeoutMs: 5000 })).toMatchObject({ status: 'timeout' })
      const rows = ((await c.request('chat.history', { sessionKey: key })) as { messages: Row[] }).messages
      expect(rows.map((m) => `${m.role}:${m.stopReason ?? ''}`)).toEqual(['user:', 'assistant:aborted'])
      expect(rows[0].content.map((b) => b.text).join('')).toMatch(/see the file[\s\S]*big\.txt/)
    } finally {
      await c.request('chat.abort', { sessionKey: 'agent:main:gw-busy' })
      await c.request('agent.wait', { runId: 'gk0', timeoutMs: 5000 })
      applyLaneConcurrency(queue)
      await c.close()
    }
  })

  it('chat.send and chat.abort back to back: the abort stops the run', async () => {
    const c = await connectGateway({ url: env.stack.gw.url, token: TOKEN, identity })
    for (const [i, withFile] of [[0, false], [1, true]] as const) {
      const key = `agent:main:gw-b2b-${i}`
      const id = `gb${i}`
      const send = c.request('chat.send', { sessionKey: key, message: 'stop me', idempotencyKey: id, ...(withFile ? { attachments } : {}) })
      const abort = c.request('chat.abort', { sessionKey: key, runId: id })
      expect(await abort).toEqual({ ok: true, aborted: true, runIds: [id] })
      expect(await send).toMatchObject({ status: 'started' })
      expect(await c.request('agent.wait', { runId: id, timeoutMs: 5000 })).toMatchObject({ status: 'timeout' })
      // stopped before it started: the message is still in the conversation, closed as stopped
      const rows = ((await c.request('chat.history', { sessionKey: key })) as { messages: Row[] }).messages
      expect(rows.map((m) => `${m.role}:${m.stopReason ?? ''}`)).toEqual(['user:', 'assistant:aborted'])
      if (withFile) expect(rows[0].content.map((b) => b.text).join('')).toContain('big.txt')
    }
    await c.close()
  })

  it('chat.send sent three times with one idempotencyKey: one answer, one run', async () => {
    const c = await connectGateway({ url: env.stack.gw.url, token: TOKEN, identity })
    const key = 'agent:main:gw-dup'
    const before = env.server.requests.length
    const acks = await Promise.all([1, 2, 3].map(() => c.request('chat.send', { sessionKey: key, message: 'double click', idempotencyKey: 'gd1' })))
    expect(acks).toEqual([1, 2, 3].map(() => ({ runId: 'gd1', status: 'started' })))
    expect(await c.request('agent.wait', { runId: 'gd1', timeoutMs: 5000 })).toMatchObject({ status: 'ok' })
    const rows = ((await c.request('chat.history', { sessionKey: key })) as { messages: Row[] }).messages
    expect(rows.map((m) => m.role)).toEqual(['user', 'assistant'])
    expect(env.server.requests.length).toBe(before + 1)
    await c.close()
  })
})
