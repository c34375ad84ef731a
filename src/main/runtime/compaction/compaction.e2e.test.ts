// Compaction end to end: a real runtime, the real pi client and the scripted model server. The server
// answers summary requests (recognized by their system prompt) with a fixed summary.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { AgentEvent, ChatEvent } from '../../../shared/events'
import type { LoopdeskConfig } from '../contracts'
import { startModelServer, type CapturedRequest, type ModelServer, type Turn } from '../../../../test/fixtures/model-server'
import { startTestRuntime, testConfig, type TestRuntime } from '../../../../test/fixtures/test-runtime'
import { Transcript } from '../sessions'
import { SUMMARY_SYSTEM_PROMPT } from './summarize'

let server: ModelServer
beforeAll(async () => {
  server = await startModelServer()
})
afterAll(() => server.close())

let t: TestRuntime
const quietExtensions = { logger: { warn: () => {}, error: () => {}, info: () => {} }, loadPlugins: false, loadInternalHooks: false }
const K = 'agent:main:main'

async function start(contextWindow: number, compaction: { reserveTokens: number; keepRecentTurns: number }): Promise<void> {
  server.requests.length = 0
  const extra: LoopdeskConfig = {
    models: {
      providers: {
        mock: {
          baseUrl: server.openaiBaseUrl,
          api: 'openai-completions',
          models: [{ id: 'm1', name: 'Mock', contextWindow, maxTokens: 512 }],
        },
      },
    },
    agents: { defaults: { model: { primary: 'mock/m1' }, compaction } },
  }
  t = await startTestRuntime(server, { config: testConfig(server, extra), runtime: { extensions: quietExtensions } })
}
afterEach(async () => {
  server.script([])
  await t?.close()
})

const text = (c: unknown): string => (typeof c === 'string' ? c : Array.isArray(c) ? c.map((x: { text?: string }) => x.text ?? '').join('') : '')
const msgs = (r: CapturedRequest) => r.body.messages as Array<{ role: string; content: unknown; tool_calls?: unknown[] }>
const systemOf = (r: CapturedRequest) => text(msgs(r).find((m) => m.role === 'system' || m.role === 'developer')?.content)
const isSummaryRequest = (r: CapturedRequest) => systemOf(r) === SUMMARY_SYSTEM_PROMPT
const lastUser = (r: CapturedRequest) => text(msgs(r).filter((m) => m.role === 'user').at(-1)?.content)
const mainRequests = () => server.requests.filter((r) => !isSummaryRequest(r))
const summaryRequests = () => server.requests.filter(isSummaryRequest)
const agentEvents = (runId: string) => t.events.filter((e) => e.event === 'agent' && e.payload.runId === runId).map((e) => e.payload as AgentEvent)
const compactionEvents = (runId: string) => agentEvents(runId).filter((e) => e.stream === 'compaction').map((e) => e.data)
const finalChat = (runId: string) =>
  t.events.find((e) => e.event === 'chat' && e.payload.runId === runId && (e.payload as ChatEvent).state !== 'delta')?.payload as ChatEvent | undefined

async function transcript() {
  const store = t.runtime.core.store('main')
  const entry = store.get(K)!
  return (await new Transcript(store.transcriptPath(entry.sessionId)).readAll()).entries
}

async function run(message: string, id: string) {
  await t.call('agent', { message, idempotencyKey: id, sessionKey: K })
  const w = await t.call('agent.wait', { runId: id, timeoutMs: 20_000 })
  return { wait: w, final: await t.runtime.agentFinal(id) }
}

const filler = (tag: string, chars: number) => `${tag} ` + `${tag.toLowerCase()}-filler `.repeat(Math.ceil(chars / (tag.length + 8))).slice(0, chars)

