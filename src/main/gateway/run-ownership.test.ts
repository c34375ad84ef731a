// A connection without operator.admin stops only the runs it started (OpenClaw chat.abort: same connection or
// device, or admin; else "unauthorized"): over the real runtime, two devices, one of them write-only.
import { describe, expect, it } from 'vitest'
import { useRuntimeGateway } from '../../../test/fixtures/runtime-gateway'
import { connectGateway } from '../../cli/gateway-client'
import { generateNodeDeviceIdentity } from '../../cli/identity'
import { RunOwners } from './run-owners'

const TOKEN = 'ownership-token-0123456789'
const env = useRuntimeGateway(TOKEN, { fallback: { text: 'ok' } })
const alice = generateNodeDeviceIdentity()
const bob = generateNodeDeviceIdentity()
const WRITE = ['operator.read', 'operator.write']


const connect = (identity = alice, scopes?: string[]) => connectGateway({ url: env.stack.gw.url, token: TOKEN, identity, ...(scopes ? { scopes } : {}) })
const slow = () => env.server.push({ text: 'a long reply '.repeat(40), chunks: 40, delayMs: 50 })

describe('run ownership', () => {
  it('a write-only device cannot stop another device’s run — by runId, by session, with /stop or a steer — but can stop its own', async () => {
    const a = await connect(alice)
    const b = await connect(bob, WRITE)
    const key = 'agent:main:owned'
    slow()
    await a.request('chat.send', { sessionKey: key, message: 'go', idempotencyKey: 'own-a1' })
    await expect(b.request('chat.abort', { sessionKey: key, runId: 'own-a1' })).rejects.toMatchObject({ code: 'INVALID_REQUEST', message: 'unauthorized' })
    await expect(b.request('sessions.abort', { key, runId: 'own-a1' })).rejects.toMatchObject({ message: 'unauthorized' })
    expect(await b.request('chat.abort', { sessionKey: key })).toEqual({ ok: true, aborted: false, runIds: [] })
    expect(await b.request('sessions.abort', { key })).toMatchObject({ ok: true, status: 'no-active-run' })
    const stop = (await b.request('chat.send', { sessionKey: key, message: '/stop', idempotencyKey: 'own-b-stop' })) as { aborted?: boolean; runIds?: string[] }
    expect(stop.runIds ?? []).toEqual([])
    // a runId no one runs is nobody's: nothing to abort, no error
    expect(await b.request('chat.abort', { sessionKey: key, runId: 'no-such-run' })).toEqual({ ok: true, aborted: false, runIds: [] })
    // a steer does not interrupt it: the message waits its turn
    const steer = (await b.request('sessions.steer', { key, message: 'me too' })) as { runId: string; interruptedActiveRun: boolean }
    expect(steer.interruptedActiveRun).toBe(false)
    expect(await a.request('agent.wait', { runId: 'own-a1', timeoutMs: 10_000 })).toMatchObject({ status: 'ok' })
    expect(await b.request('agent.wait', { runId: steer.runId, timeoutMs: 10_000 })).toMatchObject({ status: 'ok' })

    // its own run (another connection of the same device counts as its own)
    slow()
    await b.request('chat.send', { sessionKey: key, message: 'mine', idempotencyKey: 'own-b1' })
    const b2 = await connect(bob, WRITE)
    expect(await b2.request('chat.abort', { sessionKey: key, runId: 'own-b1' })).toEqual({ ok: true, aborted: true, runIds: ['own-b1'] })

    // an admin connection stops anyone's
    slow()
    await b.request('chat.send', { sessionKey: key, message: 'again', idempotencyKey: 'own-b2' })
    expect(await a.request('chat.abort', { sessionKey: key })).toEqual({ ok: true, aborted: true, runIds: ['own-b2'] })
    await Promise.all([a.close(), b.close(), b2.close()])
  })
})

