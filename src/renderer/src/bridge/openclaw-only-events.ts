// What the gateway sends every sessions.subscribe subscriber for OpenClaw's clients but the window does not
// read: transcript copies (`session.message`, and `sessions.changed` {phase: "message"} after each append) and
// tool events mirrored as `session.tool`. The window follows runs through their `agent`/`chat` events and reads
// transcripts with chat.history, as over IPC, which has none of these — passed on, they would only fill the
// inspector's event log with second copies.
export function openClawOnly(event: string, payload: unknown): boolean {
  if (event === 'session.message' || event === 'session.tool') return true
  return event === 'sessions.changed' && !!payload && typeof payload === 'object' && (payload as { phase?: unknown }).phase === 'message'
}
