// What `loopdesk agent` and `loopdesk gateway call agent --expect-final` say when they stop following a run the
// gateway accepted: the client's wait ran out (the run goes on), or the gateway went away mid-run. Each line names
// the run and commands that work for it (`gateway call`'s own --timeout must outlast agent.wait's timeoutMs).
import { GatewayClientError } from './gateway-client'
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
  if (err.kind === 'closed') {
    const why = /\(([^)]*)\)$/.exec(err.message)?.[1]
    return new CliError(
      `the gateway went away while run ${runId} was going${why ? ` (${why})` : ''}; once it is back, see what the run did: ${historyCommand(sessionKey)}`,
      EXIT.failed,
    )
  }
  return err
}
