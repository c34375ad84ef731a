// A chat command that starts no run (a bare `/new` or `/reset` through `chat.send`, or through `sessions.send`
// / `sessions.steer`, which wrap it) as OpenClaw answers it (reference §5.2, §5.3, §5.6): the request gets
// `{runId, status: "started"}` (runId = idempotencyKey; sessions.send/steer keep their own `key` and
// `interruptedActiveRun`, and generate the runId when the caller gave no idempotencyKey) and the caller then a
// chat `final` carrying the command's reply — OpenClaw's UIs stay busy until that final.
// Loopdesk's own window declares `loopdesk.chat-commands` and keeps the runtime's `{status: "command", ok,
// messages}` (IPC always does). `/stop` is not reshaped: its answer already has OpenClaw's `{ok, aborted, runIds}`.
import crypto from 'node:crypto'
import type { ChatEvent } from '../../shared/events'
import type { MethodName, ResultOf } from '../../shared/methods'

type CommandResult = Extract<ResultOf<'chat.send'>, { status: 'command' }>

/** the methods that answer with chat.send's result (sessions.send/steer add their fields to it) */
const COMMAND_SEND_METHODS: ReadonlySet<MethodName> = new Set(['chat.send', 'sessions.send', 'sessions.steer'])

/** the result of a chat.send (or sessions.send/steer) that ran a command with no run and no stop (the one OpenClaw answers "started") */
export function runlessCommand(method: MethodName, data: unknown): CommandResult | undefined {
  if (!COMMAND_SEND_METHODS.has(method) || !data || typeof data !== 'object') return undefined
  const d = data as Partial<CommandResult>
  if (d.status !== 'command' || d.runIds !== undefined || typeof d.sessionKey !== 'string') return undefined
  return d as CommandResult
}

/** what the request answers: the command's own fields give way to `{runId, status: "started"}`; the method's others (key, …) stay */
export function commandStartedResult(params: unknown, res: CommandResult): { runId: string; status: 'started' } {
  const { runId: _runId, status: _status, ok: _ok, aborted: _aborted, runIds: _runIds, messages: _messages, sessionKey: _sessionKey, ...rest } = res
  const given = (params as { idempotencyKey?: unknown } | null)?.idempotencyKey
  // sessions.send's idempotencyKey is optional (OpenClaw then generates one); chat.send's is required
  return { runId: typeof given === 'string' ? given : crypto.randomUUID(), status: 'started', ...rest }
}

/** the chat final that follows, with the runId the request answered (sent to the caller only: no other client saw a run start) */
export function commandFinal(runId: string, res: CommandResult, now = Date.now()): ChatEvent {
  const text = (res.messages ?? []).join('\n\n')
  return {
    runId,
    sessionKey: res.sessionKey!,
    seq: 0,
    state: 'final',
    ...(text ? { message: { role: 'assistant', content: [{ type: 'text', text }], timestamp: now } } : {}),
  }
}
