// "Stop and retry" beside the silence notice (the model server went quiet): the run is stopped, and once it has
// ended the same message is sent again in the same session by Retry's own path (Controller.retry, which takes a
// stopped last turn here) — with its attachments when this window sent it. Loaded when clicked: first paint has
// no room for it (test/renderer-bundle.test.ts).
import type { Controller } from './controller'
import { activeRun } from './run-reducer'

/**
 * Stops the session's silent run `runId`, waits for its end (at most `waitMs`, the stop request included: one
 * that hangs counts as not stopped), then sends its message again. A run still going then sends nothing, and
 * says so: a toast, and the run's footer keeps "Stop and retry" (Retry once it has stopped).
 */
export async function stopAndRetry(controller: Controller, sessionKey: string, runId: string, waitMs = 15_000): Promise<boolean> {
  const runs = controller.stores.runs
  const ended = () => {
    const t = runs.getState().transcripts[sessionKey]
    return !t || activeRun(t)?.runId !== runId
  }
  // stop() acts on the open session's run: with another one opened while this chunk loaded, that run would go
  if (controller.stores.sessions.getState().selectedKey !== sessionKey) return false
  const deadline = Date.now() + waitMs
  if (!ended()) {
    let timer: ReturnType<typeof setTimeout> | undefined
    await Promise.race([controller.stop(), new Promise((r) => (timer = setTimeout(r, waitMs)))])
    clearTimeout(timer)
  }
  if (!ended() && Date.now() < deadline) {
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer)
        off()
        resolve()
      }
      const timer = setTimeout(done, deadline - Date.now())
      const off = runs.subscribe(() => {
        if (ended()) done()
      })
    })
  }
  if (!ended()) {
    // the stop did not take in time (a tool ignoring it, a runtime that does not answer): the run goes on
    controller.toast(`The reply did not stop within ${Math.ceil(waitMs / 1000)} s, so the message was not sent again. Retry once it has stopped.`, 'info')
    controller.stopRetryTimedOut(sessionKey, runId)
    return false
  }
  // not sent when the reply ended on its own meanwhile (done): nothing to retry
  return controller.retry(sessionKey, runId, true)
}
