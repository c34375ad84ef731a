// A deterministic RuntimeHost for gateway tests: runs are scripted (no model), events are emitted in a
// fixed order, and tests can hold a run in flight and finish or abort it on demand.
import { ApiError } from '../api/errors'
import type { Handlers } from '../api/dispatch'
import type { RuntimeHost, SessionMessageEvent } from '../api/host'
import { ConfigManager } from '../runtime/config/config-manager'
import type { ResolvedConfig } from '../runtime/contracts'
import type { AgentEvent, AnyEvent, ChatEvent } from '../../shared/events'
import { METHOD_NAMES, type AgentFinal, type MethodName, type WaitResult } from '../../shared/methods'
import { canonicalSessionKey } from '../../shared/session-key'
import { oneAgentHealth, oneAgentStatusParts } from '../../shared/status-summary'

interface FakeRun {
  runId: string
  sessionKey: string
  message: string
  seq: number
  text: string
  startedAt: number
  endedAt?: number
  status?: 'ok' | 'error' | 'timeout'
  final?: AgentFinal
  done: Promise<AgentFinal>
  resolveDone: (f: AgentFinal) => void
}

export interface FakeHostOptions {
  /** keep runs open after their first delta until finishRun()/failRun()/abort */
  hold?: boolean
  /** text chunks streamed per run (default: "Hello", ", ", "world") */
  chunks?: string[]
  /** emit a tool start/result pair between the first chunk and the rest */
  withTool?: boolean
}

export class FakeHost implements RuntimeHost {
  readonly info = { version: '0.1.0-test', stateDir: '/tmp/fake-state', configPath: '/tmp/fake-state/loopdesk.json', startedAt: Date.now() }
  readonly calls: Array<{ method: MethodName; params: unknown; connId?: string }> = []
  readonly runs = new Map<string, FakeRun>()
  private listeners = new Set<(ev: AnyEvent) => void>()
  shutdownCalled = false
  readonly patches: Array<Record<string, unknown>> = []
  readonly handlers: Handlers
  private config = new ConfigManager({ stateDir: '/tmp/fake-state', env: {} })
  private unwatchConfig?: () => void
  private readonly configListeners = new Set<(config: ResolvedConfig) => void>()

  constructor(public opts: FakeHostOptions = {}) {
    const impl: Partial<Handlers> = {
      health: async () => oneAgentHealth('main', `${this.info.stateDir}/agents/main/sessions/sessions.json`, [{ key: 'agent:main:main', updatedAt: this.info.startedAt }]),
      status: async () => ({
        ...oneAgentStatusParts(this.info.version, 'main', `${this.info.stateDir}/agents/main/sessions/sessions.json`, 1),
        ok: true,
        version: this.info.version,
        uptimeMs: 0,
        stateDir: this.info.stateDir,
        activeRuns: [...this.runs.values()].filter((r) => !r.final).length,
        lanes: {},
        configIssues: [],
      }),
      agent: async (p) => {
        // what the socket thread cannot foresee (a refusal that needs the runtime's state): after its ack
        if (p.message === 'fail-accept') throw new ApiError('INVALID_REQUEST', 'malformed session key')
        // one it can (agent-request-checks.ts): in the first res, either way
        if (p.sessionKey !== undefined && !canonicalSessionKey(p.sessionKey.trim())) throw new ApiError('INVALID_REQUEST', `malformed session key "${p.sessionKey}"`)
        const existing = this.runs.get(p.idempotencyKey)
        const acceptedAt = Date.now()
        if (existing) return { runId: existing.runId, status: 'accepted', acceptedAt }
        this.startRun(p.idempotencyKey, p.sessionKey ?? 'agent:main:main', p.message)
        return { runId: p.idempotencyKey, status: 'accepted', acceptedAt }
      },
      'agent.wait': async (p) => this.wait(p.runId, p.timeoutMs ?? 30_000),
      'chat.abort': async (p) => {
        const ids = [...this.runs.values()]
          .filter((r) => !r.final && r.sessionKey === p.sessionKey && (!p.runId || r.runId === p.runId))
          .map((r) => r.runId)
        for (const id of ids) this.abortRun(id)
        return { ok: true, aborted: ids.length > 0, runIds: ids }
      },
      'sessions.subscribe': async () => ({ subscribed: true }),
      'sessions.unsubscribe': async () => ({ subscribed: false }),
      'sessions.messages.subscribe': async (p) => ({ subscribed: true, key: canonicalSessionKey(p.key) ?? p.key }),
      'sessions.messages.unsubscribe': async (p) => ({ subscribed: false, key: canonicalSessionKey(p.key) ?? p.key }),
      'chat.send': async (p) => {
        if (!this.runs.has(p.idempotencyKey)) this.startRun(p.idempotencyKey, canonicalSessionKey(p.sessionKey) ?? p.sessionKey, p.message)
        return { runId: p.idempotencyKey, status: 'started' }
      },
      'chat.history': async (p) => ({ sessionKey: canonicalSessionKey(p.sessionKey) ?? p.sessionKey, sessionId: 'fake-session', messages: [], hasMore: false, thinkingLevel: null, fastMode: null, verboseLevel: null }),
      // applies nothing; a patch with a `bad` key is refused like an invalid config
      'config.patch': async (p) => {
        const patch = p.patch ?? {}
        if ('bad' in patch) throw new ApiError('INVALID_REQUEST', 'bad: not a config key')
        this.patches.push(patch)
        return { ok: true, hash: `h${this.patches.length}`, config: {}, secrets: {} }
      },
    }
    this.handlers = Object.fromEntries(
      METHOD_NAMES.map((m) => [
        m,
        async (params: unknown, ctx: { connId?: string }) => {
          this.calls.push({ method: m, params, connId: ctx.connId })
          const h = impl[m] as ((p: unknown, c: unknown) => Promise<unknown>) | undefined
          if (!h) throw new ApiError('NOT_FOUND', `${m} is not available in the fake host`)
          return h(params, ctx)
        },
      ]),
    ) as unknown as Handlers
  }

