// The Runtime facade through `dispatch` (the same path as IPC and WebSocket), the real pi-ai client and
// the scripted model server.
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import type { AgentEvent, ChatEvent, ExecApprovalRequest } from '../../shared/events'
import { useTestRuntimePerTest } from '../../../test/fixtures/use-test-runtime'
import { startTestRuntime, testConfig } from '../../../test/fixtures/test-runtime'
import { ApiError } from '../api/errors'
import { FileCredentialStore } from './config/credential-store'
import { until as pollUntil } from '../../../test/fixtures/until'

const env = useTestRuntimePerTest()

const agentEvents = (runId: string) => env.t.events.filter((e) => e.event === 'agent' && e.payload.runId === runId).map((e) => e.payload as AgentEvent)
const chatEvents = (runId: string) => env.t.events.filter((e) => e.event === 'chat' && e.payload.runId === runId).map((e) => e.payload as ChatEvent)
const until = (cond: () => boolean, ms = 5000) => pollUntil(cond, ms)

describe('agent + agent.wait', () => {
  it('accepts at once, streams agent and chat events, wait says ok, agentFinal has payloads and meta', async () => {
    env.server.script([{ text: 'Hi! How can I help?', chunks: 4, delayMs: 20, usage: { input: 12, output: 6 } }])
    const t0 = Date.now()
    const acc = await env.t.call('agent', { message: 'hello', idempotencyKey: 'run-1' })
    expect(acc).toMatchObject({ runId: 'run-1', status: 'accepted' })
    expect(Date.now() - t0).toBeLessThan(1000)
    const wait = await env.t.call('agent.wait', { runId: 'run-1', timeoutMs: 10_000 })
    expect(wait).toMatchObject({ runId: 'run-1', status: 'ok', startedAt: expect.any(Number), endedAt: expect.any(Number) })
    const final = await env.t.runtime.agentFinal('run-1')
    expect(final).toMatchObject({ runId: 'run-1', status: 'ok', summary: 'completed' })
    expect(final.result!.payloads).toEqual([{ text: 'Hi! How can I help?' }])
    expect(final.result!.meta.agentMeta).toMatchObject({ provider: 'mock', model: 'm1', usage: { input: 12, output: 6 } })
    const evs = agentEvents('run-1')
    expect(evs.map((e) => e.seq)).toEqual(evs.map((_, i) => i + 1))
    expect(evs[0]).toMatchObject({ stream: 'lifecycle', sessionKey: 'agent:main:main', data: { phase: 'start' } })
    expect(evs.at(-1)!.data).toMatchObject({ phase: 'end' })
    const chat = chatEvents('run-1')
    expect(chat.at(-1)).toMatchObject({ state: 'final', sessionKey: 'agent:main:main', message: { content: [{ text: 'Hi! How can I help?' }] } })
    expect(chat.slice(0, -1).every((c) => c.state === 'delta')).toBe(true)
    const changed = env.t.events.filter((e) => e.event === 'sessions.changed').map((e) => (e.payload as any).reason)
    expect(changed).toEqual(expect.arrayContaining(['create', 'send', 'start', 'end']))
    const row = (await env.t.call('sessions.list', {})).sessions[0]
    expect(row).toMatchObject({ key: 'agent:main:main', status: 'done', inputTokens: 12, outputTokens: 6, lastMessagePreview: 'Hi! How can I help?' })
  })

  it('a repeated idempotencyKey within 5 minutes returns the cached accepted result and starts no second run', async () => {
    env.server.script(() => ({ text: 'once' }))
    const n = env.server.requests.length
    const a = await env.t.call('agent', { message: 'hi', idempotencyKey: 'dup' })
    const b = await env.t.call('agent', { message: 'hi', idempotencyKey: 'dup' })
    expect(b).toEqual(a)
    await env.t.call('agent.wait', { runId: 'dup', timeoutMs: 10_000 })
    const c = await env.t.call('agent', { message: 'hi', idempotencyKey: 'dup' })
    expect(c).toEqual(a)
    await new Promise((r) => setTimeout(r, 100))
    expect(env.server.requests.length - n).toBe(1)
  })

  it('rejects bad params with clear errors: schema, malformed key, agent mismatch, unknown agent, unknown model', async () => {
    const missing = await env.t.raw('agent', { message: 'x' })
    expect(missing).toMatchObject({ ok: false, error: { code: 'INVALID_REQUEST', message: expect.stringContaining('idempotencyKey') } })
    const malformed = await env.t.raw('agent', { message: 'x', idempotencyKey: 'k1', sessionKey: 'agent::oops' })
    expect(malformed).toMatchObject({ ok: false, error: { code: 'INVALID_REQUEST', message: expect.stringContaining('malformed session key') } })
    const mismatch = await env.t.raw('agent', { message: 'x', idempotencyKey: 'k2', sessionKey: 'agent:main:main', agentId: 'ops' })
    expect(mismatch).toMatchObject({ ok: false, error: { message: expect.stringContaining('unknown agent id') } })
    const unknownAgent = await env.t.raw('agent', { message: 'x', idempotencyKey: 'k3', sessionKey: 'agent:ops:main' })
    expect(unknownAgent).toMatchObject({ ok: false, error: { message: expect.stringContaining('unknown agent id "ops"') } })
    const badModel = await env.t.raw('agent', { message: 'x', idempotencyKey: 'k4', model: 'mock/zzz' })
    expect(badModel).toMatchObject({ ok: false, error: { message: expect.stringContaining('unknown model "zzz"') } })
    const nul = await env.t.raw('agent', { message: 'a\u0000b', idempotencyKey: 'k5' })
    expect(nul).toMatchObject({ ok: false, error: { code: 'INVALID_REQUEST' } })
    // nothing was started by the rejected calls, and a rejected key can be used again
    expect(env.t.runtime.core.tracked.size).toBe(0)
  })

  it('agentId and sessionKey of two agents must agree', async () => {
    const t2 = await startTestRuntime(env.server, { config: testConfig(env.server, { agents: { list: [{ id: 'main', default: true }, { id: 'ops' }] } }) })
    try {
      env.server.script(() => ({ text: 'ops here' }))
      const bad = await t2.raw('agent', { message: 'x', idempotencyKey: 'm1', sessionKey: 'agent:main:main', agentId: 'ops' })
      expect(bad).toMatchObject({ ok: false, error: { message: expect.stringContaining('does not match') } })
      await t2.call('agent', { message: 'x', idempotencyKey: 'm2', agentId: 'ops' })
      await t2.call('agent.wait', { runId: 'm2', timeoutMs: 10_000 })
      const rows = (await t2.call('sessions.list', { agentId: 'ops' })).sessions
      expect(rows.map((r) => r.key)).toEqual(['agent:ops:main'])
    } finally {
      await t2.close()
    }
  })

  it('resolves a session by sessionId (new, then the same one again)', async () => {
    env.server.script(() => ({ text: 'ok' }))
    await env.t.call('agent', { message: 'one', idempotencyKey: 's1', sessionId: 'MySession-1' })
    await env.t.call('agent.wait', { runId: 's1', timeoutMs: 10_000 })
    await env.t.call('agent', { message: 'two', idempotencyKey: 's2', sessionId: 'MySession-1' })
    await env.t.call('agent.wait', { runId: 's2', timeoutMs: 10_000 })
    const rows = (await env.t.call('sessions.list', {})).sessions
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatchObject({ key: 'agent:main:mysession-1', sessionId: 'MySession-1' })
    const hist = await env.t.call('chat.history', { sessionKey: rows[0].key })
    expect(hist.messages.filter((m) => m.role === 'user')).toHaveLength(2)
  })

  it('per-run timeout: the run is aborted, wait says timeout, the final says aborted', async () => {
    env.server.script([{ hang: true }])
    await env.t.call('agent', { message: 'slow', idempotencyKey: 'to', timeout: 1 })
    const wait = await env.t.call('agent.wait', { runId: 'to', timeoutMs: 10_000 })
    expect(wait.status).toBe('timeout')
    const final = await env.t.runtime.agentFinal('to')
    expect(final).toMatchObject({ status: 'ok', result: { meta: { aborted: true, stopReason: 'timeout' } } })
    expect(chatEvents('to').at(-1)).toMatchObject({ state: 'aborted', stopReason: 'timeout' })
  })

  it('a wait timeout does not stop the run', async () => {
    env.server.script([{ text: 'eventually', chunks: 3, delayMs: 150 }])
    await env.t.call('agent', { message: 'x', idempotencyKey: 'w1' })
    expect(await env.t.call('agent.wait', { runId: 'w1', timeoutMs: 50 })).toEqual({ runId: 'w1', status: 'timeout' })
    expect(await env.t.call('agent.wait', { runId: 'w1', timeoutMs: 10_000 })).toMatchObject({ status: 'ok' })
  })

  it('a model error ends the run with lifecycle error, chat error and wait error', async () => {
    env.server.script([{ status: 500, message: 'kaboom' }])
    await env.t.call('agent', { message: 'x', idempotencyKey: 'e1' })
    const wait = await env.t.call('agent.wait', { runId: 'e1', timeoutMs: 10_000 })
    expect(wait).toMatchObject({ status: 'error', error: 'Model request failed (HTTP 500 from mock): kaboom' })
    expect(chatEvents('e1').at(-1)).toMatchObject({ state: 'error', errorMessage: expect.stringContaining('kaboom') })
    // the call itself completed (OpenClaw): the error is the reply's payload, meta.error says why
    const final = await env.t.runtime.agentFinal('e1')
    expect(final).toMatchObject({ status: 'ok', summary: 'completed' })
    expect(final.result!.payloads).toEqual([{ text: expect.stringContaining('kaboom'), isError: true }])
    expect(final.result!.meta.error).toMatchObject({ message: expect.stringContaining('kaboom') })
  })

  it('/new resets the session (new sessionId, old transcript archived, hook fired) and runs the trailing text', async () => {
    const commands: string[] = []
    env.t.runtime.hooks.command = (ev) => {
      commands.push(`${ev.command}:${ev.sessionId}->${ev.nextSessionId}`)
    }
    env.server.script(() => ({ text: 'fine' }))
    await env.t.call('agent', { message: 'first', idempotencyKey: 'n1' })
    await env.t.call('agent.wait', { runId: 'n1', timeoutMs: 10_000 })
    const before = (await env.t.call('sessions.list', {})).sessions[0].sessionId
    await env.t.call('agent', { message: '/new what now?', idempotencyKey: 'n2' })
    await env.t.call('agent.wait', { runId: 'n2', timeoutMs: 10_000 })
    const after = (await env.t.call('sessions.list', {})).sessions[0]
    expect(after.sessionId).not.toBe(before)
    expect(commands).toEqual([`new:${before}->${after.sessionId}`])
    const dir = path.dirname(env.t.runtime.core.store('main').transcriptPath(before))
    expect(fs.readdirSync(dir).some((f) => f.startsWith(`${before}.jsonl.new.`))).toBe(true)
    const hist = await env.t.call('chat.history', { sessionKey: 'agent:main:main' })
    expect(hist.messages.map((m) => m.role)).toEqual(['user', 'assistant'])
    expect(JSON.stringify(hist.messages[0].content)).toContain('what now?')
  })
})

