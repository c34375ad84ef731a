// Queue modes end to end: chat.send through dispatch on a real runtime, the real pi client and the
// scripted model server. A slow first reply keeps the session busy while the next messages arrive.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { AgentEvent, ChatEvent, QueueItem } from '../../../shared/events'
import type { LoopdeskConfig } from '../contracts'
import { startModelServer, type CapturedRequest, type ModelServer } from '../../../../test/fixtures/model-server'
import { startTestRuntime, testConfig, type TestRuntime } from '../../../../test/fixtures/test-runtime'
import { until as pollUntil } from '../../../../test/fixtures/until'

let server: ModelServer
beforeAll(async () => {
  server = await startModelServer()
})
afterAll(() => server.close())

let t: TestRuntime
const quietExtensions = { logger: { warn: () => {}, error: () => {}, info: () => {} }, loadPlugins: false, loadInternalHooks: false }

async function start(queue: NonNullable<LoopdeskConfig['messages']>['queue']): Promise<void> {
  server.requests.length = 0 // the server is shared by the tests of this file
  t = await startTestRuntime(server, { config: testConfig(server, { messages: { queue } }), runtime: { extensions: quietExtensions } })
}
afterEach(async () => {
  server.script([])
  await t?.close()
})

const K = 'agent:main:main'
const until = (cond: () => boolean, ms = 8000) => pollUntil(cond, ms)
const agentEvents = (runId: string) => t.events.filter((e) => e.event === 'agent' && e.payload.runId === runId).map((e) => e.payload as AgentEvent)
const ended = (runId: string) => agentEvents(runId).some((e) => e.stream === 'lifecycle' && (e.data as { phase: string }).phase !== 'start')
const finalText = (runId: string) => {
  const f = t.events.find((e) => e.event === 'chat' && e.payload.runId === runId && (e.payload as ChatEvent).state !== 'delta')
  return (f?.payload as ChatEvent | undefined)?.message?.content[0].text
}
/** the user text of the last user message of a captured OpenAI request */
const lastUser = (r: CapturedRequest): string => {
  const users = (r.body.messages as Array<{ role: string; content: unknown }>).filter((m) => m.role === 'user')
  const c = users.at(-1)?.content
  return typeof c === 'string' ? c : (c as Array<{ text: string }>).map((x) => x.text).join('')
}
const userTexts = (r: CapturedRequest): string[] =>
  (r.body.messages as Array<{ role: string; content: unknown }>)
    .filter((m) => m.role === 'user')
    .map((m) => (typeof m.content === 'string' ? m.content : (m.content as Array<{ text: string }>).map((x) => x.text).join('')))

/** replies echo the user's last text; the first one is slow so the session stays busy */
function echoServer(slowFirstMs = 400) {
  let n = 0
  server.script((req) => ({ text: `reply to: ${lastUser(req)}`, chunks: 4, delayMs: n++ === 0 ? slowFirstMs / 4 : 0 }))
}

