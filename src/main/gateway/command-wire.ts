// A chat command that starts no run (a bare `/new` or `/reset` through `chat.send`, or through `sessions.send`
// / `sessions.steer`, which wrap it, or as `sessions.create`'s first message) as OpenClaw answers it (reference
// §5.2, §5.3, §5.6): the request gets `{runId, status: "started"}` (runId = idempotencyKey; sessions.send/steer
// keep their own `key` and `interruptedActiveRun`, and generate the runId when the caller gave no idempotencyKey;
// sessions.create keeps its row and says `runStarted: true`, as OpenClaw's spreads chat.send's answer into it)
// and the caller then a chat `final` carrying the command's reply — OpenClaw's UIs stay busy until that final.
// Loopdesk's own window declares `loopdesk.chat-commands` and keeps the runtime's `{status: "command", ok,
// messages}` (IPC always does). `/stop` is not reshaped: its answer already has OpenClaw's `{ok, aborted, runIds}`.
import crypto from 'node:crypto'
import type { ChatEvent } from '../../shared/events'
import type { MethodName, ResultOf } from '../../shared/methods'

type CommandResult = Extract<ResultOf<'chat.send'>, { status: 'command' }>

/** what the gateway needs to answer a runless command as a run: where it ran and what it replied */
export interface RunlessCommand {
  sessionKey: string
  messages: string[]
}

/** the methods that answer with chat.send's result (sessions.send/steer add their fields to it) */
const COMMAND_SEND_METHODS: ReadonlySet<MethodName> = new Set(['chat.send', 'sessions.send', 'sessions.steer'])

/** the command of a chat.send (or sessions.send/steer, sessions.create) that ran one with no run and no stop (the one OpenClaw answers "started") */
export function runlessCommand(method: MethodName, data: unknown): RunlessCommand | undefined {
  if (!data || typeof data !== 'object') return undefined
  if (method === 'sessions.create') {
    // the runtime names the command's reply only when the first message was a bare /new or /reset
    const d = data as Partial<ResultOf<'sessions.create'>>
    if (d.runStarted !== false || !Array.isArray(d.messages) || typeof d.runId !== 'string' || typeof d.key !== 'string') return undefined
    return { sessionKey: d.key, messages: d.messages }
  }
  if (!COMMAND_SEND_METHODS.has(method)) return undefined
  const d = data as Partial<CommandResult>
  if (d.status !== 'command' || d.runIds !== undefined || typeof d.sessionKey !== 'string') return undefined
  return { sessionKey: d.sessionKey, messages: d.messages ?? [] }
}

/** what the request answers: the command's own fields give way to `{runId, status: "started"}`; the method's others (key, …) stay */
export function commandStartedResult(method: MethodName, params: unknown, data: unknown): { runId: string; status: 'started' } {
  if (method === 'sessions.create') {
    const { messages: _messages, runStarted: _runStarted, ...rest } = data as ResultOf<'sessions.create'> & { runId: string }
    return { ...rest, runStarted: true, status: 'started' } as { runId: string; status: 'started' }
  }
  const { runId: _runId, status: _status, ok: _ok, aborted: _aborted, runIds: _runIds, messages: _messages, sessionKey: _sessionKey, ...rest } = data as CommandResult
  const given = (params as { idempotencyKey?: unknown } | null)?.idempotencyKey
  // sessions.send's idempotencyKey is optional (OpenClaw then generates one); chat.send's is required
  return { runId: typeof given === 'string' ? given : crypto.randomUUID(), status: 'started', ...rest }
}

/** the chat final that follows, with the runId the request answered (sent to the caller only: no other client saw a run start) */
export function commandFinal(runId: string, cmd: RunlessCommand, now = Date.now()): ChatEvent {
  const text = cmd.messages.join('\n\n')
  return {
    runId,
    sessionKey: cmd.sessionKey,
    seq: 0,
    state: 'final',
    ...(text ? { message: { role: 'assistant', content: [{ type: 'text', text }], timestamp: now } } : {}),
  }
}
