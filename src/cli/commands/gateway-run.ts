// `loopdesk gateway run`: the headless gateway over the same runtime as the desktop app.
// Ctrl-C / SIGTERM: stop accepting runs, let active runs finish (their finals still reach clients),
// then close the gateway. A second signal exits at once.
import { intFlag, parseArgs, str, UsageError } from '../args'
import { CliError, EXIT, type CliIO } from '../io'
import { readGatewayConfig, resolveStateDir, DEFAULT_PORT } from '../resolve'
import { ensureGatewayToken, storeGatewayToken } from '../../main/gateway/state-files'
import { PortInUseError } from '../../main/gateway/listen'
import { startGateway, type GatewayBind, type GatewayLogger } from '../../main/gateway/server'
import { servedMessage, servingGateway } from '../../main/gateway/gateway-in-use'
import { launcherClaim } from '../launcher-claim'
import { claimEmbeddedRuntime, embeddedRuntimeName, liveEmbeddedRuntime, registerEmbeddedRuntime, RuntimeInUseError } from '../../main/gateway/embedded-runtimes'

export const GATEWAY_RUN_HELP = `loopdesk gateway run [--port N] [--token T] [--bind loopback|lan|all] [--state-dir D] [--drain-ms MS] [--allow-second] [--verbose]
  Runs the headless gateway (ws://127.0.0.1:<port>, default ${DEFAULT_PORT} or gateway.port in loopdesk.json).
  --port 0 picks a free port. Token: --token, else LOOPDESK_GATEWAY_TOKEN, else gateway.auth.token in
  loopdesk.json, else <stateDir>/gateway/token (generated on first start, loopback only: --bind lan|all needs
  one of the configured ones). Every client needs it, on any bind. A token from loopdesk.json or the token
  file is followed while running: when it changes, clients that used the old one are disconnected (4001).
  Refuses to start (exit 1) while another gateway (the desktop app's or another \`gateway run\`) serves the
  same state dir, or a runtime without one uses it (\`loopdesk agent --local\`, the app); --allow-second
  starts anyway (the newest one is then the one the CLI and dashboard use).`

const FLAGS = {
  port: { type: 'string' },
  token: { type: 'string' },
  bind: { type: 'string' },
  'state-dir': { type: 'string' },
  'drain-ms': { type: 'string' },
  verbose: { type: 'boolean' },
  'allow-second': { type: 'boolean' },
  help: { type: 'boolean', alias: 'h' },
} as const