describe('compaction at the threshold', () => {
  it('summarizes before the request that would exceed contextWindow − reserveTokens, once, and the next run resumes from it', async () => {
    await start(8000, { reserveTokens: 1000, keepRecentTurns: 1 })
    let answer = 0
    server.script((req): Turn => (isSummaryRequest(req) ? { text: 'SUMMARY-OF-EARLIER-TURNS' } : { text: `answer ${++answer}` }))
    let compactedRun: string | undefined
    for (let i = 1; i <= 8 && !compactedRun; i++) {
      const id = `t${i}`
      const { final } = await run(filler(`TURN${i}`, 6000), id)
      expect(final.status).toBe('ok')
      if (compactionEvents(id).length) compactedRun = id
    }
    expect(compactedRun).toBeDefined()
    const id = compactedRun!
    expect(compactionEvents(id)).toEqual([{ phase: 'start' }, { phase: 'end', willRetry: false, completed: true }])
    expect(summaryRequests()).toHaveLength(1)
    // the summary request carried the older turns; the main request after it carries the summary instead
    const summaryReq = summaryRequests()[0]
    expect(lastUser(summaryReq)).toContain('TURN1 turn1-filler')
    const afterIdx = server.requests.indexOf(summaryReq) + 1
    const compacted = server.requests[afterIdx]
    const body = JSON.stringify(compacted.body.messages)
    expect(body).toContain('SUMMARY-OF-EARLIER-TURNS')
    expect(body).not.toContain('TURN1 turn1-filler')
    expect(lastUser(compacted)).toContain(`TURN${id.slice(1)} `)
    // one reply, not duplicated
    const final = await t.runtime.agentFinal(id)
    expect(final.result!.payloads).toEqual([{ text: `answer ${id.slice(1)}` }])
    expect(finalChat(id)?.message?.content[0].text).toBe(`answer ${id.slice(1)}`)
    // the transcript records the compaction; firstKeptEntryId is the kept user message
    const entries = await transcript()
    const c = entries.filter((e) => e.type === 'compaction')
    expect(c).toHaveLength(1)
    const kept = entries.find((e) => e.type === 'message' && e.id === (c[0] as { firstKeptEntryId: string }).firstKeptEntryId)
    expect(kept).toMatchObject({ type: 'message', message: { role: 'user' } })
    expect(text((kept as unknown as { message: { content: unknown } }).message.content)).toContain(`TURN${id.slice(1)} `)
    expect(c[0]).toMatchObject({ summary: 'SUMMARY-OF-EARLIER-TURNS', runId: id, tokensBefore: expect.any(Number), tokensAfter: expect.any(Number) })
    expect((c[0] as { tokensAfter: number }).tokensAfter).toBeLessThan((c[0] as { tokensBefore: number }).tokensBefore)
    expect((await t.call('sessions.list', {})).sessions[0].compactionCount).toBe(1)
    expect(final.result!.meta.agentMeta.compactionCount).toBe(1)
    // the next run rebuilds the compacted history: summary in the system prompt, old turns gone
    const before = server.requests.length
    const next = await run('short question', 'next')
    expect(next.final.result!.meta.agentMeta.compactionCount).toBe(1)
    const nextReq = server.requests.slice(before).find((r) => !isSummaryRequest(r))!
    expect(systemOf(nextReq)).toContain('SUMMARY-OF-EARLIER-TURNS')
    expect(JSON.stringify(nextReq.body.messages)).not.toContain('TURN1 turn1-filler')
  })
})

describe('compaction on a provider context overflow', () => {
  const overflow: Turn = {
    status: 400,
    body: { error: { message: "This model's maximum context length is 32000 tokens. However, you requested 40210 tokens.", type: 'invalid_request_error', code: 'context_length_exceeded' } },
  }

  it('compacts and retries exactly once; no assistant text or tool summary is duplicated', async () => {
    await start(32000, { reserveTokens: 1000, keepRecentTurns: 1 })
    server.script((req): Turn => (isSummaryRequest(req) ? { text: 'SUMMARY-AFTER-OVERFLOW' } : { text: `earlier answer: ${lastUser(req).slice(0, 12)}` }))
    await run('first question', 'o1')
    await run('second question', 'o2')
    await t.call('sessions.patch', { key: K, verboseLevel: 'on' })
    let mainCount = 0
    server.script((req): Turn => {
      if (isSummaryRequest(req)) return { text: 'SUMMARY-AFTER-OVERFLOW' }
      mainCount++
      if (mainCount === 1) return { text: 'Let me look.', toolCalls: [{ id: 'c1', name: 'ls', args: { path: '.' } }] }
      if (mainCount === 2) return overflow
      return { text: 'Here is the listing.' }
    })
    const { wait, final } = await run('list the workspace', 'o3')
    expect(wait.status).toBe('ok')
    // the compaction this run made counts (the session had none before it)
    expect(final.result!.meta.agentMeta.compactionCount).toBe(1)
    expect((await t.call('sessions.list', {})).sessions[0].compactionCount).toBe(1)
    expect(mainCount).toBe(3) // first call, the overflowed one, exactly one retry
    expect(summaryRequests()).toHaveLength(1)
    expect(compactionEvents('o3')).toEqual([{ phase: 'start' }, { phase: 'end', willRetry: true, completed: true }])
    const retried = mainRequests().at(-1)!
    expect(JSON.stringify(retried.body.messages)).toContain('SUMMARY-AFTER-OVERFLOW')
    expect(JSON.stringify(retried.body.messages)).not.toContain('first question')
    // the current turn (prompt, tool call and its result) is kept whole
    expect(msgs(retried).some((m) => m.role === 'tool')).toBe(true)
    expect(msgs(retried).some((m) => m.role === 'assistant' && Array.isArray(m.tool_calls))).toBe(true)
    // verbose tool summary, then the assistant texts: each exactly once
    expect(final.result!.payloads).toEqual([{ text: '🔧 ls: .' }, { text: 'Let me look.' }, { text: 'Here is the listing.' }])
    const toolResults = agentEvents('o3').filter((e) => e.stream === 'tool' && (e.data as { phase: string }).phase === 'result')
    expect(toolResults).toHaveLength(1)
    const lifecycle = agentEvents('o3').filter((e) => e.stream === 'lifecycle').map((e) => (e.data as { phase: string }).phase)
    expect(lifecycle).toEqual(['start', 'end'])
    expect(finalChat('o3')?.state).toBe('final')
  })

  it('a second overflow in the same run is not retried again: the run fails', async () => {
    await start(32000, { reserveTokens: 1000, keepRecentTurns: 1 })
    server.script((req): Turn => (isSummaryRequest(req) ? { text: 'S' } : { text: 'fine' }))
    await run('q1', 'd1')
    await run('q2', 'd2')
    server.script((req): Turn => (isSummaryRequest(req) ? { text: 'S' } : overflow))
    const before = mainRequests().length
    const { wait } = await run('q3', 'd3')
    expect(wait.status).toBe('error')
    expect(mainRequests().length - before).toBe(2) // the first try and ONE retry
    expect(compactionEvents('d3')).toEqual([{ phase: 'start' }, { phase: 'end', willRetry: true, completed: true }])
  })

  it('a non-overflow model error is not compacted', async () => {
    await start(32000, { reserveTokens: 1000, keepRecentTurns: 1 })
    server.script([{ text: 'a' }, { status: 500, message: 'internal error' }])
    await run('q1', 'e1')
    const { wait } = await run('q2', 'e2')
    expect(wait.status).toBe('error')
    expect(compactionEvents('e2')).toEqual([])
    expect(summaryRequests()).toHaveLength(0)
  })
})

