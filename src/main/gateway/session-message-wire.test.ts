// session.message over a real WebSocket, the real runtime behind the gateway: each transcript append carries
// the session's list row (OpenClaw's `{sessionKey, message, messageId, messageSeq, ...row}`), the same fields
// sessions.changed carries at its top level, and the row of the incarnation the message went into.
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { useRuntimeGateway } from '../../../test/fixtures/runtime-gateway'
import { connectGateway, type EventFrameIn } from '../../cli/gateway-client'
import { generateNodeDeviceIdentity } from '../../cli/identity'
import { until } from '../../../test/fixtures/until'

const TOKEN = 'session-message-token-0123456789'
const env = useRuntimeGateway(TOKEN, { fallback: { text: 'ok' } })
const identity = generateNodeDeviceIdentity()
const connect = () => connectGateway({ url: env.stack.gw.url, token: TOKEN, identity })

/** the notice's own fields; everything else in a sessions.changed payload is the row's */
const CHANGED_OWN = new Set(['sessionKey', 'reason', 'phase', 'runId', 'ts', 'session'])
/** the message's own fields */
const MESSAGE_OWN = new Set(['sessionKey', 'message', 'messageId', 'messageSeq', 'runId', 'ts', 'session'])

describe('session.message over the gateway', () => {
  it('carries the row snapshot: the fields sessions.changed spreads, nested as session too, of the current incarnation', async () => {
    const c = await connect()
    const key = 'agent:main:msg-row'
    const messages: any[] = []
    const changed: any[] = []
    c.onEvent((e: EventFrameIn) => {
      if (e.event === 'session.message' && (e.payload as any).sessionKey === key) messages.push(e.payload)
      if (e.event === 'sessions.changed' && (e.payload as any).sessionKey === key) changed.push(e.payload)
    })
    await c.request('sessions.create', { key })
    await c.request('sessions.subscribe', {})
    await c.request('sessions.messages.subscribe', { key })

    await c.request('chat.send', { sessionKey: key, message: 'hello row', idempotencyKey: 'mr-1' })
    await c.request('agent.wait', { runId: 'mr-1', timeoutMs: 10_000 })
    await until(() => messages.length >= 2)
    const row = (await c.request('sessions.list', {})).sessions.find((r: { key: string }) => r.key === key)

    for (const p of messages) {
      expect(p).toMatchObject({ sessionKey: key, kind: 'direct', agentId: 'main', sessionId: row.sessionId, lifecycleRevision: row.lifecycleRevision })
      expect(p.session).toMatchObject({ key, sessionId: row.sessionId, agentId: 'main' })
      // the row's fields, spread: exactly those of the nested row (its key is the event's sessionKey)
      const spread = Object.keys(p).filter((k) => !MESSAGE_OWN.has(k))
      expect(spread.sort()).toEqual(Object.keys(p.session).filter((k) => k !== 'key').sort())
      for (const k of spread) expect(p[k]).toEqual(p.session[k])
    }
    // the same row builder as sessions.changed: only fields its payloads spread too (which ones are set
    // depends on the moment: a running session has activeRunId, an ended one endedAt)
    await until(() => changed.some((p) => p.phase === 'end'))
    const changedFields = new Set(changed.flatMap((p) => Object.keys(p).filter((k) => !CHANGED_OWN.has(k))))
    const assistant = messages.find((p) => p.message.role === 'assistant')
    for (const k of Object.keys(assistant).filter((k) => !MESSAGE_OWN.has(k))) expect(changedFields).toContain(k)
    // the message's own identity is not overwritten by the row's fields
    expect(assistant).toMatchObject({ messageSeq: 2, runId: 'mr-1', message: { role: 'assistant' } })
    expect(typeof assistant.ts).toBe('number')

    // after a reset the messages carry the new incarnation's row
    await c.request('chat.send', { sessionKey: key, message: '/new', idempotencyKey: 'mr-new' })
    await c.request('chat.send', { sessionKey: key, message: 'again', idempotencyKey: 'mr-2' })
    await c.request('agent.wait', { runId: 'mr-2', timeoutMs: 10_000 })
    await until(() => messages.length >= 4)
    const after = (await c.request('sessions.list', {})).sessions.find((r: { key: string }) => r.key === key)
    expect(after.sessionId).not.toBe(row.sessionId)
    for (const p of messages.slice(2)) expect(p).toMatchObject({ sessionId: after.sessionId, lifecycleRevision: after.lifecycleRevision })
    await c.close()
  })

  it('a sessions.subscribe client gets every append as session.message, on v3 then sessions.changed {phase: "message"}; subscribed both ways, once', async () => {
    const v3 = () => connectGateway({ url: env.stack.gw.url, token: TOKEN, identity, minProtocol: 3, maxProtocol: 3 })
    const list = await v3()
    const both = await v3()
    const v4 = await connect()
    const key = 'agent:main:msg-list'
    const got = { list: [] as EventFrameIn[], both: [] as EventFrameIn[], v4: [] as EventFrameIn[] }
    list.onEvent((e) => (e.payload as any)?.sessionKey === key && got.list.push(e))
    both.onEvent((e) => (e.payload as any)?.sessionKey === key && got.both.push(e))
    v4.onEvent((e) => (e.payload as any)?.sessionKey === key && got.v4.push(e))
    await list.request('sessions.create', { key })
    await list.request('sessions.subscribe', {})
    await both.request('sessions.subscribe', {})
    await both.request('sessions.messages.subscribe', { key })
    await v4.request('sessions.subscribe', {})

    await list.request('chat.send', { sessionKey: key, message: 'hello list', idempotencyKey: 'ml-1' })
    await list.request('agent.wait', { runId: 'ml-1', timeoutMs: 10_000 })
    const appended = (events: EventFrameIn[]) => events.filter((e) => e.event === 'sessions.changed' && (e.payload as any).phase === 'message')
    await until(() => appended(got.list).length >= 2 && appended(got.both).length >= 2)
    await new Promise((r) => setTimeout(r, 100))

    for (const events of [got.list, got.both]) {
      const messages = events.filter((e) => e.event === 'session.message').map((e) => e.payload as any)
      expect(messages.map((p) => [p.message.role, p.messageSeq])).toEqual([['user', 1], ['assistant', 2]])
      // each append's notice follows its message, naming it
      const notices = appended(events).map((e) => e.payload as any)
      expect(notices.map((p) => [p.messageId, p.messageSeq])).toEqual(messages.map((p) => [p.messageId, p.messageSeq]))
      for (const n of notices) expect(n).toMatchObject({ phase: 'message', sessionId: n.session.sessionId, session: { key } })
      const order = events.filter((e) => e.event === 'session.message' || appended(events).includes(e)).map((e) => e.event)
      expect(order).toEqual(['session.message', 'sessions.changed', 'session.message', 'sessions.changed'])
    }
    // v4: the same messages, no notice for them
    expect(got.v4.filter((e) => e.event === 'session.message').map((e) => (e.payload as any).messageSeq)).toEqual([1, 2])
    expect(appended(got.v4)).toEqual([])
    await list.close()
    await both.close()
    await v4.close()
  })

  it('v4: a message OpenClaw\'s display projection hides (a NO_REPLY reply) is no session.message, only a list subscriber\'s sessions.changed; v3 gets it as before', async () => {
    const v3 = await connectGateway({ url: env.stack.gw.url, token: TOKEN, identity, minProtocol: 3, maxProtocol: 3 })
    const list = await connect()
    const keyOnly = await connect()
    const key = 'agent:main:msg-hidden'
    const got = { v3: [] as EventFrameIn[], list: [] as EventFrameIn[], keyOnly: [] as EventFrameIn[] }
    v3.onEvent((e) => (e.payload as any)?.sessionKey === key && got.v3.push(e))
    list.onEvent((e) => (e.payload as any)?.sessionKey === key && got.list.push(e))
    keyOnly.onEvent((e) => (e.payload as any)?.sessionKey === key && got.keyOnly.push(e))
    await list.request('sessions.create', { key })
    await v3.request('sessions.subscribe', {})
    await list.request('sessions.subscribe', {})
    await keyOnly.request('sessions.messages.subscribe', { key })

    // a tool turn (its call and result are shown), then the silent reply (hidden)
    env.server.push({ toolCalls: [{ name: 'message', args: { text: 'sent elsewhere' } }] }, { text: 'NO_REPLY' })
    await list.request('chat.send', { sessionKey: key, message: 'hello hidden', idempotencyKey: 'mh-1' })
    await list.request('agent.wait', { runId: 'mh-1', timeoutMs: 10_000 })
    const notices = (events: EventFrameIn[]) => events.filter((e) => e.event === 'sessions.changed' && (e.payload as any).phase === 'message').map((e) => e.payload as any)
    const seqs = (events: EventFrameIn[]) => events.filter((e) => e.event === 'session.message').map((e) => [(e.payload as any).message.role, (e.payload as any).messageSeq])
    await until(() => notices(got.v3).length >= 4 && notices(got.list).length >= 1 && seqs(got.keyOnly).length >= 3)
    await new Promise((r) => setTimeout(r, 100))

    const shown = [['user', 1], ['assistant', 2], ['toolResult', 3]]
    expect(seqs(got.list)).toEqual(shown)
    expect(seqs(got.keyOnly)).toEqual(shown)
    // the hidden reply: a notice naming it, to the list subscriber only
    const [notice] = notices(got.list)
    expect(notices(got.list)).toHaveLength(1)
    expect(notice).toMatchObject({ phase: 'message', messageSeq: 4, session: { key } })
    expect(typeof notice.messageId).toBe('string')
    expect(notices(got.keyOnly)).toEqual([])
    // v3 (April): every message and a notice after each, the hidden one included
    expect(seqs(got.v3)).toEqual([...shown, ['assistant', 4]])
    expect(notices(got.v3).map((p) => p.messageSeq)).toEqual([1, 2, 3, 4])
    await v3.close()
    await list.close()
    await keyOnly.close()
  })
  it('v4 gets OpenClaw 2026.9\'s display copy (reply capped at 8,000 characters, trailing NO_REPLY stripped, tool details dropped); v3 the stored message', async () => {
    const v3 = await connectGateway({ url: env.stack.gw.url, token: TOKEN, identity, minProtocol: 3, maxProtocol: 3 })
    const v4 = await connect()
    const key = 'agent:main:msg-projected'
    const got = { v3: [] as any[], v4: [] as any[] }
    v3.onEvent((e) => e.event === 'session.message' && (e.payload as any).sessionKey === key && got.v3.push(e.payload))
    v4.onEvent((e) => e.event === 'session.message' && (e.payload as any).sessionKey === key && got.v4.push(e.payload))
    await v4.request('sessions.create', { key })
    await v3.request('sessions.messages.subscribe', { key })
    await v4.request('sessions.messages.subscribe', { key })
    const { deltaCursor } = (await v4.request('chat.history', { sessionKey: key })) as any

    fs.writeFileSync(path.join(env.stack.rt.workspace, 'projected.txt'), 'file text\n')
    const long = 'x'.repeat(20_000) + '\n\nDone. NO_REPLY'
    env.server.push({ toolCalls: [{ name: 'read', args: { path: 'projected.txt' } }] }, { text: long })
    await v4.request('chat.send', { sessionKey: key, message: 'hello projected', idempotencyKey: 'mp-1' })
    await v4.request('agent.wait', { runId: 'mp-1', timeoutMs: 10_000 })
    await until(() => got.v3.length >= 4 && got.v4.length >= 4)

    const byRole = (list: any[], role: string) => list.find((p) => p.message.role === role && (role !== 'assistant' || p.messageSeq === 4)).message
    // v3 (April): the stored message
    expect(byRole(got.v3, 'assistant').content.find((b: any) => b.type === 'text').text).toBe(long)
    expect(byRole(got.v3, 'toolResult').details).toMatchObject({ path: 'projected.txt' })
    // v4: capped with OpenClaw's marker, the token gone with the cut text, marked truncated; the row identity kept
    const reply = byRole(got.v4, 'assistant')
    expect(reply.content.find((b: any) => b.type === 'text').text).toBe('x'.repeat(8000) + '\n...(truncated)...')
    expect(reply.__openclaw).toMatchObject({ id: byRole(got.v3, 'assistant').__openclaw.id, seq: 4, truncated: true, reason: 'display-cap' })
    expect(reply.usage).toMatchObject({ input: expect.any(Number), output: expect.any(Number) })
    const result = byRole(got.v4, 'toolResult')
    expect(result).not.toHaveProperty('details')
    expect(result.content[0].text).toContain('file text')
    expect(result.__openclaw).not.toHaveProperty('truncated')

    // a v4 delta replays the same display copies; with wholeMessages (the window's) the stored messages
    const delta = (await v4.request('chat.history', { sessionKey: key, cursor: deltaCursor })) as any
    expect(delta.messages.map((p: any) => p.message)).toEqual(got.v4.map((p) => p.message))
    const whole = (await v4.request('chat.history', { sessionKey: key, cursor: deltaCursor, wholeMessages: true })) as any
    expect(whole.messages.map((p: any) => p.message)).toEqual(got.v3.map((p) => p.message))
    await v3.close()
    await v4.close()
  })
})