describe('chat.send, queue, /stop, chat.abort', () => {
  it('starts a run; a message while busy is queued behind it (observable, in order)', async () => {
    env.server.script((req) => ({ text: `re: ${JSON.stringify(req.body.messages.at(-1).content).slice(0, 40)}`, chunks: 3, delayMs: 60 }))
    const a = await env.t.call('chat.send', { sessionKey: 'main', message: 'first', idempotencyKey: 'c1' })
    expect(a).toEqual({ runId: 'c1', status: 'started' })
    const b = await env.t.call('chat.send', { sessionKey: 'agent:main:main', message: 'second', idempotencyKey: 'c2' })
    expect(b).toMatchObject({ runId: 'c2', status: 'queued', queueItemId: expect.any(String) })
    const q = await env.t.call('loopdesk.queue.list', { sessionKey: 'agent:main:main' })
    expect(q.items).toEqual([expect.objectContaining({ status: 'queued', text: 'second', runId: 'c2' })])
    expect(await env.t.call('chat.send', { sessionKey: 'main', message: 'first', idempotencyKey: 'c1' })).toEqual({ runId: 'c1', status: 'in_flight' })
    await env.t.call('agent.wait', { runId: 'c2', timeoutMs: 10_000 })
    const ends = env.t.events.flatMap((e) => (e.event === 'chat' && e.payload.state === 'final' ? [e.payload.runId] : []))
    expect(ends).toEqual(['c1', 'c2'])
    expect((await env.t.call('loopdesk.queue.list', { sessionKey: 'main' })).items[0].status).toBe('started')
  })

  it('a message of only invisible characters is refused like an empty one (chat.send, agent, sessions.create): nothing reaches the model', async () => {
    env.server.script(() => ({ text: 'ok' }))
    const before = env.server.requests.length
    const why = 'the message has only invisible characters'
    for (const message of ['\u200b', ' \u202e\u2066 \u200d\n', '\u{e0061}\u{e0062}']) {
      const send = await env.t.raw('chat.send', { sessionKey: 'main', message, idempotencyKey: `inv-${message.length}` })
      expect(send.ok ? send.data : send.error).toMatchObject({ code: 'INVALID_REQUEST', message: `message or attachment required: ${why}` })
      const agent = await env.t.raw('agent', { sessionKey: 'main', message, idempotencyKey: `inv-a-${message.length}` })
      expect(agent.ok ? agent.data : agent.error).toMatchObject({ code: 'INVALID_REQUEST', message: `message must not be empty: ${why}` })
    }
    const create = await env.t.raw('sessions.create', { message: '\u200b\u200b' })
    expect(create.ok ? create.data : create.error).toMatchObject({ code: 'INVALID_REQUEST', message: `message must not be empty: ${why}` })
    // plainly empty keeps its plain error; a visible character with them is a message
    const empty = await env.t.raw('agent', { sessionKey: 'main', message: '  ', idempotencyKey: 'inv-empty' })
    expect(empty.ok ? empty.data : empty.error).toMatchObject({ message: 'message must not be empty' })
    expect(env.server.requests.length).toBe(before)
    await env.t.call('chat.send', { sessionKey: 'main', message: '\u200bhi', idempotencyKey: 'inv-ok' })
    await env.t.call('agent.wait', { runId: 'inv-ok', timeoutMs: 10_000 })
    expect(env.server.requests.length).toBe(before + 1)
  })

  it('chat.send cleans its text as OpenClaw does: NUL refused, NFC, control characters other than tab and line breaks removed', async () => {
    env.server.script(() => ({ text: 'ok' }))
    const nul = await env.t.raw('chat.send', { sessionKey: 'main', message: 'a\u0000b', idempotencyKey: 'cc0' })
    expect(nul.ok).toBe(false)
    // only controls: nothing left to send
    const bare = await env.t.raw('chat.send', { sessionKey: 'main', message: '\u0007\u001b', idempotencyKey: 'cc1' })
    expect(bare.ok ? bare.data : bare.error).toMatchObject({ code: 'INVALID_REQUEST', message: 'message or attachment required' })
    await env.t.call('chat.send', { sessionKey: 'main', message: 'caf\u0065\u0301 \u0007bell\u001b[31m\tred\r\nline\u007f', idempotencyKey: 'cc2' })
    await env.t.call('agent.wait', { runId: 'cc2', timeoutMs: 10_000 })
    const user = (await env.t.call('chat.history', { sessionKey: 'main' })).messages.find((m) => m.role === 'user')
    expect(user?.content).toEqual([{ type: 'text', text: 'caf\u00e9 bell[31m\tred\r\nline' }])
    // what the model was sent, too
    expect(JSON.stringify(env.server.requests.at(-1)!.body.messages.at(-1))).toContain('caf\u00e9 bell[31m\\tred\\r\\nline')
  })

  it('a queued message can be removed before it starts', async () => {
    env.server.script(() => ({ text: 'slow', chunks: 2, delayMs: 150 }))
    await env.t.call('chat.send', { sessionKey: 'main', message: 'first', idempotencyKey: 'r1' })
    const b = (await env.t.call('chat.send', { sessionKey: 'main', message: 'second', idempotencyKey: 'r2' })) as { queueItemId: string }
    expect(await env.t.call('loopdesk.queue.remove', { sessionKey: 'main', id: b.queueItemId })).toEqual({ ok: true, removed: true })
    await env.t.call('agent.wait', { runId: 'r1', timeoutMs: 10_000 })
    await env.t.call('agent.wait', { runId: 'r2', timeoutMs: 10_000 })
    const hist = await env.t.call('chat.history', { sessionKey: 'main' })
    expect(hist.messages.filter((m) => m.role === 'user')).toHaveLength(1)
  })

  it('/stop aborts the active run and clears the queue (command hook fired)', async () => {
    const stops: string[][] = []
    env.t.runtime.hooks.command = (ev) => {
      if (ev.command === 'stop') stops.push(ev.abortedRunIds ?? [])
    }
    env.server.script(() => ({ text: 'a long answer that streams slowly', chunks: 10, delayMs: 100 }))
    await env.t.call('chat.send', { sessionKey: 'main', message: 'go', idempotencyKey: 'st1' })
    await env.t.call('chat.send', { sessionKey: 'main', message: 'later', idempotencyKey: 'st2' })
    await until(() => agentEvents('st1').some((e) => e.stream === 'assistant'))
    const r = await env.t.call('chat.send', { sessionKey: 'main', message: '/stop', idempotencyKey: 'st3' })
    expect(r).toMatchObject({ status: 'command', ok: true, aborted: true })
    expect((r as any).runIds.sort()).toEqual(['st1', 'st2'])
    expect(stops).toHaveLength(1)
    expect((await env.t.call('agent.wait', { runId: 'st1', timeoutMs: 10_000 })).status).toBe('timeout')
    expect((await env.t.call('agent.wait', { runId: 'st2', timeoutMs: 10_000 })).status).toBe('timeout')
    expect((await env.t.call('loopdesk.queue.list', { sessionKey: 'main' })).items[0].status).toBe('removed')
    expect(agentEvents('st2').filter((e) => (e.data as any).phase === 'start')).toHaveLength(0)
  })

  it('chat.abort aborts a run started by agent; the partial text is persisted and sent as chat aborted', async () => {
    env.server.script([{ textChunks: ['Once ', 'upon ', 'a ', 'time ', 'there ', 'was'], delayMs: 120 }])
    await env.t.call('agent', { message: 'story', idempotencyKey: 'ab1' })
    await until(() => agentEvents('ab1').filter((e) => e.stream === 'assistant').length >= 2)
    const wrong = await env.t.raw('chat.abort', { sessionKey: 'agent:main:other', runId: 'ab1' })
    expect(wrong).toMatchObject({ ok: false, error: { message: 'runId does not match sessionKey' } })
    expect(await env.t.call('chat.abort', { sessionKey: 'main', runId: 'ab1' })).toEqual({ ok: true, aborted: true, runIds: ['ab1'] })
    expect((await env.t.call('agent.wait', { runId: 'ab1', timeoutMs: 10_000 })).status).toBe('timeout')
    const aborted = chatEvents('ab1').at(-1)!
    expect(aborted).toMatchObject({ state: 'aborted' })
    expect(aborted.message!.content[0].text).toMatch(/^Once upon/)
    const hist = await env.t.call('chat.history', { sessionKey: 'main' })
    const last = hist.messages.at(-1)!
    expect(last).toMatchObject({ role: 'assistant', aborted: true, runId: 'ab1' })
    expect(JSON.stringify(last.content)).toContain('Once upon')
    expect(await env.t.call('chat.abort', { sessionKey: 'main', runId: 'nope' })).toEqual({ ok: true, aborted: false, runIds: [] })
    expect(await env.t.call('sessions.abort', { key: 'main' })).toEqual({ ok: true, abortedRunId: null, status: 'no-active-run' })
  })
})

