// `loopdesk agent`: one run, through the gateway (default) or embedded (--local). The reply streams to
// stdout from the run's `chat` events; the exit code says how the run ended.
import { randomUUID } from 'node:crypto'
import { dispatch } from '../../main/api/dispatch'
import type { RuntimeHost } from '../../main/api/host'
import { gatewayProcessAlive, readGatewayInfo } from '../../main/gateway/state-files'
import { claimEmbeddedRuntime, embeddedRuntimeName, liveEmbeddedRuntime, RuntimeInUseError, type EmbeddedRuntimeInfo } from '../../main/gateway/embedded-runtimes'
import { MODEL_SILENCE_CAP, RUN_WAIT_CAP, TOOL_EVENTS_CAP, TOOL_RESULTS_CAP, type AnyEvent, type ChatEvent } from '../../shared/events'
import { THINKING_LEVELS, type AgentFinal } from '../../shared/methods'
import { intFlag, parseArgs, str, TARGET_FLAGS, UsageError } from '../args'
import { connectCli } from '../connect'
import { GatewayClientError } from '../gateway-client'
import { CliError, EXIT, OUTPUT_CLOSED, readStdinText, type CliIO } from '../io'
import { MAX_MESSAGE_CHARS, messageOverLimit } from '../../shared/message-limit'
import { resolveGatewayTarget, stateDirFolder, resolveStateDir } from '../resolve'
import { RunActivity } from './run-activity'
import { RunWaitNotice } from './run-wait-notice'
import { NO_MODEL_HELP, NO_MODEL_HELP_LOCAL } from './no-model-help'
import { runLostError, shutdownStopLine, stoppedByShutdown } from '../run-lost'
import { readAttachments } from '../attach-files'
import { terminalText } from '../table'

export const AGENT_HELP = `loopdesk agent --message TEXT [--file PATH]… [--session-key K | --session-id ID | --agent ID] [--model PROVIDER/MODEL]
               [--thinking LEVEL] [--timeout SECONDS] [--json] [--local] [--url ws://…] [--token T] [--state-dir D]
  Runs the agent once and streams the reply. Default session: agent:main:main. --model picks the model for
  this run (see \`loopdesk models\`; default: the session's, else the configured one). --session-id picks an
  existing session by its id (\`loopdesk sessions --json\`); an unknown id fails, no session is made.
  --message - reads the message from standard input (\`loopdesk agent -m - < prompt.md\`).
  --file attaches a file (repeat it for more; images go to the model as images; a message may then be
  empty). --timeout is the run timeout in seconds (default: agents.defaults.timeoutSeconds, 600 unless
  set; 0: none). --local runs embedded in this process instead of through the gateway; it refuses (exit 1)
  while a gateway, the app or another --local run uses the state dir.
  The reply goes to stdout; the tools the run calls go to stderr. An exec approval is asked at the
  terminal ([y] once, [a] always, [N] no); without one, stderr says how to answer it (--local: denied).
  Exit code: 0 done, 1 failed or stopped (also by the gateway shutting down: stderr says so, with its reason),
  3 no gateway, 4 auth failed, 5 timed out, 130 interrupted, 141 its output was closed (\`| head -1\`: the run is
  stopped too). With --json a failure before the result is a JSON
  error object on stdout.`

const FLAGS = {
  message: { type: 'string', alias: 'm' },
  file: { type: 'string', alias: 'f', multiple: true },
  'session-key': { type: 'string' },
  'session-id': { type: 'string' },
  agent: { type: 'string' },
  thinking: { type: 'string' },
  model: { type: 'string' },
  timeout: { type: 'string' },
  json: { type: 'boolean' },
  local: { type: 'boolean' },
  ...TARGET_FLAGS,
} as const


/**
 * Prints the cumulative reply text incrementally (chat deltas carry the whole text so far), with no terminal
 * controls in it.
 */
class ReplyPrinter {
  printed = ''
  constructor(private readonly out: (t: string) => void) {}
  update(text: string) {
    if (!text.startsWith(this.printed)) {
      // a rewrite (rare: a hook's, or text that turned out to be the model's <think> reasoning): what is printed
      // stays, so the new text goes below it whole
      if (!text.trim()) return
      this.out((this.midLine ? '\n\n' : '\n') + terminalText(text))
      this.printed = text
      return
    }
    const add = text.slice(this.printed.length)
    if (add) this.out(terminalText(add))
    this.printed = text
  }
  get midLine(): boolean {
    return this.printed !== '' && !this.printed.endsWith('\n')
  }
  end() {
    if (this.midLine) this.out('\n')
  }
}

