// `agent`'s delivery routing (OpenClaw §2.2 steps 5 and 14). Loopdesk has no message channels — no chat app to
// deliver a reply to — so it answers as an OpenClaw gateway with only its internal channel would: a channel
// other than that one (or `last`) is unknown, and `deliver: true` needs `bestEffortDeliver` (the run then
// replies into the session only). Other routing fields (`to`, `threadId`, …) are accepted and unused.
import { invalid } from '../api/errors'

/** OpenClaw's internal (Control UI / gateway) channel, and "the session's last channel" */
const KNOWN_CHANNELS = new Set(['webchat', 'last'])

export function checkDelivery(p: { channel?: string; replyChannel?: string; deliver?: boolean; bestEffortDeliver?: boolean }): void {
  for (const channel of [p.channel, p.replyChannel]) {
    const c = channel?.trim().toLowerCase()
    if (c && !KNOWN_CHANNELS.has(c)) throw invalid(`unknown channel: ${channel!.slice(0, 64)} (Loopdesk has no message channels; use "webchat" or leave it out)`)
  }
  if (p.deliver && !p.bestEffortDeliver) {
    throw invalid('delivery channel is required: Loopdesk replies only into the session (set bestEffortDeliver to run without delivery)')
  }
}