describe('chat.history', () => {
  it('returns messages with stable ids and runIds, hides NO_REPLY, pages with offset', async () => {
    env.server.script([{ text: 'answer one' }, { text: 'NO_REPLY' }, { text: 'answer three' }])
    for (const k of ['h1', 'h2', 'h3']) {
      await env.t.call('chat.send', { sessionKey: 'main', message: `q-${k}`, idempotencyKey: k })
      await env.t.call('agent.wait', { runId: k, timeoutMs: 10_000 })
    }
    const all = await env.t.call('chat.history', { sessionKey: 'main' })
    expect(all.messages.map((m) => `${m.role}:${m.runId}`)).toEqual(['user:h1', 'assistant:h1', 'user:h2', 'user:h3', 'assistant:h3'])
    expect(all.hasMore).toBe(false)
    const again = await env.t.call('chat.history', { sessionKey: 'main' })
    expect(again.messages.map((m) => m.id)).toEqual(all.messages.map((m) => m.id))
    const page = await env.t.call('chat.history', { sessionKey: 'main', limit: 2 })
    expect(page).toMatchObject({ hasMore: true, nextOffset: 2 })
    expect(page.messages.map((m) => m.runId)).toEqual(['h3', 'h3'])
    const older = await env.t.call('chat.history', { sessionKey: 'main', limit: 2, offset: 2 })
    expect(older.messages.map((m) => `${m.role}:${m.runId}`)).toEqual(['assistant:h1', 'user:h2'])
    expect(chatEvents('h2').at(-1)).toMatchObject({ state: 'final' })
    expect(chatEvents('h2').at(-1)!.message).toBeUndefined()
    expect(await env.t.call('chat.history', { sessionKey: 'agent:main:unknown' })).toMatchObject({ messages: [], hasMore: false })
  })
})

