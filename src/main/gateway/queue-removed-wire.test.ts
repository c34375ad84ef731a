// A queued message removed before it ran (loopdesk.queue.remove, the window's remove button) over the gateway on
// the real runtime: its run id is closed with lifecycle end {aborted, stopReason: "removed"} — an event OpenClaw
// never sends (it has no such removal) — so only a client with `loopdesk.queue-removed` (the window's bridge)
// gets it, without a frame seq; OpenClaw clients (v3, v4) see no agent event of that run and no hole in their
// frame seq, and still get the chat `aborted` that ends the run they may have sent.
import { describe, expect, it } from 'vitest'
import { useRuntimeGateway } from '../../../test/fixtures/runtime-gateway'
import { connectGateway, type EventFrameIn } from '../../cli/gateway-client'
import { generateNodeDeviceIdentity } from '../../cli/identity'
import { until as pollUntil } from '../../../test/fixtures/until'
import { QUEUE_REMOVED_CAP } from '../../shared/events'

const TOKEN = 'queue-removed-token-0123456789'
const env = useRuntimeGateway(TOKEN, { fallback: { text: 'ok' } })
const K = 'agent:main:removed'
const until = (cond: () => boolean, ms = 10000) => pollUntil(cond, ms)

const connect = (opts: { caps?: string[]; protocol?: number } = {}) =>
  connectGateway({
    url: env.stack.gw.url,
    token: TOKEN,
    identity: generateNodeDeviceIdentity(),
    caps: ['tool-events', ...(opts.caps ?? [])],
    // an OpenClaw client declares no Loopdesk cap (the CLI's client adds its assistant-delta one by default)
    assistantDeltas: false,
    ...(opts.protocol ? { minProtocol: opts.protocol, maxProtocol: opts.protocol } : {}),
  })

function collect(c: Awaited<ReturnType<typeof connect>>) {
  const events: EventFrameIn[] = []
  c.onEvent((e) => events.push(e))
  return events
}

const ofRun = (events: EventFrameIn[], event: string, runId: string) => events.filter((e) => e.event === event && (e.payload as { runId?: string }).runId === runId)

describe('a removed queued message over the gateway', () => {
  it('its lifecycle end goes to the Loopdesk cap only; OpenClaw clients get its chat aborted and no seq hole', async () => {
    const loopdesk = await connect({ caps: [QUEUE_REMOVED_CAP] })
    const v4 = await connect()
    const v3 = await connect({ protocol: 3 })
    expect([loopdesk.hello.protocol, v4.hello.protocol, v3.hello.protocol]).toEqual([4, 4, 3])
    const [el, e4, e3] = [collect(loopdesk), collect(v4), collect(v3)]

    const before = env.server.requests.length
    env.server.push({ hang: true })
    await v4.request('chat.send', { sessionKey: K, message: 'busy', idempotencyKey: 'rm-busy' })
    await until(() => env.server.requests.length === before + 1)
    // an OpenClaw client's message waits in the queue; the window removes it
    const queued = (await v4.request('chat.send', { sessionKey: K, message: 'later', idempotencyKey: 'rm-q', queueMode: 'followup' })) as { status: string; queueItemId: string; runId: string }
    expect(queued.status).toBe('queued')
    await expect(loopdesk.request('loopdesk.queue.remove', { sessionKey: K, id: queued.queueItemId })).resolves.toEqual({ ok: true, removed: true })
    const runId = queued.runId

    await until(() => [el, e4, e3].every((events) => ofRun(events, 'chat', runId).length === 1))
    await until(() => ofRun(el, 'agent', runId).length === 1)
    const end = ofRun(el, 'agent', runId)[0]
    expect(end.payload).toMatchObject({ runId, seq: 1, stream: 'lifecycle', data: { phase: 'end', aborted: true, stopReason: 'removed' } })
    expect(end.seq).toBeUndefined()

    // the busy run ends; everything about the removed run has gone out by then
    await v4.request('chat.abort', { sessionKey: K, runId: 'rm-busy' })
    await until(() => [e4, e3].every((events) => ofRun(events, 'chat', 'rm-busy').some((e) => (e.payload as { state: string }).state === 'aborted')))
    for (const events of [e4, e3]) {
      expect(ofRun(events, 'agent', runId)).toEqual([])
      expect(ofRun(events, 'chat', runId).map((e) => e.payload)).toEqual([expect.objectContaining({ runId, state: 'aborted', stopReason: 'removed' })])
      // every broadcast it was sent, numbered without a hole
      const seqs = events.filter((e) => e.seq !== undefined).map((e) => e.seq!)
      expect(seqs.length).toBeGreaterThan(3)
      for (let i = 1; i < seqs.length; i++) expect(seqs[i]).toBe(seqs[i - 1] + 1)
    }
    for (const c of [loopdesk, v4, v3]) await c.close()
  })
})
