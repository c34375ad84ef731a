// The embedded runner against the real pi-ai client and the scripted model server, with the real
// session store, transcript, lanes, event bus, tools and reply shaping.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import type { AgentEvent } from '../../../shared/events'
import { memoryCredentials } from '../../../../test/fixtures/memory-credentials'
import { startModelServer, type ModelServer } from '../../../../test/fixtures/model-server'
import { mockProviderConfig, resolvedConfig } from '../../../../test/fixtures/resolved-config'
import type { ResolvedConfig } from '../contracts'
import { EventBus, RunRegistry } from '../events'
import { CommandQueue } from '../lanes'
import { createModelRegistry, type ModelRegistry } from '../models'
import { buildPayloads, formatToolSummary } from '../reply'
import { newSessionId, SessionStore, Transcript } from '../sessions'
import { ApprovalBroker, capToolResultForPersist, createTools, sanitizeToolResultForEvent, toolMeta } from '../tools'
import { EmbeddedRunner, type RunRequest } from './embedded-runner'
import type { RuntimeHooks } from './hooks'

let server: ModelServer
beforeAll(async () => {
  server = await startModelServer()
})
afterAll(() => server.close())

interface H {
  stateDir: string
  workspace: string
  config: ResolvedConfig
  bus: EventBus
  runs: RunRegistry
  store: SessionStore
  runner: EmbeddedRunner
  hooks: RuntimeHooks
  events: AgentEvent[]
  registry: ModelRegistry
  run(over?: Partial<RunRequest>): ReturnType<EmbeddedRunner['run']>
  transcript(key?: string): Promise<any[]>
}

let seq = 0
const dirs: string[] = []
const stores: SessionStore[] = []
async function harness(o: { timeoutSeconds?: number; allowlist?: string[]; anthropic?: boolean } = {}): Promise<H> {
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ld-runner-'))
  dirs.push(stateDir)
  const workspace = path.join(stateDir, 'workspace')
  const config = resolvedConfig(mockProviderConfig(server.openaiBaseUrl, o.anthropic ? server.anthropicBaseUrl : undefined), { model: 'mock/m1', workspace, timeoutSeconds: o.timeoutSeconds })
  config.exec.allowlist = o.allowlist ?? []
  const bus = new EventBus()
  const runs = new RunRegistry()
  runs.attach(bus)
  const queue = new CommandQueue()
  const store = new SessionStore({ stateDir, agentId: 'main', fsync: false })
  stores.push(store)
  const registry = await createModelRegistry(config, memoryCredentials(), {}, { maxRetries: 0 })
  const approvals = new ApprovalBroker({ emit: () => undefined, timeoutMs: 2000 })
  const events: AgentEvent[] = []
  bus.subscribe((e) => events.push(e))
  const hooks: RuntimeHooks = {}
  await store.update('agent:main:main', () => ({ sessionId: newSessionId(), updatedAt: Date.now() }))
  const runner = new EmbeddedRunner({
    config: () => config,
    bus,
    queue,
    store: () => store,
    models: () => registry,
    tools: createTools,
    approvals,
    buildPayloads,
    sanitizeToolResult: sanitizeToolResultForEvent,
    capToolResultForPersist,
    toolMeta,
    formatToolSummary,
    hooks,
    sessionChanged: () => undefined,
  })
  const h: H = {
    stateDir,
    workspace,
    config,
    bus,
    runs,
    store,
    runner,
    hooks,
    events,
    registry,
    async run(over = {}) {
      const sessionKey = over.sessionKey ?? 'agent:main:main'
      if (!store.get(sessionKey)) await store.update(sessionKey, (cur) => cur ?? { sessionId: newSessionId(), updatedAt: Date.now() })
      return runner.run({ runId: `r${++seq}`, sessionKey, agentId: 'main', message: 'hello', acceptedAt: Date.now(), ...over })
    },
    async transcript(key = 'agent:main:main') {
      const e = store.get(key)!
      return (await new Transcript(store.transcriptPath(e.sessionId)).readAll()).entries
    },
  }
  return h
}