describe('sessions.*', () => {
  it('create / patch / list / reset / delete / compact', async () => {
    const c = await env.t.call('sessions.create', { label: 'Research', model: 'mockant/c1' })
    expect(c.key).toMatch(/^agent:main:chat-/)
    expect(c.entry).toMatchObject({ label: 'Research', model: 'c1', modelProvider: 'mockant', kind: 'direct' })
    expect(c.entry).not.toHaveProperty('status') // idle: OpenClaw's row enum has no idle
    // the session's model is used by its runs (Anthropic API here)
    env.server.script([{ text: 'from claude' }])
    await env.t.call('chat.send', { sessionKey: c.key, message: 'hi', idempotencyKey: 'sx1' })
    await env.t.call('agent.wait', { runId: 'sx1', timeoutMs: 10_000 })
    expect(env.server.requests.at(-1)!.api).toBe('anthropic')
    const p = await env.t.call('sessions.patch', { key: c.key, label: null, thinkingLevel: 'low', model: null })
    expect(p.entry.label).toBeUndefined()
    expect(p.entry.thinkingLevel).toBe('low')
    const bad = await env.t.raw('sessions.patch', { key: c.key, model: 'nope/x' })
    expect(bad).toMatchObject({ ok: false, error: { code: 'INVALID_REQUEST' } })
    expect(await env.t.raw('sessions.patch', { key: 'agent:main:missing', label: 'x' })).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } })
    const list = await env.t.call('sessions.list', { search: 'chat-' })
    expect(list.sessions.map((s) => s.key)).toEqual([c.key])
    const r = await env.t.call('sessions.reset', { key: c.key })
    expect(r.entry.sessionId).not.toBe(c.sessionId)
    expect(r.entry.thinkingLevel).toBe('low')
    expect(r.entry.inputTokens).toBe(0)
    expect((await env.t.call('chat.history', { sessionKey: c.key })).messages).toEqual([])
    expect(await env.t.call('sessions.compact', { key: c.key })).toMatchObject({ ok: true, compacted: false, reason: expect.any(String) })
    env.t.runtime.hooks.compact = async () => ({ compacted: true, tokensBefore: 100, tokensAfter: 10 })
    expect(await env.t.call('sessions.compact', { key: c.key })).toMatchObject({ compacted: true, tokensAfter: 10 })
    const del = await env.t.call('sessions.delete', { key: c.key })
    // never ran: no transcript, nothing archived
    expect(del).toEqual({ ok: true, key: c.key, deleted: true, archived: [] })
    expect(await env.t.call('sessions.delete', { key: c.key })).toEqual({ ok: true, key: c.key, deleted: false, archived: [] })
    expect((await env.t.call('sessions.list', {})).sessions.some((s) => s.key === c.key)).toBe(false)
  })
})

