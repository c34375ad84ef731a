// What `loopdesk agent` and `loopdesk gateway call agent --expect-final` say when they stop following a run the
// gateway accepted: the client's wait ran out (the run goes on), or the gateway went away mid-run. Each line names
// the run and commands that work for it (`gateway call`'s own --timeout must outlast agent.wait's timeoutMs).
import { describeGatewayShutdown, GATEWAY_SHUTDOWN, GatewayClientError, type GatewayConnectionClient, type GatewayShutdown } from './gateway-client'
import { CliError, EXIT } from './io'

const json = (v: unknown) => `'${JSON.stringify(v)}'`

/** How to wait for the run, stop it, or read what it did. */
function waitCommand(runId: string): string {
  return `loopdesk gateway call agent.wait --params ${json({ runId, timeoutMs: 600_000 })} --timeout 610000`
}
function stopCommand(runId: string, sessionKey: string | undefined): string {
  return sessionKey
    ? `loopdesk gateway call chat.abort --params ${json({ sessionKey, runId })}`
    : `loopdesk gateway call sessions.abort --params ${json({ runId })}`
}
function historyCommand(sessionKey: string | undefined): string {
  return sessionKey ? `loopdesk sessions export ${sessionKey}` : '`loopdesk sessions`, then `loopdesk sessions export KEY`'
}

/**
 * The CLI error for a failure after the ack (`runId` known): a timeout or a closed connection gets the run's
 * story; anything else is returned unchanged. `sentKey` is the idempotency key the request carried: a wait that
 * ran out before the ack cannot tell whether the gateway took the message, but if it did, that key is the run's
 * id (the gateway's `agent` runs under it) — so the line still names it and how to wait for or stop it.
 */
export function runLostError(err: unknown, runId: string | undefined, sessionKey: string | undefined, sentKey?: string): unknown {
  if (!(err instanceof GatewayClientError)) return err
  if (err.kind === 'timeout') {
    // acknowledged: the run goes on; not yet: it does if the gateway took the message, under the key sent
    const id = runId ?? sentKey
    if (id === undefined) return err
    const after = /after (\d+ ms)/.exec(err.message)?.[1]
    const story = runId !== undefined ? `, but run ${id} goes on in the gateway` : ` before the gateway acknowledged the message; if it took it, run ${id} goes on`
    return new CliError(
      `stopped waiting${after ? ` after ${after}` : ''}${story} — wait for it: ${waitCommand(id)}; stop it: ${stopCommand(id, sessionKey)}`,
      EXIT.timeout,
    )
  }
  if (runId === undefined) return err
  if (err.kind === 'closed' && err.code === GATEWAY_SHUTDOWN) {
    return new CliError(`${describeGatewayShutdown(err.details as GatewayShutdown, `while run ${runId} was going`)}; once it is back, see what the run did: ${historyCommand(sessionKey)}`, EXIT.failed)
  }
  if (err.kind === 'closed') {
    const why = /\(([^)]*)\)$/.exec(err.message)?.[1]
    return new CliError(
      `the gateway went away while run ${runId} was going${why ? ` (${why})` : ''}; once it is back, see what the run did: ${historyCommand(sessionKey)}`,
      EXIT.failed,
    )
  }
  return err
}

/** how long a run stopped by the gateway's shutdown waits for the shutdown notice (it follows the run's end) */
const SHUTDOWN_NOTICE_WAIT_MS = 5_000

/** A run's end — an agent final's `meta`, an `agent.wait` result — that says the gateway's shutdown stopped it. */
export function stoppedByShutdown(end: unknown): boolean {
  const e = (end ?? {}) as { stopReason?: unknown; timeoutPhase?: unknown }
  return e.stopReason === 'shutdown' || e.timeoutPhase === 'gateway_draining'
}

/**
 * The line for a run the gateway stopped as it shut down: its reason and whether it expects to be back, from its
 * shutdown notice (waited for a little: it follows the run's end), and where to see what the run did.
 */
export async function shutdownStopLine(conn: GatewayConnectionClient, runId: string, sessionKey: string | undefined): Promise<string> {
  const notice = await conn.awaitShutdown(SHUTDOWN_NOTICE_WAIT_MS)
  return `run ${runId} stopped: ${notice ? describeGatewayShutdown(notice) : 'the gateway is shutting down'}; once it is back, see what the run did: ${historyCommand(sessionKey)}`
}