/**
 * The events of this CLI's run: those that arrive before the ack named the run are held until it does
 * (then the other runs' are dropped); later ones go straight through if they belong to the run.
 */
class RunEvents {
  runId: string | undefined
  private early: AnyEvent[] = []
  constructor(private readonly deliver: (ev: AnyEvent) => void) {}
  push(ev: AnyEvent) {
    if (this.runId === undefined) this.early.push(ev)
    else if (runIdOf(ev) === this.runId) this.deliver(ev)
  }
  start(runId: string) {
    this.runId = runId
    for (const ev of this.early.splice(0)) if (runIdOf(ev) === runId) this.deliver(ev)
  }
}

function runIdOf(ev: AnyEvent): string | undefined {
  switch (ev.event) {
    case 'chat':
    case 'agent':
    case 'exec.approval.requested':
    case 'exec.approval.resolved':
      return ev.payload.runId
    default:
      return undefined
  }
}

const chatText = (ev: ChatEvent) => ev.message?.content.map((c) => c.text).join('') ?? ''

interface AgentRequest {
  params: Record<string, unknown>
  /** --timeout; unset: the gateway's configured run timeout applies (agents.defaults.timeoutSeconds) */
  timeoutS: number | undefined
  json: boolean
}

function buildRequest({ flags, lists }: ReturnType<typeof parseArgs>): AgentRequest {
  const message = str(flags.message) ?? ''
  const files = lists.file ?? []
  if (!message.trim() && !files.length) throw new UsageError('agent needs --message TEXT (or --file PATH)')
  const picks = (['session-key', 'session-id', 'agent'] as const).filter((f) => flags[f] !== undefined)
  if (picks.length > 1) throw new UsageError(`use only one of --session-key, --session-id, --agent (got ${picks.map((p) => '--' + p).join(', ')})`)
  const thinking = str(flags.thinking)
  if (thinking !== undefined && !(THINKING_LEVELS as readonly string[]).includes(thinking)) {
    throw new UsageError(`--thinking must be one of ${THINKING_LEVELS.join(', ')}`)
  }
  const timeoutS = intFlag(flags.timeout, 'timeout', 0, 31_536_000)
  // sent only when given: a fixed 600 overrode agents.defaults.timeoutSeconds, which every other client gets
  const params: Record<string, unknown> = { message, idempotencyKey: randomUUID(), ...(timeoutS !== undefined ? { timeout: timeoutS } : {}) }
  if (flags['session-key'] !== undefined) params.sessionKey = str(flags['session-key'])
  else if (flags['session-id'] !== undefined) {
    // --session-id names an existing session: without the precondition the runtime would start a new
    // session under that id (OpenClaw's protocol allows it), so a typo would silently open an empty chat
    params.sessionId = str(flags['session-id'])
    params.expectedExistingSessionId = params.sessionId
  }
  else if (flags.agent !== undefined) params.agentId = str(flags.agent)
  else params.sessionKey = 'agent:main:main'
  if (thinking) params.thinking = thinking
  const model = str(flags.model)?.trim()
  if (flags.model !== undefined && !/^[^/\s]+\/\S+$/.test(model ?? '')) throw new UsageError('--model is PROVIDER/MODEL, e.g. local/llama3.1:8b (see: loopdesk models)')
  if (model) params.model = model
  if (files.length) params.attachments = readAttachments(files)
  return { params, timeoutS, json: !!flags.json }
}

/**
 * The runtime refused --session-id's precondition (no session has that id, or it was reset meanwhile):
 * one line naming the id, not the runtime's key-based wording. Anything else: undefined.
 */
function sessionNotFound(req: AgentRequest, details: unknown): CliError | undefined {
  const id = req.params.expectedExistingSessionId
  if (id === undefined || !details || typeof details !== 'object') return undefined
  if ((details as { expectedSessionId?: unknown }).expectedSessionId !== id) return undefined
  return new CliError(`session not found: ${String(id)} (see: loopdesk sessions --json)`, EXIT.failed)
}

/** The run's lifecycle end said the model wrote nothing (no text, no NO_REPLY, nothing sent by the message tool). */
const isEmptyReply = (ev: AnyEvent) =>
  ev.event === 'agent' && ev.payload.stream === 'lifecycle' && (ev.payload.data as { phase?: unknown; emptyReply?: unknown }).phase === 'end' && (ev.payload.data as { emptyReply?: unknown }).emptyReply === true