describe('config, models, tools, approvals, status, prefs', () => {
  it('config.patch stores provider keys in the credential store, never in the file; config.get redacts', async () => {
    const got = await env.t.call('config.get', {})
    expect(got).toMatchObject({ exists: true, valid: true, issues: [] })
    await env.t.call('config.patch', { patch: { models: { providers: { anthropic: { apiKey: 'sk-ant-secret' } } } }, baseHash: got.hash })
    expect(env.t.runtime.core.credentials.get('anthropic')).toBe('sk-ant-secret')
    const file = fs.readFileSync(path.join(env.t.stateDir, 'loopdesk.json'), 'utf8')
    expect(file).not.toContain('sk-ant-secret')
    const after = await env.t.call('config.get', {})
    expect(after.secrets.anthropic).toBe('set')
    expect(JSON.stringify(after.config)).not.toContain('sk-ant-secret')
    // env refs are not secrets: they go to the file
    await env.t.call('config.patch', { patch: { models: { providers: { mock: { apiKey: '${MOCK_KEY}' } } } } })
    expect(fs.readFileSync(path.join(env.t.stateDir, 'loopdesk.json'), 'utf8')).toContain('${MOCK_KEY}')
    // the registry picked up the new key
    const models = await env.t.call('models.list', {})
    expect(models.defaultModel).toBe('mock/m1')
    expect(models.models.find((m) => m.ref === 'mock/m1')).toMatchObject({ configured: true })
    expect(models.models.some((m) => m.provider === 'anthropic' && m.configured)).toBe(true)
    const stale = await env.t.raw('config.patch', { patch: { agents: { defaults: { timeoutSeconds: 5 } } }, baseHash: got.hash })
    expect(stale).toMatchObject({ ok: false, error: { code: 'INVALID_REQUEST', details: { code: 'CONFLICT' } } })
    const invalid = await env.t.raw('config.patch', { patch: { agents: { defaults: { timeoutSeconds: 'soon' } } } })
    expect(invalid).toMatchObject({ ok: false, error: { code: 'INVALID_REQUEST', message: expect.stringContaining('timeoutSeconds') } })
  })

  it('config.patch with a key the credential store refuses leaves the config file untouched', async () => {
    const file = path.join(env.t.stateDir, 'loopdesk.json')
    const before = fs.readFileSync(file, 'utf8')
    const creds = env.t.runtime.core.credentials
    const origSet = creds.set.bind(creds)
    creds.set = () => {
      throw new ApiError('UNAVAILABLE', 'no OS keychain: use an environment variable')
    }
    try {
      const r = await env.t.raw('config.patch', {
        patch: { agents: { defaults: { timeoutSeconds: 77 } }, models: { providers: { openai: { apiKey: 'sk-refused' } } } },
      })
      expect(r).toMatchObject({ ok: false, error: { code: 'UNAVAILABLE' } })
    } finally {
      creds.set = origSet
    }
    expect(fs.readFileSync(file, 'utf8')).toBe(before)
    expect(env.t.runtime.core.config.current.defaults.timeoutSeconds).not.toBe(77)
  })

  it('exec needs approval: the run asks, exec.approval.resolve answers, the command runs', async () => {
    env.server.script([{ toolCalls: [{ name: 'exec', args: { command: 'echo approved-output' } }] }, { text: 'ran it' }])
    await env.t.call('agent', { message: 'run echo', idempotencyKey: 'ap1' })
    await until(() => env.t.events.some((e) => e.event === 'exec.approval.requested'))
    const req = env.t.events.find((e) => e.event === 'exec.approval.requested')!.payload as ExecApprovalRequest
    expect(req).toMatchObject({ runId: 'ap1', sessionKey: 'agent:main:main', command: 'echo approved-output' })
    const recent = await env.t.call('loopdesk.events.recent', { sessionKey: 'main' })
    expect(recent.approvals.map((a) => a.id)).toEqual([req.id])
    expect(recent.events.some((e) => e.stream === 'approval')).toBe(true)
    expect(await env.t.call('exec.approval.resolve', { id: req.id, decision: 'allow-once' })).toEqual({ ok: true, id: req.id, decision: 'allow-once' })
    expect((await env.t.call('agent.wait', { runId: 'ap1', timeoutMs: 10_000 })).status).toBe('ok')
    const result = agentEvents('ap1').find((e) => e.stream === 'tool' && (e.data as any).phase === 'result')!.data as any
    expect(result).toMatchObject({ name: 'exec', isError: false, meta: 'echo approved-output' })
    expect(JSON.stringify(result.result)).toContain('approved-output')
    // how it came to run is kept with the result: a reloaded transcript can still say "Approved once"
    expect(result.result.details).toMatchObject({ exitCode: 0, approval: 'allow-once' })
    const stored = (await env.t.call('chat.history', { sessionKey: 'main' })).messages.find((m) => m.role === 'toolResult' && m.runId === 'ap1')
    expect(stored?.details).toMatchObject({ approval: 'allow-once' })
    expect(env.t.events.some((e) => e.event === 'exec.approval.resolved')).toBe(true)
    const unknown = await env.t.raw('exec.approval.resolve', { id: 'nope', decision: 'deny' })
    expect(unknown.ok).toBe(false)
  })

  it('health, status, agents.list, tools.catalog, prefs', async () => {
    expect(await env.t.call('health', {})).toMatchObject({ ok: true })
    const st = await env.t.call('status', {})
    expect(st).toMatchObject({ ok: true, stateDir: env.t.stateDir, activeRuns: 0, configIssues: [] })
    // the store's location passes through for the settings screen (the test store in memory names none;
    // the headless default is the state dir's credentials.json)
    expect(st.credentials).toBeUndefined()
    const withFile = await startTestRuntime(env.server, { runtime: { credentials: new FileCredentialStore({ stateDir: env.t.stateDir }) } })
    try {
      expect((await withFile.call('status', {})).credentials).toEqual({ store: 'file', path: path.join(env.t.stateDir, 'credentials.json') })
    } finally {
      await withFile.close()
    }
    expect(await env.t.call('agents.list', {})).toMatchObject({ defaultId: 'main', agents: [{ id: 'main', workspace: env.t.workspace }] })
    const tools = (await env.t.call('tools.catalog', {})).tools
    expect(tools.find((x) => x.name === 'exec')).toMatchObject({ needsApproval: true })
    expect(await env.t.call('loopdesk.prefs.get', {})).toMatchObject({ theme: 'system' })
    expect(await env.t.call('loopdesk.prefs.set', { theme: 'dark', sidebarWidth: 300 })).toMatchObject({ theme: 'dark', sidebarWidth: 300 })
    expect(JSON.parse(fs.readFileSync(path.join(env.t.stateDir, 'prefs.json'), 'utf8'))).toMatchObject({ theme: 'dark' })
    expect(env.t.runtime.info).toMatchObject({ stateDir: env.t.stateDir, configPath: path.join(env.t.stateDir, 'loopdesk.json') })
    await expect(env.t.runtime.agentFinal('never-ran')).rejects.toThrow(/unknown runId/)
  })

  it('an invalid config file is reported and the runtime keeps the defaults', async () => {
    const dir = fs.mkdtempSync(path.join(env.t.stateDir, 'bad-'))
    fs.writeFileSync(path.join(dir, 'loopdesk.json'), '{ agents: { defaults: { timeoutSeconds: "x" } } }')
    const bad = await startTestRuntime(env.server, { stateDir: dir })
    try {
      const st = await bad.call('status', {})
      expect(st.configIssues[0].path).toContain('timeoutSeconds')
      expect((await bad.call('config.get', {})).valid).toBe(false)
    } finally {
      await bad.close()
    }
  })

  it('shutdown refuses new runs and aborts running ones after the drain time', async () => {
    env.server.script([{ hang: true }])
    await env.t.call('agent', { message: 'x', idempotencyKey: 'sd1' })
    await until(() => env.t.runtime.core.runner.activeRuns().length === 1)
    await env.t.runtime.shutdown({ drainMs: 50 })
    expect(env.t.runtime.core.tracked.size).toBe(0)
    expect((await env.t.runtime.agentFinal('sd1')).result!.meta.aborted).toBe(true)
    const refused = await env.t.raw('agent', { message: 'x', idempotencyKey: 'sd2' })
    expect(refused).toMatchObject({ ok: false, error: { code: 'UNAVAILABLE' } })
  })
})
