// `loopdesk gateway call <method>`: one RPC against a running gateway, printed as JSON.
import { randomUUID } from 'node:crypto'
import { intFlag, parseArgs, str, TARGET_FLAGS, UsageError } from '../args'
import { withGateway } from '../connect'
import { GatewayClientError } from '../gateway-client'
import { CliError, EXIT, readStdinText, type CliIO } from '../io'
import { runLostError, shutdownStopLine, stoppedByShutdown } from '../run-lost'
import { commandTarget } from '../resolve'
import { nestingProblem, textNestingProblem } from '../../shared/nesting-limit'

export const GATEWAY_CALL_HELP = `loopdesk gateway call <method> [--params JSON|-] [--expect-final] [--url ws://…] [--token T] [--timeout MS] [--json] [--state-dir D]
  Calls one gateway method and prints its result. --expect-final waits past the "accepted" ack of \`agent\`
  for the final result. --params - reads the JSON from standard input (for params past the 128 KiB an
  argument can hold). --timeout defaults to 10000 ms; when it runs out after the ack (exit 5), or on Ctrl-C
  (exit 130), the run goes on in the gateway and the message says how to wait for it or stop it. An \`agent\`
  final or \`agent.wait\` result of a run the gateway's shutdown stopped is printed, then said on stderr (exit 1).`

const FLAGS = {
  params: { type: 'string' },
  'expect-final': { type: 'boolean' },
  timeout: { type: 'string' },
  json: { type: 'boolean' },
  ...TARGET_FLAGS,
} as const

export async function gatewayCall(argv: string[], io: CliIO): Promise<number> {
  const { flags, positionals } = parseArgs(argv, FLAGS)
  if (flags.help) {
    io.stdout(GATEWAY_CALL_HELP + '\n')
    return EXIT.ok
  }
  const method = positionals[0]
  if (!method) throw new UsageError('gateway call needs a method name, e.g. `loopdesk gateway call health`')
  if (positionals.length > 1) throw new UsageError(`unexpected argument: ${positionals[1]}`)
  let params: unknown
  // `--params -`: from standard input — an argument stops at 128 KiB (Linux's MAX_ARG_STRLEN: "Argument list too
  // long" from the shell), a frame the gateway takes at 25 MiB
  const rawParams = flags.params === '-' ? await readStdinText(io, '--params -') : str(flags.params)
  if (flags.params === '-' && !rawParams?.trim()) throw new UsageError('--params -: standard input was empty')
  if (rawParams !== undefined) {
    // the gateway refuses params past these bounds; deeper ones ran this process's stack out while sending
    // ("Maximum call stack size exceeded", exit 1): said here, before anything is sent
    const deepText = textNestingProblem(rawParams)
    if (deepText) throw new UsageError(`--params is ${deepText}`)
    try {
      params = JSON.parse(rawParams)
    } catch (err) {
      throw new UsageError(`--params is not valid JSON: ${(err as Error).message}`)
    }
    if (!params || typeof params !== 'object' || Array.isArray(params)) throw new UsageError('--params must be a JSON object')
    const deep = nestingProblem(params)
    if (deep) throw new UsageError(`--params is ${deep}`)
  }
  const timeoutMs = intFlag(flags.timeout, 'timeout', 1, 86_400_000) ?? 10_000
  const { stateDir, target } = commandTarget(flags, io.env)

  return withGateway({ target, stateDir, io, connectTimeoutMs: Math.min(timeoutMs, 10_000) }, async (conn) => {
    // an `agent` call's run, once acknowledged: a timeout or a lost gateway then says what became of it
    let runId: string | undefined
    let sessionKey = typeof (params as { sessionKey?: unknown })?.sessionKey === 'string' ? (params as { sessionKey: string }).sessionKey : undefined
    const offEvents = conn.onRuntimeEvent((ev) => {
      const p = ev.payload as { runId?: unknown; sessionKey?: unknown }
      if (runId !== undefined && p.runId === runId && typeof p.sessionKey === 'string') sessionKey ??= p.sessionKey
    })
    // Ctrl-C while waiting: the call's work goes on in the gateway; an acknowledged run is named, with how to
    // wait for it or stop it (as a --timeout that runs out says), instead of a silent exit
    let offSignal = () => {}
    const signalled = new Promise<'signal'>((resolve) => (offSignal = io.onSignal(() => resolve('signal'))))
    try {
      const call = conn.request(method, params ?? {}, {
        expectFinal: !!flags['expect-final'],
        timeoutMs,
        onAccepted: (ack) => {
          if (typeof (ack as { runId?: unknown })?.runId === 'string') runId = (ack as { runId: string }).runId
        },
      })
      const result = await Promise.race([call, signalled])
      if (result === 'signal') {
        call.catch(() => {})
        const lost = runLostError(new GatewayClientError('timeout', 'interrupted'), runId, sessionKey, agentKey(method, params))
        io.stderr(lost instanceof CliError ? `\nloopdesk: ${lost.message}\n` : '\n')
        return EXIT.interrupted
      }
      io.stdout((flags.json ? JSON.stringify(result) : JSON.stringify(result, null, 2)) + '\n')
      // an `agent` final or `agent.wait` result of a run the gateway's shutdown stopped: not a run that went well
      const r = result as { runId?: unknown; result?: { meta?: unknown } } | undefined
      const end = method === 'agent' ? r?.result?.meta : method === 'agent.wait' ? r : undefined
      if (stoppedByShutdown(end)) {
        const id = typeof r?.runId === 'string' ? r.runId : (runId ?? '?')
        io.stderr(`loopdesk: ${await shutdownStopLine(conn, id, sessionKey)}\n`)
        return EXIT.failed
      }
      return EXIT.ok
    } catch (err) {
      // the agent's failed final carries a payload ({runId, status:"error", summary}): print it for --json users
      if (flags.json && err instanceof GatewayClientError && err.kind === 'request') {
        io.stdout(JSON.stringify({ ok: false, error: { code: err.code, message: err.message, details: err.details }, payload: err.payload }) + '\n')
      }
      throw keyHint(runLostError(err, runId, sessionKey, agentKey(method, params)), method)
    } finally {
      offSignal()
      offEvents()
    }
  })
}

/** `agent` / `chat.send` without an idempotencyKey: the schema error names the field, not what to put there */
function keyHint(err: unknown, method: string): unknown {
  if (!(err instanceof GatewayClientError) || err.kind !== 'request' || !/required propert.*\bidempotencyKey\b/.test(err.message)) return err
  return new CliError(
    `${err.code ?? 'ERROR'}: ${err.message} — ${method} needs an idempotencyKey, any string unique to this request (a repeat with the same key is answered once), e.g. --params '{"message":"hi","idempotencyKey":"${randomUUID()}"}'${method === 'agent' ? '; `loopdesk agent -m TEXT` makes one for you' : ''}`,
    EXIT.failed,
  )
}

/** the idempotency key an `agent` call carried: the run's id once the gateway took it */
function agentKey(method: string, params: unknown): string | undefined {
  const key = (params as { idempotencyKey?: unknown } | undefined)?.idempotencyKey
  return method === 'agent' && typeof key === 'string' ? key : undefined
}
