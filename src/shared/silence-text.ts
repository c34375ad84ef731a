// What the window's run footer and `loopdesk agent` say while the model server sends nothing (the runtime's
// `silence` stream: runner/model-silence.ts): before its first token, or stalled mid-reply.

/** "No response from the model (mock) for 25 s" / "The model (mock) stopped sending 25 s ago" */
export function silenceText(what: 'request' | 'reply', silentMs: number, provider?: string): string {
  const secs = Math.max(0, Math.floor(silentMs / 1000))
  const who = provider ? ` (${provider})` : ''
  return what === 'request' ? `No response from the model${who} for ${secs} s` : `The model${who} stopped sending ${secs} s ago`
}
