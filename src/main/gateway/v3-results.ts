// Result shapes a v3 client knows (reference §3, §5.4): `agent.wait` ends ok | error | timeout — v4's
// `pending` (still queued) is a timeout there — and `chat.send` always answers `{runId, status:"started"}`,
// so Loopdesk's queued / steered answers (with their queueItemId) read as started. v4's `stopReason` and
// `terminalReply` on an ended run's agent.wait are not April's either.
import type { MethodName } from '../../shared/methods'

const SEND_METHODS: ReadonlySet<string> = new Set(['chat.send', 'sessions.send', 'sessions.steer'])

export function resultForProtocol(method: MethodName, data: unknown, protocol: number): unknown {
  if (protocol >= 4 || !data || typeof data !== 'object') return data
  const d = data as { runId?: string; status?: string; queueItemId?: string }
  if (method === 'agent.wait' && d.status === 'pending') return { runId: d.runId, status: 'timeout' }
  if (method === 'agent.wait' && ('terminalReply' in d || 'stopReason' in d)) {
    const { terminalReply: _reply, stopReason: _stop, ...april } = d as typeof d & { terminalReply?: unknown; stopReason?: unknown }
    return april
  }
  if (SEND_METHODS.has(method) && (d.status === 'queued' || d.status === 'steered')) {
    const { queueItemId: _queued, ...rest } = d
    return { ...rest, status: 'started' }
  }
  return data
}
