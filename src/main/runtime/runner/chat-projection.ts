// Chat projection of agent events (OpenClaw `chat` events, reference §5.2). It lives in the runtime so the
// IPC bridge and the WebSocket gateway carry identical chat events.
//  - delta: the run's cumulative visible text, at most one per run per 150 ms (trailing edge kept),
//    flushed before a tool starts and before the final event; a pure NO_REPLY (or its prefix) is withheld.
//  - final on lifecycle end, aborted (with the partial text) on lifecycle end {aborted}, error on lifecycle error.
import type { AgentEvent, ChatErrorDetail, ChatEvent, ErrorKind, UsageTotals } from '../../../shared/events'

export const CHAT_DELTA_THROTTLE_MS = 150
const SILENT = 'NO_REPLY'

/** True when the text is the silent token (whole text, case-insensitive, trimmed). */
export function isSilentText(text: string): boolean {
  return text.trim().toUpperCase() === SILENT
}

/** True when the text could still become the silent token (withhold it from deltas). */
function maybeSilent(text: string): boolean {
  const t = text.trim().toUpperCase()
  return t.length > 0 && SILENT.startsWith(t)
}

interface RunState {
  sessionKey: string
  segments: string[]
  /** texts the message tool delivered mid-run (kept apart: a rewritten final reply replaces only the rest) */
  blocks: string[]
  current: string
  lastSentText: string
  lastSentAt: number
  lastSeq: number
  timer?: ReturnType<typeof setTimeout>
  usage?: UsageTotals
}

export interface ChatProjectionOptions {
  throttleMs?: number
  now?: () => number
}

export class ChatProjection {
  private readonly runs = new Map<string, RunState>()
  private readonly throttleMs: number
  private readonly now: () => number

  constructor(
    private readonly emit: (ev: ChatEvent) => void,
    opts: ChatProjectionOptions = {},
  ) {
    this.throttleMs = opts.throttleMs ?? CHAT_DELTA_THROTTLE_MS
    this.now = opts.now ?? Date.now
  }

  /** Usage to attach to the run's final event (set by the runner before lifecycle end). */
  setUsage(runId: string, usage: UsageTotals): void {
    const s = this.runs.get(runId)
    if (s) s.usage = usage
  }

  /** Visible text of a live run so far (for chat.history inFlightRun and abort persistence). */
  textOf(runId: string): string | undefined {
    const s = this.runs.get(runId)
    return s ? this.fullText(s) : undefined
  }

  activeRunIds(): string[] {
    return [...this.runs.keys()]
  }

  handle(ev: AgentEvent): void {
    if (!ev.sessionKey) return
    const data = ev.data as Record<string, unknown>
    switch (ev.stream) {
      case 'lifecycle':
        if (data.phase === 'start') this.state(ev)
        else if (data.phase === 'end') this.finish(ev, data.aborted ? 'aborted' : 'final', data)
        else if (data.phase === 'error') this.finish(ev, 'error', data)
        return
      case 'assistant': {
        if (typeof data.text !== 'string') return
        const s = this.state(ev)
        s.lastSeq = ev.seq
        // The runner emits text = previous text + delta; checking that by length keeps this O(1) per delta
        // (a startsWith over the growing text made a long reply quadratic). Other shapes fall back to it.
        const delta = data.delta
        const extendsCurrent =
          typeof delta === 'string' && data.text.length === s.current.length + delta.length
            ? true
            : data.text.startsWith(s.current)
        // replace: the message's text so far was not the reply after all — reasoning (think-tag-text.ts) or a repeat
        // of a `message` send (bridge.ts): not a paragraph of the reply
        if (extendsCurrent || data.replace === true) s.current = data.text
        else {
          // a new assistant message of the same run: keep the previous one as its own paragraph
          if (s.current.trim()) s.segments.push(s.current)
          s.current = data.text
        }
        this.maybeSend(ev.runId, s)
        return
      }
      case 'block': {
        // text delivered mid-run (message tool): part of the visible reply. Block-streaming chunks
        // (source "stream") repeat assistant text that is already in the buffer: not added again.
        if (typeof data.text !== 'string' || data.isReasoning || data.source === 'stream') return
        const s = this.state(ev)
        s.lastSeq = ev.seq
        if (s.current.trim()) s.segments.push(s.current)
        s.segments.push(data.text)
        s.blocks.push(data.text)
        s.current = ''
        this.maybeSend(ev.runId, s)
        return
      }
      case 'tool':
        if (data.phase === 'start') {
          const s = this.runs.get(ev.runId)
          if (s) {
            s.lastSeq = ev.seq
            this.flush(ev.runId, s)
          }
        }
        return
      default:
        return
    }
  }

