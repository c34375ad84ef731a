// Is another gateway serving this state dir? `gateway run` refuses to start a second one (two runtimes on one
// state dir keep separate queues and run state, and the newer one takes gateway.json over, so the CLI and
// the dashboard silently switch to it); the desktop app asks before it starts its runtime on one
// (shell/data-folder-in-use.ts). A stale record never counts: its process must still run (same pid
// and, where known, the same start time: pids are reused) and its port must still accept connections.
import net from 'node:net'
import { gatewayProcessAlive, readGatewayInfo, type GatewayInfo } from './state-files'

const PROBE_MS = 1000

/** The record of a gateway other than this process that serves `stateDir` now, else undefined. */
export async function servingGateway(stateDir: string, info = readGatewayInfo(stateDir)): Promise<GatewayInfo | undefined> {
  if (!info || info.pid === process.pid || !gatewayProcessAlive(info)) return undefined
  return (await portAnswers(info.port)) ? info : undefined
}

/** The one-line refusal `gateway run` prints. */
export function servedMessage(info: GatewayInfo): string {
  return `another gateway (pid ${info.pid}, port ${info.port}) already serves this state dir — stop it or use --state-dir (--allow-second starts one anyway)`
}

function portAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port })
    let settled = false
    const done = (ok: boolean) => {
      if (settled) return
      settled = true
      socket.destroy()
      resolve(ok)
    }
    // decided after the poll phase: a connect that completed while this process was stalled past the
    // timeout (a loaded machine) is seen before the timer's verdict
    socket.setTimeout(PROBE_MS, () => setImmediate(() => done(false)))
    socket.once('connect', () => done(true))
    socket.once('error', () => done(false))
  })
}
