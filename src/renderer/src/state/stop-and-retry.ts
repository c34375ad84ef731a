// "Stop and retry" beside the silence notice (the model server went quiet): the run is stopped, and once it has
// ended the same message is sent again in the same session by Retry's own path (Controller.retry, which takes a
// stopped last turn here) — with its attachments when this window sent it. Loaded when clicked: first paint has
// no room for it (test/renderer-bundle.test.ts).
import type { Controller } from './controller'
import { activeRun } from './run-reducer'

/** Stops the session's silent run `runId`, waits for its end (at most `waitMs`), then sends its message again. */
export async function stopAndRetry(controller: Controller, sessionKey: string, runId: string, waitMs = 15_000): Promise<boolean> {
  const runs = controller.stores.runs
  const ended = () => {
    const t = runs.getState().transcripts[sessionKey]
    return !t || activeRun(t)?.runId !== runId
  }
  // stop() acts on the open session's run: with another one opened while this chunk loaded, that run would go
  if (controller.stores.sessions.getState().selectedKey !== sessionKey) return false
  if (!ended()) await controller.stop()
  if (!ended()) {
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer)
        off()
        resolve()
      }
      const timer = setTimeout(done, waitMs)
      const off = runs.subscribe(() => {
        if (ended()) done()
      })
    })
  }
  // not sent when the stop did not take (the run goes on) or the reply ended on its own meanwhile (done)
  return controller.retry(sessionKey, runId, true)
}
