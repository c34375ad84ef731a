// loopdesk.queue.reorder over the WebSocket gateway on the real runtime: the window's move up/down reaches the
// runtime's queue (the follow-ups then run in that order, queue.changed shows it), params are schema-checked,
// and a read-only connection may not reorder (a writer's method, as remove / hold / release).
import { describe, expect, it } from 'vitest'
import { useRuntimeGateway } from '../../../test/fixtures/runtime-gateway'
import { connectGateway, type EventFrameIn } from '../../cli/gateway-client'
import { generateNodeDeviceIdentity } from '../../cli/identity'
import { until as pollUntil } from '../../../test/fixtures/until'
import type { QueueItem } from '../../shared/events'

const TOKEN = 'queue-reorder-token-0123456789'
const env = useRuntimeGateway(TOKEN, { fallback: { text: 'ok' } })
const K = 'agent:main:reorder'
const until = (cond: () => boolean, ms = 10000) => pollUntil(cond, ms)
const lastUser = (body: Record<string, unknown>) => {
  const users = (body.messages as Array<{ role: string; content: unknown }>).filter((m) => m.role === 'user')
  const c = users.at(-1)?.content
  return typeof c === 'string' ? c : (c as Array<{ text: string }>).map((x) => x.text).join('')
}

describe('loopdesk.queue.reorder over the gateway', () => {
  it('reorders the waiting follow-ups; they run in that order; bad params and a reader are refused', async () => {
    const c = await connectGateway({ url: env.stack.gw.url, token: TOKEN, identity: generateNodeDeviceIdentity() })
    const events: EventFrameIn[] = []
    c.onEvent((e) => events.push(e))
    const before = env.server.requests.length
    env.server.push({ hang: true })
    await c.request('chat.send', { sessionKey: K, message: 'busy', idempotencyKey: 'w1' })
    await until(() => env.server.requests.length === before + 1)
    const ids: string[] = []
    for (const [key, text] of [['w2', 'A'], ['w3', 'B']]) {
      const r = (await c.request('chat.send', { sessionKey: K, message: text, idempotencyKey: key, queueMode: 'followup' })) as { status: string; queueItemId: string }
      expect(r.status).toBe('queued')
      ids.push(r.queueItemId)
    }
    await expect(c.request('loopdesk.queue.reorder', { sessionKey: K, ids: [ids[1], ids[0]] })).resolves.toEqual({ ok: true, ids: [ids[1], ids[0]] })
    const changed = events.filter((e) => e.event === 'queue.changed').at(-1)!.payload as { items: QueueItem[] }
    expect(changed.items.map((i) => i.text)).toEqual(['B', 'A'])

    await expect(c.request('loopdesk.queue.reorder', { sessionKey: K, ids: 'nope' })).rejects.toMatchObject({ code: 'INVALID_REQUEST' })
    const reader = await connectGateway({ url: env.stack.gw.url, token: TOKEN, identity: generateNodeDeviceIdentity(), scopes: ['operator.read'] })
    await expect(reader.request('loopdesk.queue.reorder', { sessionKey: K, ids })).rejects.toMatchObject({ kind: 'request', message: expect.stringContaining('missing scope: operator.write') })
    await reader.close()

    await c.request('chat.abort', { sessionKey: K, runId: 'w1' })
    await until(() => env.server.requests.length === before + 3)
    expect(env.server.requests.slice(before).map((r) => lastUser(r.body))).toEqual(['busy', 'B', 'A'])
    await c.close()
  })
})