/**
 * The run's events as both paths (gateway, --local) read them: what a run that cannot start yet waits for (on
 * stderr; --json prints only the result, so no waiting line either), whether the model wrote nothing, the chat
 * events to `onChat` and the rest to the activity lines.
 */
function readRunEvents(req: AgentRequest, io: CliIO, onChat: (ev: ChatEvent) => void, activity: RunActivity) {
  const wait = new RunWaitNotice(req.json ? () => {} : io.stderr)
  let empty = false
  const events = new RunEvents((ev) => {
    wait.onEvent(ev)
    if (isEmptyReply(ev)) empty = true
    if (ev.event === 'chat') onChat(ev.payload)
    else activity.onEvent(ev)
  })
  return { wait, events, emptyReply: () => empty }
}

/**
 * Exit code + output for a finished run. `emptyReply`: its lifecycle end said the model wrote nothing. `shutdownLine`:
 * the gateway's shutdown stopped the run — said instead of a bare "run stopped".
 */
function report(final: AgentFinal, printer: ReplyPrinter, io: CliIO, json: boolean, emptyReply = false, noModelHelp = NO_MODEL_HELP, shutdownLine?: string): number {
  // a failed model call completes the call (its error is a reply payload, meta.error says why): still a failed run
  const failure = final.status !== 'ok' ? final.summary || 'the run failed' : final.result?.meta.error?.message
  if (json) {
    io.stdout(JSON.stringify(final) + '\n')
  } else {
    // stdout is the reply; error and warning payloads (a failed model call, a timeout note) go to stderr
    const payloads = (final.result?.payloads ?? []).filter((p) => !p.isReasoning && p.text)
    const text = payloads
      .filter((p) => !p.isError)
      .map((p) => p.text)
      .join('\n\n')
    // normally the chat final already printed everything; this covers a final that arrived first
    if (text) printer.update(text)
    printer.end()
    const notes = payloads.filter((p) => p.isError && p.text !== final.summary && p.text !== failure).map((p) => p.text)
    if (notes.length && final.status === 'ok') io.stderr(notes.join('\n') + '\n')
    // an empty stdout and exit 0 would look like a reply that got lost: say the model wrote nothing
    if (emptyReply && failure === undefined && !final.result?.meta.aborted && !printer.printed.trim()) io.stderr('note: the model returned no text\n')
  }
  if (failure !== undefined) {
    // a fresh state dir: how to set a model up, not only the config key the runtime names
    io.stderr(`error: ${/\bno model configured\b/.test(failure) ? noModelHelp : failure}\n`)
    return EXIT.failed
  }
  if (final.result?.meta.aborted && shutdownLine) {
    io.stderr(`error: ${shutdownLine}\n`)
    return EXIT.failed
  }
  if (final.result?.meta.aborted) {
    const why = final.result.meta.stopReason
    io.stderr(`run stopped${why ? ` (${why})` : ''}\n`)
    return why === 'timeout' ? EXIT.timeout : EXIT.failed
  }
  return EXIT.ok
}

export async function agentCommand(argv: string[], io: CliIO): Promise<number> {
  const parsed = parseArgs(argv, FLAGS)
  const { flags, positionals } = parsed
  if (flags.help) {
    io.stdout(AGENT_HELP + '\n')
    return EXIT.ok
  }
  if (positionals.length) throw new UsageError(`unexpected argument: ${positionals[0]} (did you mean --message?)`)
  // `-m -`: the message is standard input (a prompt in a file, the output of another command)
  if (flags.message === '-') {
    const text = await readStdinText(io, '--message -')
    const over = messageOverLimit(text)
    if (over > 0) throw new UsageError(`the message on standard input is ${over.toLocaleString('en-US')} characters over the limit of ${MAX_MESSAGE_CHARS.toLocaleString('en-US')}; attach it as a file instead (--file PATH)`)
    if (!text.trim() && !parsed.lists.file?.length) throw new UsageError('--message -: standard input was empty')
    parsed.flags.message = text
  }
  const req = buildRequest(parsed)
  const stateDir = resolveStateDir(str(flags['state-dir']), io.env)
  if (flags.local) {
    if (flags.url || flags.token) throw new UsageError('--local runs without a gateway: drop --url/--token')
    return runLocal(req, stateDirFolder(stateDir), io)
  }
  return runViaGateway(req, stateDir, { url: str(flags.url), token: str(flags.token) }, io)
}

