// The `loopdesk` CLI entry (bin/loopdesk.mjs loads it from a cached bundle or through tsx).
import { pathToFileURL } from 'node:url'
import { UsageError } from './args'
import { GatewayClientError } from './gateway-client'
import { describeFailure, EXIT, jsonErrorLine, processIO, type CliIO } from './io'

// bin/loopdesk.mjs asks first whether `gateway run` should start again with a sized V8 pool
export { relaunchIfWanted } from './v8-pool'

// Commands are imported on use: `gateway call` should not pay for loading the runtime.
async function help(): Promise<string> {
  const [run, call, rotate, agent, sessions, models, status, devices, config, backup, restore, dash] = await Promise.all([
    import('./commands/gateway-run'),
    import('./commands/gateway-call'),
    import('./commands/gateway-rotate-token'),
    import('./commands/agent'),
    import('./commands/sessions'),
    import('./commands/models'),
    import('./commands/status'),
    import('./commands/devices'),
    import('./commands/config'),
    import('./commands/backup'),
    import('./commands/restore'),
    import('./commands/dashboard'),
  ])
  return `loopdesk — desktop agent runtime and local gateway

Commands:
${run.GATEWAY_RUN_HELP}

${call.GATEWAY_CALL_HELP}

${rotate.GATEWAY_ROTATE_TOKEN_HELP}

${agent.AGENT_HELP}

${sessions.SESSIONS_HELP}

${models.MODELS_HELP}

${status.STATUS_HELP}

${devices.DEVICES_HELP}

${config.CONFIG_HELP}

${backup.BACKUP_HELP}

${restore.RESTORE_HELP}

${dash.DASHBOARD_HELP}

loopdesk --version (-V, -v)
  Prints the version.

Environment: LOOPDESK_STATE_DIR (default ~/.loopdesk), LOOPDESK_GATEWAY_URL, LOOPDESK_GATEWAY_TOKEN,
LOOPDESK_GATEWAY_PORT.`
}

/** Runs one CLI invocation and returns its exit code (never calls process.exit itself). */
export async function runCli(argv: string[], io: CliIO): Promise<number> {
  const [cmd, sub, ...rest] = argv
  // --json promises JSON on stdout: a command that fails before printing any gets its error as JSON there too
  const end = argv.indexOf('--')
  const json = (end < 0 ? argv : argv.slice(0, end)).includes('--json')
  let printed = false
  const out = io.stdout
  io = { ...io, stdout: (t) => ((printed ||= t.length > 0), out(t)) }
  try {
    if (cmd === undefined || cmd === 'help' || cmd === '--help' || cmd === '-h') {
      io.stdout((await help()) + '\n')
      return cmd === undefined ? EXIT.usage : EXIT.ok
    }
    // -V and -v as OpenClaw's CLI takes them
    if (cmd === '--version' || cmd === 'version' || cmd === '-V' || cmd === '-v') {
      const { LOOPDESK_VERSION } = await import('../main/runtime/runtime')
      io.stdout(`${LOOPDESK_VERSION}\n`)
      return EXIT.ok
    }
    if (cmd === 'gateway') {
      if (sub === 'run') return await (await import('./commands/gateway-run')).gatewayRun(rest, io)
      if (sub === 'call') return await (await import('./commands/gateway-call')).gatewayCall(rest, io)
      if (sub === 'rotate-token') return await (await import('./commands/gateway-rotate-token')).gatewayRotateToken(rest, io)
      if (sub === '--help' || sub === '-h' || sub === 'help') {
        const [run, call, rotate] = await Promise.all([
          import('./commands/gateway-run'),
          import('./commands/gateway-call'),
          import('./commands/gateway-rotate-token'),
        ])
        io.stdout([run.GATEWAY_RUN_HELP, call.GATEWAY_CALL_HELP, rotate.GATEWAY_ROTATE_TOKEN_HELP].join('\n\n') + '\n')
        return EXIT.ok
      }
      throw new UsageError(sub ? `unknown gateway command: ${sub}` : 'gateway needs a command: run | call | rotate-token')
    }
    const args = sub === undefined ? [] : [sub, ...rest]
    if (cmd === 'agent') return await (await import('./commands/agent')).agentCommand(args, io)
    if (cmd === 'sessions') return await (await import('./commands/sessions')).sessionsCommand(args, io)
    if (cmd === 'status') return await (await import('./commands/status')).statusCommand(args, io)
    if (cmd === 'models') return await (await import('./commands/models')).modelsCommand(args, io)
    if (cmd === 'devices') return await (await import('./commands/devices')).devicesCommand(args, io)
    if (cmd === 'config') return await (await import('./commands/config')).configCommand(args, io)
    if (cmd === 'backup') return await (await import('./commands/backup')).backupCommand(args, io)
    if (cmd === 'restore') return await (await import('./commands/restore')).restoreCommand(args, io)
    if (cmd === 'dashboard') return await (await import('./commands/dashboard')).dashboard(args, io)
    throw new UsageError(`unknown command: ${cmd}`)
  } catch (err) {
    const { line, code } = describeFailure(err)
    // one line, whatever the error carried (a TLS library's message spans several)
    const first = line.split('\n').find((l) => l.trim())?.trim() ?? line
    io.stderr(`loopdesk: ${first}\n`)
    if (json && !printed) io.stdout(jsonErrorLine(first, code, errorCode(err)))
    return code
  }
}

/** the gateway's error code (and its details' code), for a --json error */
function errorCode(err: unknown): { code?: string; detailCode?: string } {
  if (!(err instanceof GatewayClientError)) return {}
  return { ...(err.code ? { code: err.code } : {}), ...(err.detailCode ? { detailCode: err.detailCode } : {}) }
}

/** Process entry: runs the CLI with the real process I/O and exits with its code. */
export function cliMain(argv = process.argv.slice(2)): void {
  const io = processIO()
  runCli(argv, io).then(
    (c) => {
      // output cut short is not a command that went well, whatever it says (`set -o pipefail` sees it)
      process.exitCode = io.outputFailure() ?? c
      // the runtime may hold timers (lanes, sweeps); the CLI is done once the command returned
      setTimeout(() => process.exit(), 50).unref()
    },
    (err) => {
      process.stderr.write(`loopdesk: ${err instanceof Error ? err.message : String(err)}\n`)
      process.exit(EXIT.failed)
    },
  )
}

// `tsx src/cli/main.ts …` (npm run loopdesk) runs it directly; bin/loopdesk.mjs calls cliMain().
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) cliMain()
