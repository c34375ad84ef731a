// `loopdesk gateway rotate-token`: replaces the shared gateway token with a fresh one and prints the new
// dashboard URL. With a gateway running it goes through it (config.patch of gateway.auth.token: the
// runtime validates and writes loopdesk.json, the gateway stores the token file for the CLI and closes
// every connection that used the old token with 4001). With none running, the state dir is updated
// directly: loopdesk.json when it holds gateway.auth.token (it wins at start), and the token file (0600).
import { parseArgs, TARGET_FLAGS, UsageError } from '../args'
import { withGateway, writeWithRateLimitWait } from '../connect'
import { connectGateway, GatewayClientError } from '../gateway-client'
import { CliError, EXIT, type CliIO } from '../io'
import { commandTarget, dashboardUrl, isLoopbackUrl, readGatewayConfig, type GatewayTarget } from '../resolve'
import { newGatewayToken, storeGatewayToken, tokenPath } from '../../main/gateway/state-files'

export const GATEWAY_ROTATE_TOKEN_HELP = `loopdesk gateway rotate-token [--url ws://…] [--token T] [--state-dir D] [--json]
  Replaces the shared gateway token with a new random one and prints the new dashboard URL. A running
  gateway applies it at once (clients that used the old token are disconnected; device-token clients
  stay); otherwise the state dir is updated and the gateway uses the new token when it starts (the URL is
  printed then only when the address is known: --url or LOOPDESK_GATEWAY_URL).`

const FLAGS = {
  json: { type: 'boolean' },
  ...TARGET_FLAGS,
} as const

export async function gatewayRotateToken(argv: string[], io: CliIO): Promise<number> {
  const { flags, positionals } = parseArgs(argv, FLAGS)
  if (flags.help) {
    io.stdout(GATEWAY_ROTATE_TOKEN_HELP + '\n')
    return EXIT.ok
  }
  if (positionals.length) throw new UsageError(`unexpected argument: ${positionals[0]}`)
  const { stateDir, target } = commandTarget(flags, io.env)
  const token = newGatewayToken()

  let via: 'gateway' | 'state-dir'
  try {
    await rotateThroughGateway(target, stateDir, token, io)
    via = 'gateway'
  } catch (err) {
    // no gateway there: a local one gets the token from the state dir when it starts
    const stale = target.source === 'stale' // never connected to (connectCli): the record's gateway is gone
    if (!(err instanceof GatewayClientError && err.kind === 'unreachable') || !(stale || isLoopbackUrl(target.url))) throw err
    await rotateInStateDir(stateDir, token, io)
    via = 'state-dir'
  }

  // The link needs the gateway's address: the running one's or one the user named (--url, env). Without
  // these, where the next gateway listens is unknown (--port 0, LOOPDESK_GATEWAY_PORT, the app picking a free
  // port), so no guessed link — nor one at the port of a gateway.json whose process is gone: another program
  // may hold that port now, and the link carries the token.
  const url = via === 'gateway' || (target.source !== 'default' && target.source !== 'stale') ? target.url : undefined
  const link = url === undefined ? undefined : dashboardUrl(url, token)
  if (flags.json) {
    io.stdout(JSON.stringify({ ok: true, via, url: url ?? null, dashboardUrl: link ?? null }) + '\n')
  } else {
    if (link) io.stdout(link + '\n')
    io.stderr(
      via === 'gateway'
        ? `gateway token rotated at ${target.url}; clients that used the old token were disconnected\n`
        : url
          ? `no gateway running at ${url}; the new token is stored in ${stateDir} and applies when the gateway starts\n`
          : target.source === 'stale'
            ? `gateway not running (stale record for pid ${target.stalePid}); the new token is stored in ${stateDir} and applies when the gateway starts (then \`loopdesk dashboard\` prints the link)\n`
            : `no gateway is running for ${stateDir}; the new token is stored there and applies when the gateway starts (then \`loopdesk dashboard\` prints the link)\n`,
    )
  }
  if (io.env.LOOPDESK_GATEWAY_TOKEN?.trim()) {
    io.stderr('note: LOOPDESK_GATEWAY_TOKEN is set in this environment and still holds the old token\n')
  }
  return EXIT.ok
}

async function rotateThroughGateway(target: GatewayTarget, stateDir: string, token: string, io: CliIO) {
  // (a shared-token connection is closed by the gateway (4001) right after the answer anyway)
  await withGateway({ target, stateDir, io, connectTimeoutMs: 5000 }, (conn) =>
    writeWithRateLimitWait(io, () => conn.request('config.patch', { patch: { gateway: { auth: { token } } } }, { timeoutMs: 15_000 })),
  )
  // A gateway started with --token / LOOPDESK_GATEWAY_TOKEN keeps that token whatever the config says.
  // Checked without a device identity, so the device token this CLI keeps stays valid.
  let probe: Awaited<ReturnType<typeof connectGateway>>
  try {
    probe = await connectGateway({ url: target.url, token, identity: null, connectTimeoutMs: 5000 })
  } catch (err) {
    if (!(err instanceof GatewayClientError && err.kind === 'auth')) throw err
    throw new CliError(
      `the gateway at ${target.url} keeps the token it was started with (--token or LOOPDESK_GATEWAY_TOKEN); loopdesk.json now holds the new token, which applies when that gateway is restarted without one`,
      EXIT.failed,
    )
  }
  await probe.close()
}

async function rotateInStateDir(stateDir: string, token: string, io: CliIO) {
  // a token in loopdesk.json wins over the token file at start: change it there first, validated
  const file = readGatewayConfig(stateDir, io.env)
  if (file.problem) {
    // the gateway keeps the last good config: a token set there would still win over the rotated one
    throw new CliError(`cannot rotate the token: ${file.problem}; fix it first (a gateway.auth.token in it would win over the new token)`, EXIT.failed)
  }
  if (file.token !== undefined) {
    const { ConfigManager } = await import('../../main/runtime/config/config-manager')
    const config = new ConfigManager({ stateDir, env: io.env })
    try {
      config.patch({ gateway: { auth: { token } } })
    } catch (err) {
      throw new CliError(`cannot rotate the token in ${config.path}: ${err instanceof Error ? err.message : String(err)}`, EXIT.failed)
    }
  }
  try {
    storeGatewayToken(stateDir, token)
  } catch (err) {
    throw new CliError(`cannot write ${tokenPath(stateDir)}: ${err instanceof Error ? err.message : String(err)}`, EXIT.failed)
  }
}
