// A `loopdesk gateway run` still starting on the state dir (its runtime record is there, its gateway.json not yet:
// that is written once it listens): the CLI waits for it instead of saying no gateway runs, so
// `loopdesk gateway run & loopdesk agent -m …` in a script, or a command typed while the gateway restarts, works.
import { liveEmbeddedRuntime, recordedProcessAlive } from '../main/gateway/embedded-runtimes'
import { gatewayProcessAlive, readGatewayInfo } from '../main/gateway/state-files'
import type { CliIO } from './io'
import type { GatewayTarget } from './resolve'

/** how long a starting gateway is waited for (a large state dir loads its sessions first) */
export const STARTING_GATEWAY_WAIT_MS = 30_000
const POLL_MS = 100

/**
 * `target` as it is, unless it came from the state dir's records (no --url, no LOOPDESK_GATEWAY_URL) and found no
 * live gateway while a `gateway run` is starting there: then, once that one listens, the target read again (its
 * address and token). Gives up, with `target` unchanged, when the starting process goes away or the wait runs out.
 */
export async function awaitStartingGateway(target: GatewayTarget, stateDir: string, io: CliIO, maxWaitMs = STARTING_GATEWAY_WAIT_MS): Promise<GatewayTarget> {
  if (!target.reread) return target
  const starting = liveEmbeddedRuntime(stateDir)
  if (starting?.launchedBy !== 'gateway') return target
  io.stderr(`loopdesk: the gateway (pid ${starting.pid}) is starting; waiting for it…\n`)
  const deadline = Date.now() + maxWaitMs
  while (Date.now() < deadline && recordedProcessAlive(starting)) {
    const info = readGatewayInfo(stateDir)
    if (info && gatewayProcessAlive(info)) return target.reread()
    await new Promise((r) => setTimeout(r, POLL_MS))
  }
  return target
}