export async function gatewayRun(argv: string[], io: CliIO): Promise<number> {
  const { flags, positionals } = parseArgs(argv, FLAGS)
  if (flags.help) {
    io.stdout(GATEWAY_RUN_HELP + '\n')
    return EXIT.ok
  }
  if (positionals.length) throw new UsageError(`unexpected argument: ${positionals[0]}`)
  const stateDir = resolveStateDir(str(flags['state-dir']), io.env)
  const cfg = readGatewayConfig(stateDir, io.env)
  const envPort = io.env.LOOPDESK_GATEWAY_PORT?.trim() ? intFlag(io.env.LOOPDESK_GATEWAY_PORT.trim(), 'LOOPDESK_GATEWAY_PORT', 0, 65535) : undefined
  const port = intFlag(flags.port, 'port', 0, 65535) ?? envPort ?? cfg.port ?? DEFAULT_PORT
  const bindFlag = str(flags.bind)
  if (bindFlag !== undefined && bindFlag !== 'loopback' && bindFlag !== 'lan' && bindFlag !== 'all') {
    throw new UsageError('--bind must be loopback, lan or all')
  }
  const bind: GatewayBind = (bindFlag as GatewayBind | undefined) ?? cfg.bind ?? 'loopback'
  const drainMs = intFlag(flags['drain-ms'], 'drain-ms', 0, 3_600_000) ?? 10_000

  const pinnedToken = str(flags.token) ?? (io.env.LOOPDESK_GATEWAY_TOKEN?.trim() || undefined)
  const explicitToken = pinnedToken ?? cfg.token
  if (bind !== 'loopback' && !explicitToken) {
    // a generated token the user never saw must not guard a socket the whole network can reach
    throw new UsageError(
      `--bind ${bind} needs a configured token (--token, LOOPDESK_GATEWAY_TOKEN or gateway.auth.token in loopdesk.json); without one the gateway only binds to loopback`,
    )
  }
  let token: string
  try {
    if (explicitToken) {
      // recorded so `loopdesk gateway call` / `dashboard` on this machine find it
      storeGatewayToken(stateDir, explicitToken)
      token = explicitToken
    } else {
      token = ensureGatewayToken(stateDir)
    }
  } catch (err) {
    throw new CliError(`cannot use the gateway token: ${(err as Error).message}`, explicitToken ? EXIT.usage : EXIT.failed)
  }

  // before anything starts: a second runtime on this state dir is refused unless asked for
  const allowSecond = !!flags['allow-second']
  if (!allowSecond) {
    const other = await servingGateway(stateDir)
    if (other) throw new CliError(servedMessage(other), EXIT.failed)
  }
  // Recorded now, before the runtime is built, and checked in the same locked step: gateway.json is written only
  // once the gateway listens, so an `agent --local` (or another `gateway run`) starting meanwhile read "none" there
  // and both ran a runtime on the folder. A runtime without a gateway (`agent --local`, the app before its
  // gateway is up) that claimed first wins.
  let unregister = () => {}
  try {
    // (the launcher that started this process may have claimed the folder for it already: launcher-claim.ts)
    unregister = allowSecond ? registerEmbeddedRuntime(stateDir, 'gateway') : claimEmbeddedRuntime(stateDir, 'gateway', launcherClaim())
  } catch (err) {
    if (err instanceof RuntimeInUseError) {
      throw new CliError(`${embeddedRuntimeName(err.holder)} already uses this state dir — wait for it or stop it, or use --state-dir (--allow-second starts one anyway)`, EXIT.failed)
    }
    // a state dir that cannot take the record (read-only): the runtime's own start says what is wrong, or runs —
    // but never beside a runtime that is recorded
    const embedded = allowSecond ? undefined : liveEmbeddedRuntime(stateDir)
    if (embedded) {
      throw new CliError(`${embeddedRuntimeName(embedded)} already uses this state dir — wait for it or stop it, or use --state-dir (--allow-second starts one anyway)`, EXIT.failed)
    }
  }
  try {
    return await serve()
  } finally {
    unregister()
  }

  async function serve(): Promise<number> {
    const verbose = !!flags.verbose
    const logger: GatewayLogger = {
      debug: verbose ? (m) => io.stderr(`[gateway] ${m}\n`) : undefined,
      info: (m) => (verbose ? io.stderr(`[gateway] ${m}\n`) : undefined),
      warn: (m) => io.stderr(`[gateway] warning: ${m}\n`),
      error: (m) => io.stderr(`[gateway] error: ${m}\n`),
    }

    const { createRuntime } = await import('../../main/runtime/runtime')
    const host = await createRuntime({ stateDir, env: io.env })
    let gw: Awaited<ReturnType<typeof startGateway>>
    try {
      gw = await startGateway({
        host,
        port,
        bind,
        token,
        tokenGenerated: !explicitToken,
        // a token from --token / the environment is pinned; one from loopdesk.json or the token file follows rotations
        watchSharedToken: !pinnedToken,
        stateDir,
        allowedOrigins: cfg.allowedOrigins,
        launchedBy: 'cli',
        logger,
      })
    } catch (err) {
      await host.shutdown({ drainMs: 0, reason: 'gateway failed to start' })
      if (err instanceof PortInUseError) {
        throw new CliError(`port ${port} is already in use (another gateway or the desktop app?) — pass --port 0 for any free port`, EXIT.failed)
      }
      throw err
    }
    // one started meanwhile (two launches at once): the later record-writer gives way
    const other = gw.replaced && (await servingGateway(stateDir, gw.replaced))
    if (other && !allowSecond) {
      await gw.close('another gateway serves this state dir')
      await host.shutdown({ drainMs: 0, reason: 'another gateway serves this state dir' })
      throw new CliError(servedMessage(other), EXIT.failed)
    }
    if (other) io.stderr(`loopdesk: warning: another gateway (pid ${other.pid}, port ${other.port}) also serves this state dir; the CLI and dashboard use this one until it stops\n`)
    const stopped = new Promise<number>((resolve) => {
      let stopping = false
      const off = io.onSignal((signal) => {
        if (stopping) {
          io.stderr(`second ${signal}: exiting without waiting for runs\n`)
          off()
          resolve(EXIT.interrupted)
          return
        }
        stopping = true
        io.stderr(`${signal}: draining active runs (up to ${Math.round(drainMs / 1000)} s)…\n`)
        void (async () => {
          try {
            await host.shutdown({ drainMs, reason: signal })
          } catch (err) {
            io.stderr(`runtime shutdown failed: ${(err as Error).message}\n`)
          }
          await gw.close(`gateway stopped (${signal})`)
          io.stderr('gateway stopped\n')
          off()
          resolve(EXIT.ok)
        })()
      })
    })
    // only now: whoever waits for this line may signal at once, and must get a drain, not the default kill
    io.stdout(`loopdesk gateway listening on ${gw.url} (state dir ${stateDir})\n`)
    io.stdout(`browser UI: run \`loopdesk dashboard\` for the login link\n`)
    return stopped
  }
}
