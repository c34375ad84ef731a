// Asks the conversation to show a tool card: scrolled to, opened (its group too), outlined and focused
// briefly (Conversation.tsx). Imported only by lazy views (the Inspector, a tool group's row).
import type { AppStores } from './stores'
import type { Item, Transcript } from './types'

let seq = 0

export function revealToolCard(stores: AppStores, sessionKey: string, key: string): void {
  stores.ui.setState({ reveal: { sessionKey, key, seq: ++seq } })
}

/** The item of a tool call in what the conversation shows (a detached window, else the live transcript). */
export function toolItemOf(stores: AppStores, sessionKey: string, toolCallId: string): Item | undefined {
  const s = stores.runs.getState()
  const shown: Transcript | undefined = s.detached?.[sessionKey]?.transcript ?? s.transcripts[sessionKey]
  return shown?.items.find((it) => it.kind === 'tool' && it.toolCallId === toolCallId)
}