  subscribe(listener: (event: AnyEvent) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  private messageListeners = new Set<(ev: SessionMessageEvent) => void>()

  onSessionMessage(listener: (ev: SessionMessageEvent) => void): () => void {
    this.messageListeners.add(listener)
    return () => this.messageListeners.delete(listener)
  }

  /** a transcript append, as the runtime reports it (tests script them; runs here write no transcript) */
  emitSessionMessage(ev: SessionMessageEvent) {
    for (const l of this.messageListeners) l(ev)
  }

  emit(ev: AnyEvent) {
    for (const l of this.listeners) {
      try {
        l(ev)
      } catch {
        // isolated like the real bus
      }
    }
  }

  /**
   * The config the gateway sees: the runtime's own ConfigManager over <stateDir>/loopdesk.json (validated,
   * last good config kept while the file is invalid), polled every watchMs. Until called: the defaults.
   */
  useConfigFile(stateDir: string, watchMs: number) {
    this.stopConfig()
    const cfg = new ConfigManager({ stateDir, env: {} })
    cfg.load()
    this.info.configPath = cfg.path
    this.config = cfg
    const off = cfg.onChange((c) => this.configListeners.forEach((l) => l(c)))
    const unwatch = cfg.watch(watchMs)
    this.unwatchConfig = () => {
      unwatch()
      off()
    }
  }

  stopConfig() {
    this.unwatchConfig?.()
    this.unwatchConfig = undefined
  }

  currentConfig(): ResolvedConfig {
    return this.config.current
  }

  onConfigChange(listener: (config: ResolvedConfig) => void): () => void {
    // through the field: useConfigFile may replace the manager after the gateway subscribed
    const l = (c: ResolvedConfig) => listener(c)
    this.configListeners.add(l)
    return () => this.configListeners.delete(l)
  }

  async agentFinal(runId: string): Promise<AgentFinal> {
    const r = this.runs.get(runId)
    if (!r) throw new Error(`unknown runId: ${runId}`)
    return r.done
  }

  async shutdown(): Promise<void> {
    this.shutdownCalled = true
    for (const r of this.runs.values()) if (!r.final) this.abortRun(r.runId)
  }

  callCount(method: MethodName) {
    return this.calls.filter((c) => c.method === method).length
  }

  // ------------------------------------------------------------------ scripted runs

  agentEvent(r: FakeRun, stream: AgentEvent['stream'], data: Record<string, unknown>) {
    r.seq++
    this.emit({ event: 'agent', payload: { runId: r.runId, seq: r.seq, stream, ts: Date.now(), data, sessionKey: r.sessionKey } })
  }

  chatEvent(r: FakeRun, state: ChatEvent['state'], extra: Partial<ChatEvent> = {}) {
    const payload: ChatEvent = { runId: r.runId, sessionKey: r.sessionKey, seq: r.seq, state, ...extra }
    if (r.text && state !== 'error') payload.message = { role: 'assistant', content: [{ type: 'text', text: r.text }], timestamp: Date.now() }
    this.emit({ event: 'chat', payload })
  }

  private startRun(runId: string, sessionKey: string, message: string) {
    let resolveDone!: (f: AgentFinal) => void
    const done = new Promise<AgentFinal>((res) => (resolveDone = res))
    const r: FakeRun = { runId, sessionKey, message, seq: 0, text: '', startedAt: Date.now(), done, resolveDone }
    this.runs.set(runId, r)
    const chunks = this.opts.chunks ?? ['Hello', ', ', 'world']
    // Events start after the ack has been sent (next macrotask), as in the real runtime.
    setTimeout(() => {
      this.emit({ event: 'sessions.changed', payload: { sessionKey, reason: 'start', runId, ts: Date.now() } })
      this.agentEvent(r, 'lifecycle', { phase: 'start', startedAt: r.startedAt })
      chunks.forEach((c, i) => {
        if (r.final) return
        r.text += c
        this.agentEvent(r, 'assistant', { text: r.text, delta: c })
        this.chatEvent(r, 'delta')
        if (i === 0 && this.opts.withTool) {
          this.agentEvent(r, 'tool', { phase: 'start', name: 'read', toolCallId: 't1', args: { path: 'a.txt' } })
          this.agentEvent(r, 'tool', { phase: 'result', name: 'read', toolCallId: 't1', result: 'contents', isError: false })
        }
      })
      if (message === 'fail-run') return this.failRun(runId, 'LLM request failed.')
      if (!this.opts.hold) this.finishRun(runId)
    }, 1)
  }

  finishRun(runId: string) {
    const r = this.runs.get(runId)
    if (!r || r.final) return
    r.endedAt = Date.now()
    r.status = 'ok'
    this.agentEvent(r, 'lifecycle', { phase: 'end', endedAt: r.endedAt })
    this.chatEvent(r, 'final')
    this.settle(r, {
      runId,
      status: 'ok',
      summary: 'completed',
      result: { payloads: [{ text: r.text }], meta: this.meta(r) },
    })
  }

  failRun(runId: string, error: string) {
    const r = this.runs.get(runId)
    if (!r || r.final) return
    r.endedAt = Date.now()
    r.status = 'error'
    this.agentEvent(r, 'lifecycle', { phase: 'error', error, endedAt: r.endedAt })
    this.chatEvent(r, 'error', { errorMessage: error })
    this.settle(r, { runId, status: 'error', summary: error })
  }

  abortRun(runId: string) {
    const r = this.runs.get(runId)
    if (!r || r.final) return
    r.endedAt = Date.now()
    r.status = 'timeout'
    this.chatEvent(r, 'aborted', { stopReason: 'aborted' })
    this.agentEvent(r, 'lifecycle', { phase: 'end', endedAt: r.endedAt, aborted: true, stopReason: 'aborted' })
    this.settle(r, {
      runId,
      status: 'ok',
      summary: 'completed',
      result: { payloads: r.text ? [{ text: r.text }] : [], meta: { ...this.meta(r), aborted: true, stopReason: 'aborted' } },
    })
  }

  private meta(r: FakeRun) {
    return {
      durationMs: (r.endedAt ?? Date.now()) - r.startedAt,
      agentMeta: {
        sessionId: 'fake-session',
        provider: 'fake',
        model: 'fake-model',
        usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, costUsd: 0, total: 2 },
        compactionCount: 0,
      },
    }
  }

  private settle(r: FakeRun, final: AgentFinal) {
    r.final = final
    this.emit({ event: 'sessions.changed', payload: { sessionKey: r.sessionKey, reason: r.status === 'error' ? 'error' : 'end', runId: r.runId, ts: Date.now() } })
    r.resolveDone(final)
  }

  private async wait(runId: string, timeoutMs: number): Promise<WaitResult> {
    const r = this.runs.get(runId)
    const snapshot = (): WaitResult => ({ runId, status: r!.status!, startedAt: r!.startedAt, endedAt: r!.endedAt })
    if (!r) {
      await new Promise((res) => setTimeout(res, Math.min(timeoutMs, 50)))
      return { runId, status: 'timeout' }
    }
    if (r.final) return snapshot()
    let timer: NodeJS.Timeout | undefined
    const timedOut = new Promise<'timeout'>((res) => (timer = setTimeout(() => res('timeout'), timeoutMs)))
    const outcome = await Promise.race([r.done, timedOut])
    clearTimeout(timer)
    return outcome === 'timeout' ? { runId, status: 'timeout' } : snapshot()
  }
}