describe('queue modes (chat.send)', () => {
  it('followup: each message runs after the active run, in order; the queue is observable', async () => {
    await start({ mode: 'followup', debounceMs: 0 })
    echoServer()
    const changes: QueueItem[][] = []
    t.runtime.subscribe((e) => {
      if (e.event === 'queue.changed') changes.push(e.payload.items)
    })
    expect(await t.call('chat.send', { sessionKey: K, message: 'first', idempotencyKey: 'f1' })).toEqual({ runId: 'f1', status: 'started' })
    const b = await t.call('chat.send', { sessionKey: K, message: 'second', idempotencyKey: 'f2' })
    const c = await t.call('chat.send', { sessionKey: K, message: 'third', idempotencyKey: 'f3' })
    expect(b).toMatchObject({ runId: 'f2', status: 'queued', queueItemId: expect.any(String) })
    expect(c).toMatchObject({ runId: 'f3', status: 'queued' })
    const listed = await t.call('loopdesk.queue.list', { sessionKey: K })
    expect(listed.items.map((i) => [i.text, i.status, i.mode])).toEqual([
      ['second', 'queued', 'followup'],
      ['third', 'queued', 'followup'],
    ])
    await until(() => ended('f3'))
    expect(server.requests.map(lastUser)).toEqual(['first', 'second', 'third'])
    expect(finalText('f2')).toBe('reply to: second')
    expect(finalText('f3')).toBe('reply to: third')
    const after = await t.call('loopdesk.queue.list', { sessionKey: K })
    expect(after.items.map((i) => [i.text, i.status, i.runId])).toEqual([
      ['second', 'started', 'f2'],
      ['third', 'started', 'f3'],
    ])
    expect(changes.length).toBeGreaterThanOrEqual(4)
  })

  it('collect: messages queued during a run are coalesced into ONE follow-up turn after the debounce', async () => {
    await start({ mode: 'collect', debounceMs: 150 })
    echoServer()
    await t.call('chat.send', { sessionKey: K, message: 'start', idempotencyKey: 'c1' })
    await t.call('chat.send', { sessionKey: K, message: 'also this', idempotencyKey: 'c2' })
    await t.call('chat.send', { sessionKey: K, message: 'and that', idempotencyKey: 'c3' })
    await until(() => ended('c2'))
    await new Promise((r) => setTimeout(r, 400))
    expect(server.requests).toHaveLength(2)
    expect(lastUser(server.requests[1])).toBe('[Queued messages while agent was busy]\n\n---\nQueued #1\nalso this\n\n---\nQueued #2\nand that')
    const items = (await t.call('loopdesk.queue.list', { sessionKey: K })).items
    expect(items.map((i) => [i.status, i.runId])).toEqual([
      ['collected', 'c2'],
      ['collected', 'c2'],
    ])
  })

  it('collect: every batched runId reaches the batch run\'s outcome (agent.wait, lifecycle, chat final, agentFinal)', async () => {
    await start({ mode: 'collect', debounceMs: 150 })
    echoServer()
    await t.call('chat.send', { sessionKey: K, message: 'start', idempotencyKey: 'k1' })
    await t.call('chat.send', { sessionKey: K, message: 'one', idempotencyKey: 'k2' })
    await t.call('chat.send', { sessionKey: K, message: 'two', idempotencyKey: 'k3' })
    await t.call('chat.send', { sessionKey: K, message: 'three', idempotencyKey: 'k4' })
    const waits = await Promise.all(['k1', 'k2', 'k3', 'k4'].map((runId) => t.call('agent.wait', { runId, timeoutMs: 10_000 })))
    expect(waits.map((w) => w.status)).toEqual(['ok', 'ok', 'ok', 'ok'])
    expect(server.requests).toHaveLength(2) // k2..k4 were answered by ONE run
    // the folded runIds report the batch run's own times (and reply), their stop reason "collected"
    const [, batch, f3, f4] = waits
    for (const w of [f3, f4]) expect(w).toEqual({ ...batch, runId: w.runId, stopReason: 'collected' })
    for (const id of ['k3', 'k4']) {
      const life = agentEvents(id).filter((e) => e.stream === 'lifecycle').map((e) => e.data)
      expect(life).toEqual([
        expect.objectContaining({ phase: 'start', foldedInto: 'k2' }),
        expect.objectContaining({ phase: 'end', foldedInto: 'k2', stopReason: 'collected' }),
      ])
      const chat = t.events.filter((e) => e.event === 'chat' && e.payload.runId === id).map((e) => e.payload as ChatEvent)
      expect(chat).toEqual([expect.objectContaining({ state: 'final', stopReason: 'collected' })])
      expect(chat[0].message).toBeUndefined() // the reply is shown once, under the batch run
      const final = await t.runtime.agentFinal(id)
      expect(final).toMatchObject({ runId: id, status: 'ok', summary: 'completed' })
      expect(final.result?.payloads).toEqual((await t.runtime.agentFinal('k2')).result?.payloads)
    }
    expect(finalText('k2')).toMatch(/^reply to: \[Queued messages while agent was busy\]/)
    // nothing of these messages is left open: a restart would not resurrect them as "interrupted"
    expect(t.runtime.core.accepted('main').openCount()).toBe(0)
  })

  it('collect: a batch run that fails fails every batched runId; one that is stopped reports timeout for all', async () => {
    await start({ mode: 'collect', debounceMs: 100 })
    server.script([{ text: 'first', delayMs: 100, chunks: 3 }, { status: 500, message: 'kaboom' }])
    await t.call('chat.send', { sessionKey: K, message: 'start', idempotencyKey: 'e1' })
    await t.call('chat.send', { sessionKey: K, message: 'a', idempotencyKey: 'e2' })
    await t.call('chat.send', { sessionKey: K, message: 'b', idempotencyKey: 'e3' })
    const [w2, w3] = await Promise.all(['e2', 'e3'].map((runId) => t.call('agent.wait', { runId, timeoutMs: 10_000 })))
    expect(w2).toMatchObject({ status: 'error', error: expect.stringContaining('kaboom') })
    expect(w3).toEqual({ ...w2, runId: 'e3' })
    expect(agentEvents('e3').at(-1)?.data).toMatchObject({ phase: 'error', foldedInto: 'e2' })

    server.script([{ text: 'busy', delayMs: 100, chunks: 3 }, { hang: true }])
    await t.call('chat.send', { sessionKey: K, message: 'again', idempotencyKey: 's1' })
    await t.call('chat.send', { sessionKey: K, message: 'x', idempotencyKey: 's2' })
    await t.call('chat.send', { sessionKey: K, message: 'y', idempotencyKey: 's3' })
    await until(() => agentEvents('s3').some((e) => (e.data as { phase?: string }).phase === 'start'))
    await t.call('chat.abort', { sessionKey: K })
    const [a2, a3] = await Promise.all(['s2', 's3'].map((runId) => t.call('agent.wait', { runId, timeoutMs: 10_000 })))
    expect(a2.status).toBe('timeout')
    expect(a3).toEqual({ ...a2, runId: 's3' })
  })

  it('steer: injected into the active run before its next model call (no extra run)', async () => {
    await start({ mode: 'steer', debounceMs: 0 })
    server.script([
      { toolCalls: [{ name: 'ls', args: { path: '.' } }], delayMs: 150, chunks: 2 },
      (req) => ({ text: `final, seen: ${userTexts(req).join(' | ')}` }),
    ])
    await t.call('chat.send', { sessionKey: K, message: 'list files', idempotencyKey: 's1' })
    await until(() => server.requests.length === 1)
    const r = await t.call('chat.send', { sessionKey: K, message: 'and tell me the count', idempotencyKey: 's2' })
    expect(r).toMatchObject({ status: 'steered', runId: 's1' })
    await until(() => ended('s1'))
    expect(server.requests).toHaveLength(2)
    expect(userTexts(server.requests[1])).toEqual(['list files', 'and tell me the count'])
    expect(finalText('s1')).toContain('seen: list files | and tell me the count')
    expect((await t.call('loopdesk.queue.list', { sessionKey: K })).items).toEqual([
      expect.objectContaining({ text: 'and tell me the count', status: 'steered', runId: 's1', mode: 'steer' }),
    ])
    expect(ended('s2')).toBe(false)
  })

  it('default (no messages.queue): a message arriving during a run steers it, as OpenClaw 2026.9 does', async () => {
    await start(undefined)
    server.script([{ toolCalls: [{ name: 'ls', args: { path: '.' } }], delayMs: 150, chunks: 2 }, { text: 'done' }])
    await t.call('chat.send', { sessionKey: K, message: 'list files', idempotencyKey: 'd1' })
    await until(() => server.requests.length === 1)
    expect(await t.call('chat.send', { sessionKey: K, message: 'and count them', idempotencyKey: 'd2' })).toMatchObject({ status: 'steered', runId: 'd1' })
    await until(() => ended('d1'))
    expect(userTexts(server.requests[1])).toEqual(['list files', 'and count them'])
  })

  it('interrupt: aborts the active run, then runs the new message', async () => {
    await start({ mode: 'followup', debounceMs: 0 })
    server.script([{ hang: true }, (req) => ({ text: `reply to: ${lastUser(req)}` })])
    await t.call('chat.send', { sessionKey: K, message: 'long task', idempotencyKey: 'i1' })
    await until(() => server.requests.length === 1)
    const r = await t.call('chat.send', { sessionKey: K, message: 'forget that, do this', idempotencyKey: 'i2', queueMode: 'interrupt' })
    expect(r).toEqual({ runId: 'i2', status: 'started' })
    expect(agentEvents('i1').find((e) => e.stream === 'lifecycle' && (e.data as { phase: string }).phase === 'end')?.data).toMatchObject({ aborted: true })
    await until(() => ended('i2'))
    expect(finalText('i2')).toBe('reply to: forget that, do this')
  })

  it('cap with drop "new" rejects the newest message with a clear error; remove takes a message out', async () => {
    await start({ mode: 'followup', debounceMs: 0, cap: 1, drop: 'new' })
    server.script([{ hang: true }, (req) => ({ text: `reply to: ${lastUser(req)}` })])
    await t.call('chat.send', { sessionKey: K, message: 'busy', idempotencyKey: 'n1' })
    await until(() => server.requests.length === 1)
    const q = await t.call('chat.send', { sessionKey: K, message: 'queued one', idempotencyKey: 'n2' })
    expect(q).toMatchObject({ status: 'queued' })
    const rejected = await t.raw('chat.send', { sessionKey: K, message: 'one too many', idempotencyKey: 'n3' })
    expect(rejected).toMatchObject({ ok: false, error: { code: 'UNAVAILABLE', message: expect.stringMatching(/cap 1/) } })
    const id = (q as { queueItemId: string }).queueItemId
    expect(await t.call('loopdesk.queue.remove', { sessionKey: K, id })).toEqual({ ok: true, removed: true })
    const items = (await t.call('loopdesk.queue.list', { sessionKey: K })).items
    expect(items.map((i) => [i.text, i.status])).toEqual([
      ['queued one', 'removed'],
      ['one too many', 'dropped'],
    ])
    await t.call('chat.abort', { sessionKey: K })
    await until(() => ended('n1'))
    await new Promise((r) => setTimeout(r, 100))
    expect(server.requests).toHaveLength(1) // the removed message never ran
  })

  it('chat.abort / sessions.abort with the runId of a queued message take it out of the queue: it never runs', async () => {
    await start({ mode: 'followup', debounceMs: 0 })
    server.script([{ hang: true }, (req) => ({ text: `reply to: ${lastUser(req)}` })])
    await t.call('chat.send', { sessionKey: K, message: 'busy', idempotencyKey: 'qa1' })
    await until(() => server.requests.length === 1)
    expect(await t.call('chat.send', { sessionKey: K, message: 'never mind this', idempotencyKey: 'qa2' })).toMatchObject({ status: 'queued' })
    expect(await t.call('chat.send', { sessionKey: K, message: 'nor this', idempotencyKey: 'qa3' })).toMatchObject({ status: 'queued' })
    expect(await t.call('chat.send', { sessionKey: K, message: 'but this', idempotencyKey: 'qa4' })).toMatchObject({ status: 'queued' })
    expect(await t.call('chat.abort', { sessionKey: K, runId: 'qa2' })).toEqual({ ok: true, aborted: true, runIds: ['qa2'] })
    expect(await t.call('sessions.abort', { key: K, runId: 'qa3' })).toEqual({ ok: true, abortedRunId: 'qa3', status: 'aborted' })
    // a second abort finds nothing waiting
    expect(await t.call('chat.abort', { sessionKey: K, runId: 'qa2' })).toEqual({ ok: true, aborted: false, runIds: [] })
    for (const runId of ['qa2', 'qa3']) expect((await t.call('agent.wait', { runId, timeoutMs: 5_000 })).status).toBe('timeout')
    const items = (await t.call('loopdesk.queue.list', { sessionKey: K })).items
    expect(items.map((i) => [i.text, i.status])).toEqual([
      ['never mind this', 'removed'],
      ['nor this', 'removed'],
      ['but this', 'queued'],
    ])
    // the running reply stops; only the message still queued runs after it
    await t.call('chat.abort', { sessionKey: K, runId: 'qa1' })
    await until(() => ended('qa4'))
    expect(server.requests.map(lastUser)).toEqual(['busy', 'but this'])
  })

  it('loopdesk.queue.hold before chat.abort (the window\'s Stop): the queued message waits until released', async () => {
    await start({ mode: 'followup', debounceMs: 0 })
    server.script([{ hang: true }, (req) => ({ text: `reply to: ${lastUser(req)}` })])
    await t.call('chat.send', { sessionKey: K, message: 'busy', idempotencyKey: 'h1' })
    await until(() => server.requests.length === 1)
    const q = await t.call('chat.send', { sessionKey: K, message: 'after the stop', idempotencyKey: 'h2' })
    expect(q).toMatchObject({ status: 'queued' })
    const id = (q as { queueItemId: string }).queueItemId
    expect(await t.call('loopdesk.queue.hold', { sessionKey: K })).toEqual({ ok: true, ids: [id] })
    await t.call('chat.abort', { sessionKey: K, runId: 'h1' })
    await until(() => ended('h1'))
    await new Promise((r) => setTimeout(r, 150))
    expect(server.requests).toHaveLength(1)
    expect((await t.call('loopdesk.queue.list', { sessionKey: K })).items).toEqual([expect.objectContaining({ id, status: 'queued', held: true })])
    expect(await t.call('loopdesk.queue.release', { sessionKey: K, ids: [id] })).toEqual({ ok: true, ids: [id] })
    await until(() => ended('h2'))
    expect(server.requests.map(lastUser)).toEqual(['busy', 'after the stop'])
    expect(finalText('h2')).toBe('reply to: after the stop')
  })

  it('loopdesk.queue.reorder: follow-ups run in the order the user gave them; its params are schema-checked', async () => {
    await start({ mode: 'followup', debounceMs: 0 })
    server.script([{ hang: true }, ...[1, 2, 3].map(() => (req: CapturedRequest) => ({ text: `reply to: ${lastUser(req)}` }))])
    await t.call('chat.send', { sessionKey: K, message: 'busy', idempotencyKey: 'o1' })
    await until(() => server.requests.length === 1)
    const ids: string[] = []
    for (const [n, text] of [['o2', 'A'], ['o3', 'B'], ['o4', 'C']]) {
      ids.push(((await t.call('chat.send', { sessionKey: K, message: text, idempotencyKey: n })) as { queueItemId: string }).queueItemId)
    }
    const [a, b, c] = ids
    expect(await t.call('loopdesk.queue.reorder', { sessionKey: K, ids: [c, b, a] })).toEqual({ ok: true, ids: [c, b, a] })
    expect((await t.call('loopdesk.queue.list', { sessionKey: K })).items.map((i) => i.text)).toEqual(['C', 'B', 'A'])
    const bad = await t.raw('loopdesk.queue.reorder', { sessionKey: K, ids: [] })
    expect(bad).toMatchObject({ ok: false, error: { code: 'INVALID_REQUEST' } })
    expect(await t.raw('loopdesk.queue.reorder', { sessionKey: K, ids: [a], extra: 1 })).toMatchObject({ ok: false, error: { code: 'INVALID_REQUEST' } })
    await t.call('chat.abort', { sessionKey: K, runId: 'o1' })
    await until(() => ended('o2'))
    expect(server.requests.map(lastUser)).toEqual(['busy', 'C', 'B', 'A'])
  })

  it('summarize: overflowed messages reach the next prompt as a summary; /stop clears the queue', async () => {
    await start({ mode: 'followup', debounceMs: 0, cap: 1, drop: 'summarize' })
    server.script([{ hang: true }, (req) => ({ text: `reply to: ${lastUser(req)}` })])
    await t.call('chat.send', { sessionKey: K, message: 'busy', idempotencyKey: 'm1' })
    await until(() => server.requests.length === 1)
    await t.call('chat.send', { sessionKey: K, message: 'dropped one', idempotencyKey: 'm2' })
    await t.call('chat.send', { sessionKey: K, message: 'kept one', idempotencyKey: 'm3' })
    await t.call('chat.abort', { sessionKey: K })
    await until(() => ended('m3'))
    expect(lastUser(server.requests[1])).toBe('[Queue overflow] Dropped 1 message due to cap.\nSummary:\n- dropped one\n\nkept one')
    // /stop while messages wait: they are removed
    server.script([{ hang: true }])
    await t.call('chat.send', { sessionKey: K, message: 'busy again', idempotencyKey: 'm4' })
    await until(() => server.requests.length === 3)
    await t.call('chat.send', { sessionKey: K, message: 'waiting', idempotencyKey: 'm5' })
    const stop = await t.call('chat.send', { sessionKey: K, message: '/stop', idempotencyKey: 'm6' })
    expect(stop).toMatchObject({ status: 'command', aborted: true, messages: ['Stopped.'] })
    const items = (await t.call('loopdesk.queue.list', { sessionKey: K })).items
    expect(items.find((i) => i.text === 'waiting')).toMatchObject({ status: 'removed', detail: 'stopped' })
  })
})
