// A provider rename reaches the messages already accepted and still waiting: each recorded the session's chosen
// model (`RunRequest.sessionModel`) — or its request named one (`model`) — at accept, so one sent before the
// rename would start with `<from>/…` and fail "unknown model provider". They were sent to that endpoint, so their
// records follow it, wherever they wait: a chat queue (held or not), the lanes (a started run's request; one
// already running keeps the endpoint it resolved), and the accepted-message journal (a `rename` line, so a
// paused message restored after a restart names the new provider too).
//
// Rewriting at the rename, not resolving through a rename log when the run starts: a log would have to outlive
// restarts, and once a new provider takes the old name a log cannot tell which one a message meant.
import { agentIds, type RuntimeCore } from './handlers-context'
import { moveRunModels } from './runner/accepted-run'

/** Returns how many waiting messages' records moved (the journals' and the queues' copies counted apart). */
export function renameInWaitingMessages(core: RuntimeCore, from: string, to: string): number {
  let moved = 0
  for (const agentId of agentIds(core)) {
    try {
      moved += core.accepted(agentId).renameProvider(from, to).length
    } catch (err) {
      console.error(`[config] accepted-message journal of ${agentId} still names the provider ${from}: ${(err as Error).message}`)
    }
  }
  moved += core.queueModes?.renameProvider?.(from, to) ?? 0
  for (const t of core.tracked.values()) if (t.request && moveRunModels(t.request, from, to)) moved++
  return moved
}
