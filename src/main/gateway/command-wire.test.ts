// A bare /new or /reset through chat.send (or sessions.send / sessions.steer, which wrap it), over the
// gateway of a REAL runtime: OpenClaw clients get
// OpenClaw's `{runId, status:"started"}` and then a chat final with the command's reply; Loopdesk's window
// (its WebSocket bridge declares `loopdesk.chat-commands`) keeps `{status:"command", ok, messages}`.
import { describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import type { Bridge } from '../../shared/bridge'
import { useRuntimeGateway } from '../../../test/fixtures/runtime-gateway'
import { connectGateway, type EventFrameIn } from '../../cli/gateway-client'
import { generateNodeDeviceIdentity } from '../../cli/identity'
import { until } from '../../../test/fixtures/until'

const TOKEN = 'command-wire-token-0123456789'
const env = useRuntimeGateway(TOKEN, { fallback: { text: 'ok' } })
const identity = generateNodeDeviceIdentity()


const connect = (caps: string[] = []) => connectGateway({ url: env.stack.gw.url, token: TOKEN, identity, caps })

describe('chat commands without a run over the gateway', () => {
  it('an OpenClaw client: /new answers {runId, status:"started"}, then a chat final (no frame seq) with the reply', async () => {
    const c = await connect(['tool-events'])
    const events: EventFrameIn[] = []
    c.onEvent((e) => events.push(e))
    // a session with a message first, so /new really resets something
    await c.request('agent', { message: 'hi', sessionKey: 'agent:main:cw1', idempotencyKey: 'cw-run' }, { expectFinal: true })
    const before = (await c.request('sessions.list', {})).sessions.find((r: { key: string }) => r.key === 'agent:main:cw1').sessionId

    const res = await c.request('chat.send', { sessionKey: 'cw1', message: '/new', idempotencyKey: 'cw-new' })
    expect(res).toEqual({ runId: 'cw-new', status: 'started' })
    await until(() => events.some((e) => e.event === 'chat' && (e.payload as { runId?: string }).runId === 'cw-new'), 5000)
    const finals = events.filter((e) => e.event === 'chat' && (e.payload as { runId?: string }).runId === 'cw-new')
    expect(finals).toHaveLength(1)
    expect(finals[0].seq).toBeUndefined()
    expect(finals[0].payload).toMatchObject({
      runId: 'cw-new',
      sessionKey: 'agent:main:cw1',
      state: 'final',
      message: { role: 'assistant', content: [{ type: 'text', text: 'Started a new session.' }] },
    })
    // the command did run: a new incarnation of the session
    const after = (await c.request('sessions.list', {})).sessions.find((r: { key: string }) => r.key === 'agent:main:cw1').sessionId
    expect(after).not.toBe(before)

    // a retry with the same key answers the same way (the runtime's cached command result)
    await expect(c.request('chat.send', { sessionKey: 'cw1', message: '/new', idempotencyKey: 'cw-new' })).resolves.toEqual({ runId: 'cw-new', status: 'started' })
    // /stop keeps OpenClaw's own {ok, aborted, runIds}
    await expect(c.request('chat.send', { sessionKey: 'cw1', message: '/stop', idempotencyKey: 'cw-stop' })).resolves.toMatchObject({ ok: true, aborted: false, runIds: [] })
    await c.close()
  })

  it('a client with loopdesk.chat-commands gets the command answer and no chat event', async () => {
    const c = await connect(['loopdesk.chat-commands'])
    const events: EventFrameIn[] = []
    c.onEvent((e) => events.push(e))
    const res = await c.request('chat.send', { sessionKey: 'cw2', message: '/reset', idempotencyKey: 'cw-reset' })
    expect(res).toMatchObject({ status: 'command', ok: true, messages: ['Started a new session.'] })
    expect(res.runId).toBeUndefined()
    // a later run's final arrives; nothing for the command came before it
    await c.request('agent', { message: 'after', sessionKey: 'agent:main:cw2', idempotencyKey: 'cw-after' }, { expectFinal: true })
    await until(() => events.some((e) => e.event === 'chat' && (e.payload as { runId?: string }).runId === 'cw-after'), 5000)
    expect(events.some((e) => (e.payload as { runId?: string }).runId === 'cw-reset')).toBe(false)
    await c.close()
  })

  it('sessions.send and sessions.steer (chat.send by session key): a v4 OpenClaw client gets {runId, status:"started", key}, then the chat final', async () => {
    const c = await connect(['tool-events'])
    expect(c.hello.protocol).toBe(4)
    const events: EventFrameIn[] = []
    c.onEvent((e) => events.push(e))
    const finalOf = async (runId: string) => {
      await until(() => events.some((e) => e.event === 'chat' && (e.payload as { runId?: string }).runId === runId), 5000)
      return events.filter((e) => e.event === 'chat' && (e.payload as { runId?: string }).runId === runId)
    }
    await c.request('sessions.create', { key: 'agent:main:cw4' })

    await expect(c.request('sessions.send', { key: 'agent:main:cw4', message: '/new', idempotencyKey: 'cw-send' })).resolves.toEqual({
      runId: 'cw-send',
      status: 'started',
      key: 'agent:main:cw4',
    })
    const sent = await finalOf('cw-send')
    expect(sent).toHaveLength(1)
    expect(sent[0].payload).toMatchObject({ sessionKey: 'agent:main:cw4', state: 'final', message: { content: [{ type: 'text', text: 'Started a new session.' }] } })

    // no idempotencyKey: the generated runId is the one the final carries
    const gen = await c.request('sessions.send', { key: 'agent:main:cw4', message: '/reset' })
    expect(gen).toEqual({ runId: expect.any(String), status: 'started', key: 'agent:main:cw4' })
    expect(await finalOf(gen.runId)).toHaveLength(1)

    await expect(c.request('sessions.steer', { key: 'agent:main:cw4', message: '/reset', idempotencyKey: 'cw-steer' })).resolves.toEqual({
      runId: 'cw-steer',
      status: 'started',
      key: 'agent:main:cw4',
      interruptedActiveRun: false,
    })
    expect(await finalOf('cw-steer')).toHaveLength(1)
    await c.close()
  })

  it('sessions.send with loopdesk.chat-commands keeps the command answer and sends no chat event', async () => {
    const c = await connect(['loopdesk.chat-commands'])
    const events: EventFrameIn[] = []
    c.onEvent((e) => events.push(e))
    await c.request('sessions.create', { key: 'agent:main:cw5' })
    const res = await c.request('sessions.send', { key: 'agent:main:cw5', message: '/new', idempotencyKey: 'cw-send-cap' })
    expect(res).toMatchObject({ status: 'command', ok: true, messages: ['Started a new session.'], key: 'agent:main:cw5' })
    expect(res.runId).toBeUndefined()
    await c.request('agent', { message: 'after', sessionKey: 'agent:main:cw5', idempotencyKey: 'cw-after-5' }, { expectFinal: true })
    await until(() => events.some((e) => e.event === 'chat' && (e.payload as { runId?: string }).runId === 'cw-after-5'), 5000)
    expect(events.some((e) => (e.payload as { runId?: string }).runId === 'cw-send-cap')).toBe(false)
    await c.close()
  })

  it('sessions.create with message /new: an OpenClaw client gets runStarted and status "started", then the chat final', async () => {
    const c = await connect(['tool-events'])
    const events: EventFrameIn[] = []
    c.onEvent((e) => events.push(e))
    const res = await c.request('sessions.create', { key: 'agent:main:cw6', message: '/new', idempotencyKey: 'cw-create' })
    expect(res).toMatchObject({ ok: true, key: 'agent:main:cw6', runStarted: true, runId: 'cw-create', status: 'started' })
    expect(res.messages).toBeUndefined()
    // the session the command started, not the one created before it
    const row = (await c.request('sessions.list', {})).sessions.find((r: { key: string }) => r.key === 'agent:main:cw6')
    expect(res.sessionId).toBe(row.sessionId)
    expect(res.entry.sessionId).toBe(row.sessionId)
    await until(() => events.some((e) => e.event === 'chat' && (e.payload as { runId?: string }).runId === 'cw-create'), 5000)
    const finals = events.filter((e) => e.event === 'chat' && (e.payload as { runId?: string }).runId === 'cw-create')
    expect(finals).toHaveLength(1)
    expect(finals[0].seq).toBeUndefined()
    expect(finals[0].payload).toMatchObject({
      sessionKey: 'agent:main:cw6',
      state: 'final',
      message: { role: 'assistant', content: [{ type: 'text', text: 'Started a new session.' }] },
    })
    // no idempotencyKey: the generated runId is the one the final carries
    const gen = await c.request('sessions.create', { key: 'agent:main:cw7', message: '/reset' })
    expect(gen).toMatchObject({ runStarted: true, runId: expect.any(String), status: 'started' })
    await until(() => events.some((e) => e.event === 'chat' && (e.payload as { runId?: string }).runId === gen.runId), 5000)
    // an ordinary first message is untouched: its own run, no command final
    const run = await c.request('sessions.create', { key: 'agent:main:cw8', message: 'hello', idempotencyKey: 'cw-create-run' })
    expect(run).toMatchObject({ runStarted: true, runId: 'cw-create-run' })
    expect(run.status).toBeUndefined()
    await c.request('agent.wait', { runId: 'cw-create-run', timeoutMs: 10_000 })
    await c.close()
  })

  it('sessions.create with message /new and loopdesk.chat-commands: runStarted false, the reply, no chat event', async () => {
    const c = await connect(['loopdesk.chat-commands'])
    const events: EventFrameIn[] = []
    c.onEvent((e) => events.push(e))
    const res = await c.request('sessions.create', { key: 'agent:main:cw9', message: '/new', idempotencyKey: 'cw-create-cap' })
    expect(res).toMatchObject({ ok: true, runStarted: false, runId: 'cw-create-cap', messages: ['Started a new session.'] })
    expect(res.status).toBeUndefined()
    await c.request('agent', { message: 'after', sessionKey: 'agent:main:cw9', idempotencyKey: 'cw-after-9' }, { expectFinal: true })
    await until(() => events.some((e) => e.event === 'chat' && (e.payload as { runId?: string }).runId === 'cw-after-9'), 5000)
    expect(events.some((e) => (e.payload as { runId?: string }).runId === 'cw-create-cap')).toBe(false)
    await c.close()
  })

  it("the window's WebSocket bridge declares the cap: its send of /new reads as a command", async () => {
    const bridgeModule = new URL('../../renderer/src/bridge/ws-bridge.ts', import.meta.url).href
    const { connectWsBridge } = (await import(/* @vite-ignore */ bridgeModule)) as {
      connectWsBridge(o: { url: string; token: string; socketFactory: (url: string) => unknown }): Promise<Bridge & { close(): void }>
    }
    const origin = env.stack.gw.httpUrl
    const bridge = await connectWsBridge({ url: env.stack.gw.url, token: TOKEN, socketFactory: (url) => new WebSocket(url, { headers: { Origin: origin } }) })
    try {
      const res = await bridge.send({ sessionKey: 'agent:main:cw3', message: '/new', idempotencyKey: 'cw-window' })
      expect(res).toMatchObject({ ok: true, data: { status: 'command', ok: true, messages: ['Started a new session.'] } })
    } finally {
      bridge.close()
    }
  })
})