afterEach(() => server.script([]))
afterAll(async () => {
  // a deferred sessions.json write landing after the removal would create the dir again
  for (const s of stores) await s.flush()
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true })
})

/** running (a zombie waiting for its reaper counts as dead) */
function alive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    return !/^\d+ \(.*\) [ZX]/.test(stat)
  } catch {
    return false
  }
}

const of = (h: H, runId: string) => h.events.filter((e) => e.runId === runId)
const lifecycle = (evs: AgentEvent[]) => evs.filter((e) => e.stream === 'lifecycle').map((e) => (e.data as any).phase)

describe('embedded runner', () => {
  let h: H
  beforeEach(async () => {
    h = await harness()
  })

  it('streams text: lifecycle start → assistant deltas → end, seq from 1 strictly increasing, transcript + session row', async () => {
    // chunks 15 ms apart arrive in separate reads: one assistant event each
    server.script([{ text: 'Hello there, world!', chunks: 3, delayMs: 15, usage: { input: 100, output: 20 } }])
    const out = await h.run({ runId: 'text-1' })
    expect(out.status).toBe('ok')
    expect(out.reason).toBe('completed')
    expect(out.payloads).toEqual([{ text: 'Hello there, world!' }])
    const evs = of(h, 'text-1')
    expect(evs.map((e) => e.seq)).toEqual(evs.map((_, i) => i + 1))
    expect(evs.every((e) => e.sessionKey === 'agent:main:main')).toBe(true)
    expect(lifecycle(evs)).toEqual(['start', 'end'])
    const assistant = evs.filter((e) => e.stream === 'assistant').map((e) => e.data as { text: string; delta: string })
    expect(assistant.map((a) => a.delta).join('')).toBe('Hello there, world!')
    expect(assistant.at(-1)!.text).toBe('Hello there, world!')
    expect(assistant.length).toBe(3)
    // usage & cost summed; meta + timing
    expect(out.meta.agentMeta).toMatchObject({ provider: 'mock', model: 'm1', usage: { input: 100, output: 20 } })
    expect(out.meta.agentMeta.usage.costUsd).toBeCloseTo((100 * 1 + 20 * 2) / 1e6)
    expect(out.meta.timing!.firstDeltaAt).toBeGreaterThanOrEqual(out.meta.timing!.startedAt!)
    expect(out.meta.timing!.modelMs).toBeGreaterThan(0)
    // transcript: header, user (first), assistant — each with the runId
    const t = await h.transcript()
    expect(t[0]).toMatchObject({ type: 'session', sessionKey: 'agent:main:main' })
    expect(t.slice(1).map((e) => e.message.role)).toEqual(['user', 'assistant'])
    expect(t.slice(1).every((e) => e.runId === 'text-1')).toBe(true)
    const row = h.store.get('agent:main:main')!
    expect(row).toMatchObject({ status: 'done', inputTokens: 100, outputTokens: 20, model: 'm1', modelProvider: 'mock', lastMessagePreview: 'Hello there, world!' })
    expect(row.activeRunId).toBeUndefined()
    expect(row.systemPromptReport!.sections.map((s) => s.name)).toContain('base')
    // the request carried the system prompt (leading system message) and the tools
    const req = server.requests.at(-1)!.body
    expect(req.messages[0].role).toBe('system')
    expect(req.messages[0].content).toContain('Loopdesk')
    expect(req.tools.map((t: any) => t.function.name)).toContain('exec')
  })

  it('a run never starts inside the call that queued it (the accepting handler answers first)', async () => {
    server.script([{ text: 'later' }])
    const done = h.run({ runId: 'defer-1' })
    for (let i = 0; i < 20; i++) await Promise.resolve()
    expect(of(h, 'defer-1')).toEqual([]) // no lifecycle start, no setup, within the caller's microtasks
    await new Promise((r) => setImmediate(r))
    expect(lifecycle(of(h, 'defer-1'))[0]).toBe('start')
    expect((await done).status).toBe('ok')
  })

  it('deltas that arrive together leave as one assistant event (cumulative text, concatenated delta), flushed before lifecycle end', async () => {
    const chunks = Array.from({ length: 500 }, (_, i) => `w${i} `)
    server.script([{ textChunks: chunks }])
    const out = await h.run({ runId: 'merge-1' })
    expect(out.payloads).toEqual([{ text: chunks.join('') }])
    const evs = of(h, 'merge-1')
    expect(evs.map((e) => e.seq)).toEqual(evs.map((_, i) => i + 1))
    expect(evs.at(-1)!.data).toMatchObject({ phase: 'end' })
    const assistant = evs.filter((e) => e.stream === 'assistant').map((e) => e.data as { text: string; delta: string })
    // 500 SSE frames written back to back reach the runner in a few reads, not one event per frame
    expect(assistant.length).toBeGreaterThan(0)
    expect(assistant.length).toBeLessThan(100)
    let text = ''
    for (const a of assistant) {
      text += a.delta
      expect(a.text).toBe(text)
    }
    expect(text).toBe(chunks.join(''))
  })

  it('the user message is on disk before the model is asked', async () => {
    server.script((req) => {
      const e = h.store.get('agent:main:main')!
      const lines = fs.readFileSync(h.store.transcriptPath(e.sessionId), 'utf8').trim().split('\n').map((l) => JSON.parse(l))
      const last = lines.at(-1)
      return { text: last.message?.role === 'user' && req.body.messages.length > 0 ? 'persisted-first' : 'not-persisted' }
    })
    const out = await h.run()
    expect(out.payloads[0].text).toBe('persisted-first')
  })

  it('tool call round trip: tool start/result events with meta, toolResult persisted, next request carries it', async () => {
    fs.mkdirSync(h.workspace, { recursive: true })
    fs.writeFileSync(path.join(h.workspace, 'notes.txt'), 'remember the milk')
    server.script([{ text: 'Let me look.', toolCalls: [{ id: 'call_read', name: 'read', args: { path: 'notes.txt' }, fragments: 3 }] }, { text: 'It says: remember the milk.' }])
    const out = await h.run({ runId: 'tool-1' })
    expect(out.status).toBe('ok')
    const tools = of(h, 'tool-1').filter((e) => e.stream === 'tool').map((e) => e.data as any)
    expect(tools[0]).toMatchObject({ phase: 'start', name: 'read', toolCallId: 'call_read', args: { path: 'notes.txt' } })
    const result = tools.find((t) => t.phase === 'result')
    expect(result).toMatchObject({ name: 'read', toolCallId: 'call_read', isError: false, meta: 'notes.txt' })
    expect(JSON.stringify(result.result)).toContain('remember the milk')
    expect(out.payloads.map((p) => p.text)).toEqual(['Let me look.', 'It says: remember the milk.'])
    const t = await h.transcript()
    expect(t.slice(1).map((e) => e.message.role)).toEqual(['user', 'assistant', 'toolResult', 'assistant'])
    const second = server.requests.at(-1)!.body.messages
    expect(second.find((m: any) => m.role === 'tool')).toMatchObject({ tool_call_id: 'call_read' })
    expect(out.meta.timing!.firstToolAt).toBeGreaterThanOrEqual(out.meta.timing!.startedAt!)
  })

  it('a model error (HTTP 500) ends with lifecycle error and a clear message; session failed', async () => {
    server.script([{ status: 500, message: 'the upstream exploded' }])
    const out = await h.run({ runId: 'err-1' })
    expect(out.status).toBe('error')
    const evs = of(h, 'err-1')
    expect(lifecycle(evs)).toEqual(['start', 'error'])
    const err = evs.at(-1)!.data as any
    expect(err.error).toBe('Model request failed (HTTP 500 from mock): the upstream exploded')
    expect(err.errorKind).toBe('unknown')
    expect(out.payloads).toEqual([{ text: 'Model request failed (HTTP 500 from mock): the upstream exploded', isError: true }].map((p) => ({ ...p, text: expect.stringContaining('500') })))
    expect(out.meta.error).toMatchObject({ kind: 'provider_error' })
    expect(h.store.get('agent:main:main')).toMatchObject({ status: 'failed', lastError: expect.stringContaining('the upstream exploded') })
    expect(await h.runs.waitForAgentJob('err-1', 0)).toMatchObject({ status: 'error', error: expect.stringContaining('HTTP 500') })
  })

  it('timeout → abort → lifecycle end aborted → wait says timeout; the session is usable afterwards', async () => {
    server.script([{ hang: true }])
    const out = await h.run({ runId: 'to-1', timeoutMs: 300 })
    expect(out.reason).toBe('timeout')
    expect(out.status).toBe('ok')
    expect(out.meta.aborted).toBe(true)
    const end = of(h, 'to-1').at(-1)!
    expect(end.data).toMatchObject({ phase: 'end', aborted: true, stopReason: 'timeout' })
    expect(await h.runs.waitForAgentJob('to-1', 0)).toMatchObject({ status: 'timeout', startedAt: expect.any(Number) })
    expect(h.store.get('agent:main:main')!.status).toBe('timeout')
    server.script([{ text: 'back again' }])
    expect((await h.run()).payloads[0].text).toBe('back again')
  })

  it('external abort mid-stream persists the partial text as an aborted assistant message', async () => {
    server.script([{ textChunks: ['partial ', 'answer ', 'never ', 'finished'], delayMs: 150 }])
    const ac = new AbortController()
    h.bus.subscribe((e) => {
      if (e.runId === 'ab-1' && e.stream === 'assistant') ac.abort()
    })
    const out = await h.run({ runId: 'ab-1', signal: ac.signal })
    expect(out.reason).toBe('aborted')
    expect(of(h, 'ab-1').at(-1)!.data).toMatchObject({ phase: 'end', aborted: true })
    const t = await h.transcript()
    const last = t.at(-1).message
    expect(last).toMatchObject({ role: 'assistant', stopReason: 'aborted' })
    expect(JSON.stringify(last.content)).toContain('partial')
    expect(h.store.get('agent:main:main')!.status).toBe('killed')
  })

  it('NO_REPLY is dropped from the payloads', async () => {
    server.script([{ text: 'NO_REPLY' }])
    const out = await h.run()
    expect(out.status).toBe('ok')
    expect(out.payloads).toEqual([])
  })

  it('rebuilds the conversation from the transcript for the next run (system prompt kept in front)', async () => {
    server.script([{ text: 'first answer' }, { text: 'second answer' }])
    await h.run({ message: 'first question' })
    await h.run({ message: 'second question' })
    const msgs = server.requests.at(-1)!.body.messages
    expect(msgs.map((m: any) => m.role)).toEqual(['system', 'user', 'assistant', 'user'])
    expect(JSON.stringify(msgs[1].content)).toContain('first question')
    expect(msgs[2].content).toContain('first answer')
  })

  it('two runs on one session never overlap; runs on two sessions do', async () => {
    server.script(() => ({ text: 'slow reply here', chunks: 3, delayMs: 80 }))
    const spans = new Map<string, { start: number; end: number }>()
    h.bus.subscribe((e) => {
      if (e.stream !== 'lifecycle') return
      const d = e.data as any
      const s = spans.get(e.runId) ?? { start: 0, end: 0 }
      if (d.phase === 'start') s.start = e.ts
      else s.end = e.ts
      spans.set(e.runId, s)
    })
    for (const key of ['agent:main:main', 'agent:main:other']) await h.store.update(key, () => ({ sessionId: newSessionId(), updatedAt: Date.now() }))
    await Promise.all([
      h.run({ runId: 'same-a' }),
      h.run({ runId: 'same-b' }),
      h.run({ runId: 'other-a', sessionKey: 'agent:main:other' }),
    ])
    const a = spans.get('same-a')!
    const b = spans.get('same-b')!
    const o = spans.get('other-a')!
    expect(b.start).toBeGreaterThanOrEqual(a.end) // FIFO in the session lane, no overlap
    expect(o.start).toBeLessThan(a.end) // the other session ran concurrently
    const t = await h.transcript()
    expect(t.slice(1).map((e) => `${e.runId}:${e.message.role}`)).toEqual(['same-a:user', 'same-a:assistant', 'same-b:user', 'same-b:assistant'])
  })

  it('abort kills a running exec child process', async () => {
    const h2 = await harness({ allowlist: ['*'] })
    fs.mkdirSync(h2.workspace, { recursive: true })
    const pidFile = path.join(h2.workspace, 'child.pid')
    const script = `require('fs').writeFileSync('child.pid', String(process.pid)); setInterval(() => {}, 1000)`
    server.script([{ toolCalls: [{ name: 'exec', args: { command: `node -e "${script}"` } }] }, { text: 'done' }])
    const ac = new AbortController()
    const p = h2.run({ runId: 'exec-1', signal: ac.signal })
    const deadline = Date.now() + 10_000
    while (!fs.existsSync(pidFile) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25))
    const pid = Number(fs.readFileSync(pidFile, 'utf8'))
    expect(alive(pid)).toBe(true)
    ac.abort()
    const out = await p
    expect(out.reason).toBe('aborted')
    expect(out.meta.stopReason).toBe('aborted')
    expect(out.payloads.some((p) => p.isError && /aborted/.test(p.text ?? ''))).toBe(false)
    await new Promise((r) => setTimeout(r, 200))
    expect(alive(pid)).toBe(false)
    const t = await h2.transcript()
    const toolResult = t.find((e) => e.message?.role === 'toolResult')
    expect(toolResult.message).toMatchObject({ toolName: 'exec', isError: true })
    // no orphan: every tool call has its result
    expect(t.filter((e) => e.message?.role === 'toolResult').length).toBe(1)
  })

  it('hook points: bootstrap, before_agent_start, transformContext, before/after tool call, tool_result_persist, agent_end, run started/ended', async () => {
    const seen: string[] = []
    Object.assign(h.hooks, {
      bootstrap: (ev: any) => {
        seen.push('bootstrap')
        ev.files.push({ name: 'EXTRA.md', path: '', content: 'hooked context', originalChars: 14, truncated: false, missing: false })
      },
      beforeAgentStart: () => {
        seen.push('beforeAgentStart')
        return { prependContext: 'CTX:' }
      },
      transformContext: (msgs: any[]) => {
        seen.push('transformContext')
        return msgs
      },
      beforeToolCall: (ev: any) => {
        seen.push(`before:${ev.toolName}`)
        return ev.toolName === 'write' ? { block: true, blockReason: 'writes are blocked' } : undefined
      },
      afterToolCall: (ev: any) => {
        seen.push(`after:${ev.toolName}:${ev.isError}`)
      },
      toolResultPersist: (m: any) => {
        seen.push('persist')
        return { ...m, content: [{ type: 'text', text: 'REDACTED' }] }
      },
      agentEnd: (info: any) => {
        seen.push(`end:${info.success}`)
      },
      runStarted: () => seen.push('started'),
      runEnded: () => seen.push('ended'),
    } satisfies RuntimeHooks)
    server.script([{ toolCalls: [{ name: 'write', args: { path: 'x.txt', content: 'y' } }] }, { text: 'ok' }])
    await h.run({ message: 'please write' })
    const first = server.requests.at(-2)!.body.messages
    expect(first[0].content).toContain('hooked context')
    expect(first.at(-1).content[0].text).toBe('CTX:\n\nplease write')
    expect(seen).toContain('before:write')
    expect(fs.existsSync(path.join(h.workspace, 'x.txt'))).toBe(false)
    const t = await h.transcript()
    expect(t.find((e) => e.message?.role === 'toolResult').message.content).toEqual([{ type: 'text', text: 'REDACTED' }])
    expect(seen.filter((s) => s === 'transformContext').length).toBe(2)
    expect(seen).toEqual(expect.arrayContaining(['bootstrap', 'beforeAgentStart', 'persist', 'end:true', 'started', 'ended']))
  })

  it('a tool result written as another object (a tool_result_persist hook\'s) keeps its transcript entry id for compaction', async () => {
    const ids: Array<string | undefined> = []
    Object.assign(h.hooks, {
      // what the plugin runner gives back for a handler that changed nothing: its copy of the message
      toolResultPersist: (m: any) => structuredClone(m),
      transformContext: (msgs: any[], ctx: any) => {
        const result = msgs.find((m) => m.role === 'toolResult')
        if (result) ids.push(ctx.entryIdOf(result))
        return msgs
      },
    } satisfies RuntimeHooks)
    server.script([{ toolCalls: [{ name: 'write', args: { path: 'x.txt', content: 'y' } }] }, { text: 'ok' }])
    await h.run({ message: 'please write' })
    const t = await h.transcript()
    expect(ids).toEqual([t.find((e) => e.message?.role === 'toolResult').id])
  })

  it('a throwing hook or event listener never breaks the run', async () => {
    h.hooks.transformContext = () => {
      throw new Error('broken plugin')
    }
    h.bus.subscribe(() => {
      throw new Error('broken listener')
    })
    server.script([{ text: 'still fine' }])
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined)
    const error = vi.spyOn(console, 'error').mockImplementation(() => undefined)
    try {
      expect((await h.run()).payloads[0].text).toBe('still fine')
      expect(warn).toHaveBeenCalled()
    } finally {
      warn.mockRestore()
      error.mockRestore()
    }
  })

  it('closes tool calls left without a result by a dead run before the next run', async () => {
    await h.store.update('agent:main:main', () => ({ sessionId: 'orphan-session', updatedAt: Date.now() }))
    const tr = new Transcript(h.store.transcriptPath('orphan-session'))
    await tr.ensureHeader({ type: 'session', version: 1, id: 'orphan-session', timestamp: new Date().toISOString(), cwd: h.workspace, sessionKey: 'agent:main:main' })
    await tr.append({ type: 'message', id: 'u1', timestamp: 1, runId: 'dead', message: { role: 'user', content: [{ type: 'text', text: 'run it' }], timestamp: 1 } })
    await tr.append({
      type: 'message',
      id: 'a1',
      timestamp: 2,
      runId: 'dead',
      message: { role: 'assistant', content: [{ type: 'toolCall', id: 'call_dead', name: 'exec', arguments: { command: 'sleep 100' } }], stopReason: 'toolUse', api: 'openai-completions', provider: 'mock', model: 'm1', usage: {}, timestamp: 2 },
    })
    server.script([{ text: 'recovered' }])
    expect((await h.run()).payloads[0].text).toBe('recovered')
    const t = await h.transcript()
    const repaired = t.find((e) => e.message?.role === 'toolResult')
    expect(repaired.message).toMatchObject({ toolCallId: 'call_dead', isError: true })
    const req = server.requests.at(-1)!.body.messages
    expect(req.find((m: any) => m.role === 'tool')).toMatchObject({ tool_call_id: 'call_dead' })
  })

  it('reasoning streams as `thinking` events only when the session asks for it (reasoning stream)', async () => {
    server.script([{ reasoning: 'pondering deeply', text: 'answer' }])
    await h.run({ runId: 'think-off' })
    expect(of(h, 'think-off').some((e) => e.stream === 'thinking')).toBe(false)
    await h.store.update('agent:main:main', (cur) => ({ ...cur!, reasoningLevel: 'stream' }))
    server.script([{ reasoning: ['ponder', 'ing deeply'], text: 'answer', delayMs: 15 }])
    const out = await h.run({ runId: 'think-on' })
    const thinking = of(h, 'think-on').filter((e) => e.stream === 'thinking').map((e) => e.data as any)
    expect(thinking.map((t) => t.delta)).toEqual(['ponder', 'ing deeply'])
    expect(thinking.at(-1).text).toBe('pondering deeply')
    expect(out.payloads).toEqual([{ text: 'answer' }])
  })

  it('a reasoning block is announced on the `reasoning` stream at every level; its text only at level on, when the block ends', async () => {
    // the event order, a run of text deltas as one 'assistant'
    const streams = (runId: string) =>
      of(h, runId)
        .filter((e, i, all) => e.stream !== 'lifecycle' && !(e.stream === 'assistant' && all[i - 1]?.stream === 'assistant'))
        .map((e) => (e.stream === 'reasoning' ? { reasoning: e.data } : e.stream))
    // off: the fact, never the text
    server.script([{ reasoning: ['secret ', 'plan'], text: 'answer', delayMs: 15 }])
    await h.run({ runId: 'rs-off' })
    expect(streams('rs-off')).toEqual([{ reasoning: { phase: 'start' } }, { reasoning: { phase: 'end' } }, 'assistant'])
    expect(JSON.stringify(of(h, 'rs-off'))).not.toContain('secret')
    // on: the finished block goes out as it ends, before the reply text
    await h.store.update('agent:main:main', (cur) => ({ ...cur!, reasoningLevel: 'on' }))
    server.script([{ reasoning: ['secret ', 'plan'], text: 'answer', delayMs: 15 }])
    const on = await h.run({ runId: 'rs-on' })
    expect(streams('rs-on')).toEqual([{ reasoning: { phase: 'start' } }, { reasoning: { phase: 'end', text: 'secret plan' } }, 'assistant'])
    expect(on.payloads).toEqual([{ text: 'secret plan', isReasoning: true }, { text: 'answer' }])
    // stream: the text goes live on `thinking`, between start and end
    await h.store.update('agent:main:main', (cur) => ({ ...cur!, reasoningLevel: 'stream' }))
    server.script([{ reasoning: ['secret ', 'plan'], text: 'answer', delayMs: 15 }])
    await h.run({ runId: 'rs-stream' })
    expect(streams('rs-stream')).toEqual([{ reasoning: { phase: 'start' } }, 'thinking', 'thinking', { reasoning: { phase: 'end' } }, 'assistant'])
  })

  it('an Anthropic thinking block is announced the same way (real pi-ai Anthropic client)', async () => {
    h = await harness({ anthropic: true })
    server.script([{ reasoning: ['weighing ', 'options'], text: 'done', delayMs: 15 }])
    await h.run({ runId: 'rs-ant', model: 'mockant/c1' })
    const r = of(h, 'rs-ant').filter((e) => e.stream === 'reasoning' || e.stream === 'assistant')
    expect(r.map((e) => (e.stream === 'reasoning' ? (e.data as any).phase : e.stream)).slice(0, 3)).toEqual(['start', 'end', 'assistant'])
    expect(r.filter((e) => e.stream === 'reasoning')).toHaveLength(2)
  })

  it('a connection dropped mid-stream and malformed SSE both end in lifecycle error', async () => {
    server.script([{ text: 'this will be cut', chunks: 4, dropAfterChunks: 2 }])
    const dropped = await h.run({ runId: 'drop-1' })
    expect(dropped.status).toBe('error')
    expect(of(h, 'drop-1').at(-1)!.data).toMatchObject({ phase: 'error', error: expect.stringMatching(/connection/i) })
    expect(dropped.meta.error).toMatchObject({ kind: 'network' })
    server.script([{ text: 'abc', malformedAfterChunks: 1 }])
    const bad = await h.run({ runId: 'bad-sse' })
    expect(bad.status).toBe('error')
    expect(lifecycle(of(h, 'bad-sse'))).toEqual(['start', 'error'])
    // the session still works
    server.script([{ text: 'fine now' }])
    expect((await h.run()).payloads[0].text).toBe('fine now')
  })

  it('an unknown model or missing key fails the run with a clear lifecycle error', async () => {
    const out = await h.run({ runId: 'bad-model', model: 'mock/nope' })
    expect(out.status).toBe('error')
    expect(of(h, 'bad-model').at(-1)!.data).toMatchObject({ phase: 'error', error: expect.stringContaining('unknown model "nope"') })
    const out2 = await h.run({ runId: 'no-key', model: 'anthropic/claude-sonnet-4-5' })
    expect(out2.error).toMatch(/no API key for model provider "anthropic"/)
  })

  it('a run aborted while still queued ends with lifecycle end aborted and never starts', async () => {
    server.script(() => ({ text: 'slow', chunks: 2, delayMs: 150 }))
    const ac = new AbortController()
    const first = h.run({ runId: 'q-1' })
    const second = h.run({ runId: 'q-2', signal: ac.signal })
    await new Promise((r) => setTimeout(r, 50))
    ac.abort()
    expect((await second).reason).toBe('aborted')
    expect(lifecycle(of(h, 'q-2'))).toEqual(['end'])
    expect((await first).reason).toBe('completed')
  })
})