  private state(ev: AgentEvent): RunState {
    let s = this.runs.get(ev.runId)
    if (!s) {
      s = { sessionKey: ev.sessionKey!, segments: [], blocks: [], current: '', lastSentText: '', lastSentAt: 0, lastSeq: ev.seq }
      this.runs.set(ev.runId, s)
    }
    return s
  }

  private fullText(s: RunState): string {
    const parts = s.current.trim() ? [...s.segments, s.current] : s.segments
    // the bridge never streams the silent token; a part that is one anyway (another emitter) is not text
    return parts.filter((p) => !isSilentText(p)).join('\n\n')
  }

  private maybeSend(runId: string, s: RunState): void {
    const wait = s.lastSentAt + this.throttleMs - this.now()
    if (wait <= 0) {
      this.flush(runId, s)
      return
    }
    // trailing edge: the latest text goes out when the window closes
    if (!s.timer) {
      s.timer = setTimeout(() => {
        s.timer = undefined
        // checked again: a timer may fire a millisecond before the clock says the window closed
        if (this.runs.get(runId) === s) this.maybeSend(runId, s)
      }, wait)
    }
  }

  private flush(runId: string, s: RunState): void {
    if (s.timer) {
      clearTimeout(s.timer)
      s.timer = undefined
    }
    const text = this.fullText(s)
    if (text === s.lastSentText || !text.trim() || maybeSilent(text)) return
    // v4 clients read deltaText (what was added since the last delta); when the text is not an extension
    // of what they have (a segment was rewritten), replace:true and deltaText is the whole text
    const grew = text.startsWith(s.lastSentText)
    const deltaText = grew ? text.slice(s.lastSentText.length) : text
    s.lastSentText = text
    s.lastSentAt = this.now()
    const ev: ChatEvent = { runId, sessionKey: s.sessionKey, seq: s.lastSeq, state: 'delta', message: message(text, s.lastSentAt), deltaText }
    if (!grew) ev.replace = true
    this.emit(ev)
  }

  private finish(ev: AgentEvent, state: 'final' | 'aborted' | 'error', data: Record<string, unknown>): void {
    const s = this.runs.get(ev.runId) ?? this.state(ev)
    s.lastSeq = ev.seq
    // A message_sending hook rewrote or withheld the reply: the final carries what was delivered (the
    // message tool's texts + replyText), and no last delta of the model's own text goes out before it.
    const replyText = state === 'final' && typeof data.replyText === 'string' ? data.replyText : undefined
    if (state !== 'error' && replyText === undefined) this.flush(ev.runId, s)
    if (s.timer) clearTimeout(s.timer)
    this.runs.delete(ev.runId)
    const text = replyText === undefined ? this.fullText(s) : [...s.blocks, replyText].filter((t) => t.trim()).join('\n\n')
    const visible = text.trim() && !isSilentText(text) ? text : undefined
    const out: ChatEvent = { runId: ev.runId, sessionKey: s.sessionKey, seq: ev.seq, state }
    if (state === 'error') {
      out.errorMessage = typeof data.error === 'string' ? data.error : 'run failed'
      out.errorKind = (data.errorKind as ErrorKind | undefined) ?? 'unknown'
      if (data.errorDetail && typeof data.errorDetail === 'object') out.errorDetail = data.errorDetail as ChatErrorDetail
      if (visible) out.message = message(visible, this.now())
    } else {
      if (visible) out.message = message(visible, this.now())
      if (typeof data.stopReason === 'string') out.stopReason = data.stopReason
      else if (state === 'aborted') out.stopReason = 'aborted'
      // a timeout is not the user's stop: say so (the run's final payload carries the same notice)
      if (state === 'aborted' && data.stopReason === 'timeout') out.errorMessage = 'The run timed out and was stopped.'
    }
    if (s.usage) out.usage = s.usage
    this.emit(out)
  }

  /** Drops all state (shutdown). */
  dispose(): void {
    for (const s of this.runs.values()) if (s.timer) clearTimeout(s.timer)
    this.runs.clear()
  }
}

const message = (text: string, timestamp: number): NonNullable<ChatEvent['message']> => ({
  role: 'assistant',
  content: [{ type: 'text', text }],
  timestamp,
})
