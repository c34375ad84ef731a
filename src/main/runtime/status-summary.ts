// OpenClaw's `health` and `status` summaries (src/commands/health.types.ts, status.types.ts) over Loopdesk's
// stores. Loopdesk has no message channels, heartbeat runs or background tasks: those parts are present,
// empty or disabled, so an OpenClaw client reads the same shape it reads from OpenClaw.
import type { HealthSessions, HealthSummary, Results, StatusSession } from '../../shared/methods'
import { HEARTBEAT_DISABLED, noTaskAudit, noTasks } from '../../shared/status-summary'
import type { SessionEntry } from './contracts'
import type { RuntimeCore } from './handlers-context'
import { modelDefaults } from './handlers-sessions'
import { sessionKind } from './sessions/session-row'

const RECENT = 10

function newestFirst(entries: Array<[string, SessionEntry]>): Array<[string, SessionEntry]> {
  return [...entries].sort((a, b) => b[1].updatedAt - a[1].updatedAt)
}

function healthSessions(core: RuntimeCore, agentId: string, now: number): HealthSessions {
  const store = core.store(agentId)
  const entries = store.list()
  return {
    path: store.path,
    count: entries.length,
    recent: newestFirst(entries)
      .slice(0, RECENT)
      .map(([key, e]) => ({ key, updatedAt: e.updatedAt, age: Math.max(0, now - e.updatedAt) })),
  }
}

export function healthSummary(core: RuntimeCore): HealthSummary {
  const started = performance.now()
  const now = Date.now()
  const cfg = core.config.current
  const agents = cfg.agents.map((a) => ({ agentId: a.id, isDefault: a.id === cfg.defaultAgentId, heartbeat: { ...HEARTBEAT_DISABLED }, sessions: healthSessions(core, a.id, now) }))
  const sessions = agents.find((a) => a.isDefault)?.sessions ?? healthSessions(core, cfg.defaultAgentId, now)
  return {
    ok: true,
    ts: now,
    durationMs: Math.round(performance.now() - started),
    channels: {},
    channelOrder: [],
    channelLabels: {},
    heartbeatSeconds: 0,
    defaultAgentId: cfg.defaultAgentId,
    agents,
    sessions,
  }
}

type StatusPart = Pick<Results['status'], 'runtimeVersion' | 'heartbeat' | 'channelSummary' | 'queuedSystemEvents' | 'tasks' | 'taskAudit' | 'sessions'>

export function statusSummary(core: RuntimeCore): StatusPart {
  const now = Date.now()
  const cfg = core.config.current
  const windows = new Map<string, number | null>()
  const contextWindow = (ref: string | null): number | null => {
    if (!ref || !ref.includes('/')) return null
    if (!windows.has(ref)) {
      let w: number | null = null
      try {
        w = core.models().resolve(ref).model.contextWindow ?? null
      } catch {
        // a model runs cannot resolve: no window to report
      }
      windows.set(ref, w)
    }
    return windows.get(ref)!
  }
  const row = (agentId: string, configured: string | null, key: string, e: SessionEntry): StatusSession => {
    const selected = e.modelOverride ?? configured
    const used = e.modelProvider && e.model ? `${e.modelProvider}/${e.model}` : null
    const contextTokens = contextWindow(used ?? selected)
    const total = e.totalTokens ?? null
    return {
      agentId,
      key,
      kind: sessionKind(key),
      sessionId: e.sessionId,
      updatedAt: e.updatedAt,
      age: Math.max(0, now - e.updatedAt),
      ...(e.thinkingLevel !== undefined ? { thinkingLevel: e.thinkingLevel } : {}),
      ...(e.fastMode !== undefined ? { fastMode: e.fastMode } : {}),
      ...(e.verboseLevel !== undefined ? { verboseLevel: e.verboseLevel } : {}),
      ...(e.reasoningLevel !== undefined ? { reasoningLevel: e.reasoningLevel } : {}),
      ...(e.inputTokens !== undefined ? { inputTokens: e.inputTokens } : {}),
      ...(e.outputTokens !== undefined ? { outputTokens: e.outputTokens } : {}),
      ...(e.cacheRead !== undefined ? { cacheRead: e.cacheRead } : {}),
      ...(e.cacheWrite !== undefined ? { cacheWrite: e.cacheWrite } : {}),
      totalTokens: total,
      // Loopdesk's totals are the sum of its runs' usage, not a fresh count of the context
      totalTokensFresh: false,
      remainingTokens: contextTokens !== null && total !== null ? Math.max(0, contextTokens - total) : null,
      percentUsed: contextTokens && total !== null ? Math.min(100, Math.round((total / contextTokens) * 100)) : null,
      model: used ?? selected,
      configuredModel: configured,
      selectedModel: selected,
      modelSelectionReason: e.modelOverride ? 'session override' : configured ? 'configured' : null,
      contextTokens,
      flags: [],
    }
  }
  const byAgent = cfg.agents.map((a) => {
    const store = core.store(a.id)
    const configured = a.model ?? cfg.defaults.model ?? null
    const entries = newestFirst(store.list())
    return { agentId: a.id, path: store.path, count: entries.length, recent: entries.slice(0, RECENT).map(([key, e]) => row(a.id, configured, key, e)) }
  })
  const recent = byAgent
    .flatMap((a) => a.recent)
    .sort((x, y) => (y.updatedAt ?? 0) - (x.updatedAt ?? 0))
    .slice(0, RECENT)
  const { model, contextTokens } = modelDefaults(core)
  return {
    runtimeVersion: core.version,
    heartbeat: { defaultAgentId: cfg.defaultAgentId, agents: cfg.agents.map((a) => ({ agentId: a.id, enabled: false, every: 'disabled', everyMs: null })) },
    channelSummary: [],
    queuedSystemEvents: [],
    tasks: noTasks(),
    taskAudit: noTaskAudit(),
    sessions: {
      paths: byAgent.map((a) => a.path),
      count: byAgent.reduce((n, a) => n + a.count, 0),
      defaults: { model, contextTokens },
      recent,
      byAgent,
    },
  }
}
