// The parts of OpenClaw's health/status summaries Loopdesk has nothing for (no heartbeat runs, no
// background tasks): shared by the runtime (runtime/status-summary.ts) and the fakes that stand in for it.
import type { HealthSummary, HeartbeatSummary, Results } from './methods'

/** Loopdesk runs no heartbeat turns */
export const HEARTBEAT_DISABLED: HeartbeatSummary = { enabled: false, every: 'disabled', everyMs: null, prompt: '', target: 'none', ackMaxChars: 0 }

export function noTasks(): Results['status']['tasks'] {
  return {
    total: 0,
    active: 0,
    terminal: 0,
    failures: 0,
    byStatus: { queued: 0, running: 0, succeeded: 0, failed: 0, timed_out: 0, cancelled: 0, lost: 0 },
    byRuntime: { subagent: 0, acp: 0, cli: 0, cron: 0 },
  }
}

export function noTaskAudit(): Results['status']['taskAudit'] {
  return {
    total: 0,
    warnings: 0,
    errors: 0,
    byCode: { stale_queued: 0, stale_running: 0, lost: 0, delivery_failed: 0, missing_cleanup: 0, inconsistent_timestamps: 0 },
  }
}

/** A health summary of one agent whose store holds `sessions` (the fakes' stand-in for the runtime's). */
export function oneAgentHealth(agentId: string, path: string, sessions: Array<{ key: string; updatedAt: number }>, now = Date.now()): HealthSummary {
  const store = {
    path,
    count: sessions.length,
    recent: [...sessions]
      .sort((a, b) => b.updatedAt - a.updatedAt)
      .slice(0, 10)
      .map((s) => ({ key: s.key, updatedAt: s.updatedAt, age: Math.max(0, now - s.updatedAt) })),
  }
  return {
    ok: true,
    ts: now,
    durationMs: 0,
    channels: {},
    channelOrder: [],
    channelLabels: {},
    heartbeatSeconds: 0,
    defaultAgentId: agentId,
    agents: [{ agentId, isDefault: true, heartbeat: { ...HEARTBEAT_DISABLED }, sessions: store }],
    sessions: store,
  }
}

/** The OpenClaw part of a status for one agent with `count` sessions and no recent detail (the fakes'). */
export function oneAgentStatusParts(version: string, agentId: string, path: string, count: number): Pick<Results['status'], 'runtimeVersion' | 'heartbeat' | 'channelSummary' | 'queuedSystemEvents' | 'tasks' | 'taskAudit' | 'sessions'> {
  return {
    runtimeVersion: version,
    heartbeat: { defaultAgentId: agentId, agents: [{ agentId, enabled: false, every: 'disabled', everyMs: null }] },
    channelSummary: [],
    queuedSystemEvents: [],
    tasks: noTasks(),
    taskAudit: noTaskAudit(),
    sessions: { paths: [path], count, defaults: { model: null, contextTokens: null }, recent: [], byAgent: [{ agentId, path, count, recent: [] }] },
  }
}