describe('run ownership: resending a run’s key does not take the run over', () => {
  // runIds are in every read-scoped connection's chat/agent events; a write-only device that resent one's
  // key (chat.send's dedupe answers in_flight, agent's accepted) was recorded as its owner and could stop it
  it('a write-only device resending another device’s key — chat.send, agent, sessions.send — still cannot stop its run', async () => {
    const a = await connect(alice)
    const b = await connect(bob, WRITE)
    const key = 'agent:main:hijack'
    for (const via of ['chat.send', 'agent', 'sessions.send'] as const) {
      const runId = `victim-${via}`
      slow()
      await a.request('chat.send', { sessionKey: key, message: 'go', idempotencyKey: runId })
      if (via === 'chat.send') expect(await b.request('chat.send', { sessionKey: key, message: 'x', idempotencyKey: runId })).toMatchObject({ runId, status: 'in_flight' })
      // agent keeps its keys apart from chat.send's, and a chat.send run's key is refused (IDEMPOTENCY_KEY_IN_USE)
      if (via === 'agent') await expect(b.request('agent', { sessionKey: 'agent:main:elsewhere', message: 'x', idempotencyKey: runId })).rejects.toMatchObject({ code: 'INVALID_REQUEST' })
      if (via === 'sessions.send') expect(await b.request('sessions.send', { key, message: 'x', idempotencyKey: runId })).toMatchObject({ runId })
      await expect(b.request('chat.abort', { sessionKey: key, runId }), via).rejects.toMatchObject({ message: 'unauthorized' })
      await expect(b.request('sessions.abort', { key, runId }), via).rejects.toMatchObject({ message: 'unauthorized' })
      expect(await a.request('agent.wait', { runId, timeoutMs: 10_000 })).toMatchObject({ status: 'ok' })
    }
    await Promise.all([a.close(), b.close()])
  })

  it('nor a run the window started (no gateway owner: only admin stops it)', async () => {
    const b = await connect(bob, WRITE)
    const key = 'agent:main:window-run'
    slow()
    const started = await env.stack.rt.runtime.handlers['chat.send']({ sessionKey: key, message: 'go', idempotencyKey: 'window-run-1' }, { transport: 'ipc' })
    expect(started).toMatchObject({ runId: 'window-run-1', status: 'started' })
    expect(await b.request('chat.send', { sessionKey: key, message: 'x', idempotencyKey: 'window-run-1' })).toMatchObject({ status: 'in_flight' })
    await expect(b.request('chat.abort', { sessionKey: key, runId: 'window-run-1' })).rejects.toMatchObject({ message: 'unauthorized' })
    expect(await b.request('agent.wait', { runId: 'window-run-1', timeoutMs: 10_000 })).toMatchObject({ status: 'ok' })
    await b.close()
  })
})

describe('run ownership: the queue', () => {
  it('a write-only device cannot remove another device’s waiting message (that stops its run), only its own', async () => {
    const a = await connect(alice)
    const b = await connect(bob, WRITE)
    const key = 'agent:main:queue-owned'
    slow()
    await a.request('chat.send', { sessionKey: key, message: 'first', idempotencyKey: 'q-a1' })
    const queued = (await a.request('chat.send', { sessionKey: key, message: 'second', idempotencyKey: 'q-a2', queueMode: 'followup' })) as { status: string; queueItemId: string }
    expect(queued).toMatchObject({ status: 'queued' })
    await expect(b.request('loopdesk.queue.remove', { sessionKey: key, id: queued.queueItemId })).rejects.toMatchObject({ code: 'INVALID_REQUEST', message: 'unauthorized' })
    const own = (await b.request('chat.send', { sessionKey: key, message: 'mine', idempotencyKey: 'q-b1', queueMode: 'followup' })) as { status: string; queueItemId: string }
    expect(own).toMatchObject({ status: 'queued' })
    expect(await b.request('loopdesk.queue.remove', { sessionKey: key, id: own.queueItemId })).toEqual({ ok: true, removed: true })
    // the other device's message was left alone: it runs
    expect(await a.request('agent.wait', { runId: 'q-a2', timeoutMs: 15_000 })).toMatchObject({ status: 'ok' })
    await Promise.all([a.close(), b.close()])
  })
})