describe('manual compaction (sessions.compact)', () => {
  it('summarizes the session history with the model; the next run starts from the summary', async () => {
    await start(32000, { reserveTokens: 1000, keepRecentTurns: 1 })
    server.script((req): Turn => (isSummaryRequest(req) ? { text: `MANUAL SUMMARY (${lastUser(req).includes('focus on names') ? 'focused' : 'plain'})` } : { text: 'ok' }))
    expect(await t.call('sessions.compact', { key: K }).catch((e) => e.shape)).toMatchObject({ code: 'NOT_FOUND' })
    await run(`my name is Ada. ${filler('ADA', 2000)}`, 'm1')
    await run(`what is 2+2 ${filler('MATH', 2000)}`, 'm2')
    await run('and 3+3', 'm3')
    const r = await t.call('sessions.compact', { key: K, instructions: 'focus on names' })
    expect(r).toMatchObject({ ok: true, key: K, compacted: true, tokensBefore: expect.any(Number), tokensAfter: expect.any(Number) })
    expect(r.tokensAfter!).toBeLessThan(r.tokensBefore!)
    expect(t.events.some((e) => e.event === 'sessions.changed' && e.payload.reason === 'compact')).toBe(true)
    const before = server.requests.length
    await run('who am I?', 'm4')
    const req = server.requests.slice(before).find((x) => !isSummaryRequest(x))!
    expect(systemOf(req)).toContain('MANUAL SUMMARY (focused)')
    const users = msgs(req).filter((m) => m.role === 'user').map((m) => text(m.content))
    expect(users).toEqual(['and 3+3', 'who am I?'])
    expect((await t.call('sessions.list', {})).sessions[0].compactionCount).toBe(1)
  })
})

describe('a request that cannot fit the context window', () => {
  it('is not sent: the run fails with the estimate and the window (an isError payload, meta.error context_overflow)', async () => {
    await start(6000, { reserveTokens: 1000, keepRecentTurns: 1 })
    server.script((req): Turn => (isSummaryRequest(req) ? { text: 'S' } : { text: 'short answer' }))
    // a small window still takes a short message
    expect((await run('hello', 'fits')).final.result!.payloads).toEqual([{ text: 'short answer' }])
    const before = server.requests.length
    const { wait, final } = await run(filler('HUGE', 200_000), 'huge')
    // nothing went out for it: not the message, and no summary of the history (it would not make the message fit)
    expect(server.requests.length).toBe(before)
    expect(compactionEvents('huge')).toEqual([])
    expect(wait).toMatchObject({ status: 'error', error: expect.stringMatching(/^message too large for this model's context window: ~\d+ tokens, window 6000/) })
    expect(final).toMatchObject({ status: 'ok', summary: 'completed' })
    expect(final.result!.payloads).toEqual([{ text: expect.stringContaining("message too large for this model's context window"), isError: true }])
    expect(final.result!.meta.error).toMatchObject({ kind: 'context_overflow' })
    const tokens = Number(/~(\d+) tokens/.exec(final.result!.meta.error!.message)![1])
    expect(tokens).toBeGreaterThan(50_000)
    // the session goes on: the next message is answered (the refused one, kept in the history, is summarized)
    expect((await run('and now?', 'after')).final.result!.payloads).toEqual([{ text: 'short answer' }])
    expect(JSON.stringify(mainRequests().at(-1)!.body)).not.toContain('huge-filler huge-filler')
  })
})