/** Ctrl-C, or nobody reads the reply any more (`loopdesk agent … | head -1`): the run is stopped either way */
const stoppingLine = (signal: string) => (signal === OUTPUT_CLOSED ? 'loopdesk: the output was closed; stopping the run…\n' : '\nstopping the run…\n')

async function runViaGateway(req: AgentRequest, stateDir: string, f: { url?: string; token?: string }, io: CliIO): Promise<number> {
  const target = resolveGatewayTarget(f, io.env, stateDir)
  // tool results too: a failed tool's line says why (they reach clients only at verbose full otherwise)
  // and what a run that cannot start yet waits for (RunWaitNotice), and a model server gone quiet (RunActivity)
  const conn = await connectCli({ target, stateDir, io, caps: [TOOL_EVENTS_CAP, TOOL_RESULTS_CAP, RUN_WAIT_CAP, MODEL_SILENCE_CAP] })
  const printer = new ReplyPrinter(io.stdout)
  let sessionKey: string | undefined
  const activity = new RunActivity({
    io,
    resolve: async (id, decision) => void (await conn.request('exec.approval.resolve', { id, decision })),
    othersCanAnswer: true,
    replyMidLine: () => printer.midLine,
  })
  const onChat = (ev: ChatEvent) => {
    sessionKey ??= ev.sessionKey
    if (req.json) return
    if (ev.state === 'delta' || ev.state === 'final' || ev.state === 'aborted') printer.update(chatText(ev))
  }
  const { wait, events, emptyReply } = readRunEvents(req, io, onChat, activity)
  const offEvents = conn.onRuntimeEvent((ev: AnyEvent) => events.push(ev))
  let interrupted = false
  let gaveUp = false
  const abort = (runId: string) => {
    const key = sessionKey ?? (req.params.sessionKey as string | undefined)
    const stop = key ? conn.request('chat.abort', { sessionKey: key, runId }) : conn.request('sessions.abort', { runId })
    stop.catch(() => {})
  }
  const offSignal = io.onSignal((signal) => {
    if (interrupted) {
      // a second Ctrl-C while the message is still on its way (a large file): stop waiting
      if (!events.runId && !gaveUp && signal !== OUTPUT_CLOSED) {
        gaveUp = true
        void conn.close()
      }
      return
    }
    interrupted = true
    if (events.runId) {
      io.stderr(stoppingLine(signal))
      abort(events.runId)
    } else io.stderr('\nstopping the run as soon as the gateway has the message (Ctrl-C again to stop waiting)…\n')
  })
  try {
    const final = (await conn.request('agent', req.params, {
      expectFinal: true,
      // past the run's own timeout; with none given, the gateway's (which ends the run with a final) is the limit
      timeoutMs: req.timeoutS ? Math.max(10, req.timeoutS + 30) * 1000 : undefined,
      onAccepted: (ack) => {
        const runId = (ack as { runId: string }).runId
        wait.accepted()
        events.start(runId)
        // Ctrl-C came before the gateway had acknowledged the message
        if (interrupted) abort(runId)
      },
    })) as AgentFinal
    wait.close()
    activity.close()
    // stopped because the gateway is going down: say so, with its reason (its notice follows the run's end)
    const shutdownLine =
      !interrupted && final.result?.meta.aborted && stoppedByShutdown(final.result.meta)
        ? await shutdownStopLine(conn, final.runId, sessionKey ?? (req.params.sessionKey as string | undefined))
        : undefined
    const code = report(final, printer, io, req.json, emptyReply(), NO_MODEL_HELP, shutdownLine)
    return interrupted ? EXIT.interrupted : code
  } catch (err) {
    wait.close()
    activity.close()
    // the reply printed so far ends its line: the error below must not read as the reply's last words
    printer.end()
    if (gaveUp) {
      io.stderr('stopped waiting; if the gateway received the message, its run goes on (see: loopdesk sessions)\n')
      return EXIT.interrupted
    }
    if (err instanceof GatewayClientError && err.kind === 'request' && err.payload && typeof err.payload === 'object') {
      const p = err.payload as Partial<AgentFinal>
      if (p.status === 'error' && typeof p.runId === 'string') {
        return report({ runId: p.runId, status: 'error', summary: p.summary ?? err.message }, printer, io, req.json)
      }
    }
    if (err instanceof GatewayClientError && err.kind === 'request') throw sessionNotFound(req, err.details) ?? err
    // the wait ran out or the gateway went away after it had the message: say what became of the run
    throw runLostError(err, events.runId, sessionKey ?? (req.params.sessionKey as string | undefined), req.params.idempotencyKey as string | undefined)
  } finally {
    offEvents()
    offSignal()
    await conn.close()
  }
}