describe('run ownership: holding and ordering the queue', () => {
  it('a write-only device cannot hold, release or reorder another device’s waiting messages, only its own', async () => {
    const a = await connect(alice)
    const b = await connect(bob, WRITE)
    const key = 'agent:main:queue-held'
    slow()
    await a.request('chat.send', { sessionKey: key, message: 'first', idempotencyKey: 'qh-a1' })
    const theirs = (await a.request('chat.send', { sessionKey: key, message: 'second', idempotencyKey: 'qh-a2', queueMode: 'followup' })) as { queueItemId: string }
    await expect(b.request('loopdesk.queue.hold', { sessionKey: key })).rejects.toMatchObject({ code: 'INVALID_REQUEST', message: 'unauthorized' })
    const mine = (await b.request('chat.send', { sessionKey: key, message: 'mine', idempotencyKey: 'qh-b1', queueMode: 'followup' })) as { queueItemId: string }
    await expect(b.request('loopdesk.queue.reorder', { sessionKey: key, ids: [mine.queueItemId, theirs.queueItemId] })).rejects.toMatchObject({ message: 'unauthorized' })
    expect(await b.request('loopdesk.queue.reorder', { sessionKey: key, ids: [mine.queueItemId] })).toMatchObject({ ok: true })
    // the admin holds them all; the write-only device may release its own, not the other's
    expect(await a.request('loopdesk.queue.hold', { sessionKey: key })).toMatchObject({ ok: true, ids: [theirs.queueItemId, mine.queueItemId] })
    await expect(b.request('loopdesk.queue.release', { sessionKey: key })).rejects.toMatchObject({ message: 'unauthorized' })
    await expect(b.request('loopdesk.queue.release', { sessionKey: key, ids: [theirs.queueItemId] })).rejects.toMatchObject({ message: 'unauthorized' })
    expect(await b.request('loopdesk.queue.release', { sessionKey: key, ids: [mine.queueItemId] })).toEqual({ ok: true, ids: [mine.queueItemId] })
    expect(await a.request('loopdesk.queue.release', { sessionKey: key })).toEqual({ ok: true, ids: [theirs.queueItemId] })
    expect(await a.request('agent.wait', { runId: 'qh-a2', timeoutMs: 15_000 })).toMatchObject({ status: 'ok' })
    expect(await b.request('agent.wait', { runId: 'qh-b1', timeoutMs: 15_000 })).toMatchObject({ status: 'ok' })
    await Promise.all([a.close(), b.close()])
  })
})

describe('RunOwners', () => {
  it('owns: same connection or same device; the oldest entries go past the bound', () => {
    const o = new RunOwners(2)
    o.record('r1', { id: 'c1', deviceId: 'd1' })
    expect(o.owns('r1', { id: 'c1', deviceId: undefined })).toBe(true)
    expect(o.owns('r1', { id: 'c2', deviceId: 'd1' })).toBe(true)
    expect(o.owns('r1', { id: 'c2', deviceId: 'd2' })).toBe(false)
    o.record('r2', { id: 'c2', deviceId: undefined })
    expect(o.owns('r2', { id: 'c3', deviceId: undefined })).toBe(false)
    o.record('r3', { id: 'c3', deviceId: undefined })
    expect(o.owns('r1', { id: 'c1', deviceId: 'd1' })).toBe(false)
    expect(o.owns('r3', { id: 'c3', deviceId: undefined })).toBe(true)
    expect(o.callContext({ id: 'c9', deviceId: undefined, scopes: new Set(['operator.admin']) }).mayAbort).toBeUndefined()
    expect(o.callContext({ id: 'c3', deviceId: undefined, scopes: new Set(['operator.write']) }).mayAbort?.('r3')).toBe(true)
  })
})
