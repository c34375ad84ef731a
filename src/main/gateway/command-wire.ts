// A chat command that starts no run (a bare `/new` or `/reset` through `chat.send`) as OpenClaw answers it
// (reference §5.2, §5.3): the request gets `{runId, status: "started"}` (runId = idempotencyKey) and the
// caller then a chat `final` carrying the command's reply — OpenClaw's UIs stay busy until that final.
// Loopdesk's own window declares `loopdesk.chat-commands` and keeps the runtime's `{status: "command", ok,
// messages}` (IPC always does). `/stop` is not reshaped: its answer already has OpenClaw's `{ok, aborted, runIds}`.
import type { ChatEvent } from '../../shared/events'
import type { MethodName, ResultOf } from '../../shared/methods'

type CommandResult = Extract<ResultOf<'chat.send'>, { status: 'command' }>

/** the result of a chat.send that ran a command with no run and no stop (the one OpenClaw answers "started") */
export function runlessCommand(method: MethodName, data: unknown): CommandResult | undefined {
  if (method !== 'chat.send' || !data || typeof data !== 'object') return undefined
  const d = data as Partial<CommandResult>
  if (d.status !== 'command' || d.runIds !== undefined || typeof d.sessionKey !== 'string') return undefined
  return d as CommandResult
}

export function commandStartedResult(params: unknown): { runId: string; status: 'started' } {
  return { runId: (params as { idempotencyKey: string }).idempotencyKey, status: 'started' }
}

/** the chat final that follows (sent to the caller only: no other client saw a run start) */
export function commandFinal(params: unknown, res: CommandResult, now = Date.now()): ChatEvent {
  const text = (res.messages ?? []).join('\n\n')
  return {
    runId: (params as { idempotencyKey: string }).idempotencyKey,
    sessionKey: res.sessionKey!,
    seq: 0,
    state: 'final',
    ...(text ? { message: { role: 'assistant', content: [{ type: 'text', text }], timestamp: now } } : {}),
  }
}
