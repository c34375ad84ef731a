// `loopdesk dashboard`: the browser-mode URL of the running gateway, with the token in the fragment
// (fragments never reach the server or its logs; the page removes it from the address bar).
import { existsSync } from 'node:fs'
import { parseArgs, TARGET_FLAGS, UsageError } from '../args'
import { connectGateway } from '../gateway-client'
import { generateNodeDeviceIdentity, loadOrCreateDeviceIdentity } from '../identity'
import { CliError, EXIT, type CliIO } from '../io'
import { openInBrowser } from '../open-browser'
import { commandTarget, dashboardUrl, staleGatewayError } from '../resolve'
import { awaitStartingGateway } from '../starting-gateway'

export const DASHBOARD_HELP = `loopdesk dashboard [--open] [--url ws://…] [--token T] [--state-dir D]
  Prints http://127.0.0.1:<port>/#token=… for the running gateway; --open also opens it in a browser
  (stderr says why when it cannot; the exit code stays 0).`

const FLAGS = {
  open: { type: 'boolean' },
  ...TARGET_FLAGS,
} as const

export async function dashboard(argv: string[], io: CliIO): Promise<number> {
  const { flags, positionals } = parseArgs(argv, FLAGS)
  if (flags.help) {
    io.stdout(DASHBOARD_HELP + '\n')
    return EXIT.ok
  }
  if (positionals.length) throw new UsageError(`unexpected argument: ${positionals[0]}`)
  const found = commandTarget(flags, io.env)
  const { stateDir } = found
  const target = await awaitStartingGateway(found.target, stateDir, io)
  if (target.source === 'stale') throw staleGatewayError(stateDir, target)
  if (!target.token) {
    // nothing recorded in the state dir: most likely no gateway has run with it, which is what to say
    if (target.source === 'default') {
      throw new CliError(`no gateway has run with the state dir ${stateDir} (start one with: loopdesk gateway run), or pass --url and --token`, EXIT.unreachable)
    }
    throw new CliError('no gateway token found (pass --token or set LOOPDESK_GATEWAY_TOKEN)', EXIT.auth)
  }
  const link = dashboardUrl(target.url, target.token)

  // The link must log in: connect once with the token it carries (not the device token this CLI may
  // also hold), so a stale or mistyped token is an auth error here rather than a page that cannot log in.
  const identity = existsSync(stateDir) ? loadOrCreateDeviceIdentity(stateDir, (line) => io.stderr(line + '\n')) : generateNodeDeviceIdentity()
  const conn = await connectGateway({ url: target.url, token: target.token, identity, connectTimeoutMs: 3000 })
  await conn.close()
  io.stdout(link + '\n')
  if (flags.open) {
    // the link is printed either way, so a browser that would not open is a note, not a failure
    const why = await openInBrowser(link, io.env)
    if (why) io.stderr(`loopdesk: could not open a browser (${why}); open the link above yourself\n`)
  }
  return EXIT.ok
}