async function runLocal(req: AgentRequest, stateDir: string, io: CliIO): Promise<number> {
  const info = readGatewayInfo(stateDir)
  // (its recorded start time too: a pid the OS gave to another process since is no gateway)
  if (info && info.pid !== process.pid && gatewayProcessAlive(info)) {
    throw new CliError(
      `a gateway (pid ${info.pid}, ${info.url}) owns ${stateDir}; run without --local to use it, or stop it first`,
      EXIT.failed,
    )
  }
  // a runtime without a gateway (the app before its gateway is up, another --local run): nothing to go through.
  // Checked and recorded in one locked step, before the runtime starts, so of two starting at once one runs and
  // a gateway or app started meanwhile sees this run
  const inUse = (holder: EmbeddedRuntimeInfo) =>
    holder.launchedBy === 'gateway'
      ? // a `gateway run` still starting: no gateway.json yet, but it claimed the folder first
        new CliError(`a gateway (\`loopdesk gateway run\`, pid ${holder.pid}) owns ${stateDir}; run without --local to use it, or stop it first`, EXIT.failed)
      : new CliError(`${embeddedRuntimeName(holder)} already uses ${stateDir}; wait for it or stop it first`, EXIT.failed)
  let unregister = () => {}
  try {
    unregister = claimEmbeddedRuntime(stateDir, 'local')
  } catch (err) {
    if (err instanceof RuntimeInUseError) throw inUse(err.holder)
    // a state dir that cannot take the record (read-only): the runtime's own start says what is wrong, or runs —
    // but never beside a runtime that is recorded
    const embedded = liveEmbeddedRuntime(stateDir)
    if (embedded) throw inUse(embedded)
  }
  const { createRuntime } = await import('../../main/runtime/runtime')
  let host: RuntimeHost
  try {
    host = await createRuntime({ stateDir, env: io.env })
  } catch (err) {
    unregister()
    throw err
  }
  const printer = new ReplyPrinter(io.stdout)
  const activity = new RunActivity({
    io,
    resolve: async (id, decision) => {
      const r = await dispatch(host.handlers, 'exec.approval.resolve', { id, decision }, { transport: 'local' })
      if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`)
    },
    othersCanAnswer: false,
    replyMidLine: () => printer.midLine,
  })
  const onChat = (ev: ChatEvent) => {
    if (!req.json && ev.state !== 'error') printer.update(chatText(ev))
  }
  const { wait, events, emptyReply } = readRunEvents(req, io, onChat, activity)
  const off = host.subscribe((ev) => events.push(ev))
  let interrupted = false
  // by the run's id: its session key is known only from its first chat event, and a run still waiting for the
  // model has sent none (Ctrl-C was then ignored, and so was SIGTERM, until the run timed out)
  const stop = (runId: string) => void dispatch(host.handlers, 'sessions.abort', { runId }, { transport: 'local' })
  const offSignal = io.onSignal((signal) => {
    if (interrupted) return
    interrupted = true
    io.stderr(stoppingLine(signal))
    if (events.runId) stop(events.runId)
  })
  try {
    const ack = await dispatch(host.handlers, 'agent', req.params, { transport: 'local' })
    if (!ack.ok) throw sessionNotFound(req, ack.error.details) ?? new CliError(`${ack.error.code}: ${ack.error.message}`, EXIT.failed)
    wait.accepted()
    events.start(ack.data.runId)
    // Ctrl-C came while the message was being accepted
    if (interrupted) stop(ack.data.runId)
    const final = await host.agentFinal(ack.data.runId)
    activity.close()
    const code = report(final, printer, io, req.json, emptyReply(), NO_MODEL_HELP_LOCAL)
    return interrupted ? EXIT.interrupted : code
  } finally {
    wait.close()
    activity.close()
    off()
    offSignal()
    await host.shutdown({ drainMs: 1000, reason: 'cli exit' })
    unregister()
  }
}
