// The pure reducer every incoming event goes through. It turns agent/chat/approval/queue events plus
// local actions (send, stop) into the transcript display model (state/types.ts).
//
// Ordering: agent events are applied per run strictly in `seq` order. Duplicates (seq already
// applied) are dropped; events ahead of a gap wait in a per-run buffer until the gap fills, or until
// the controller gives up waiting (`gap.flush`) and asks for a history refetch.
// Assistant `text` is cumulative: it replaces the open segment's text (a shorter stale snapshot can't
// arrive because of the seq ordering). A tool start closes the open segment so the text before a tool
// stays above its card.
import type {
  AgentEvent,
  ApprovalDecision,
  ChatEvent,
  ExecApprovalRequest,
  ExecApprovalResolved,
  QueueItem,
  UsageTotals,
} from '../../../shared/events'
import type { ChatHistoryPage, HistoryMessage, Results } from '../../../shared/methods'
import { collectedTexts } from '../../../shared/collect-prompt'
import { runWaitingOf } from '../../../shared/lane-wait-text'
import { SEAL_CHARS, sealParts, sealPoint } from '../markdown/blocks'
import type { RefetchPaging } from './history-paging'
import {
  approvalKey,
  emptyTranscript,
  runKey,
  segKey,
  toolKey,
  userKey,
  type ApprovalItem,
  type AssistantItem,
  type Item,
  type RunItem,
  type RunTrack,
  type ToolApproval,
  type ToolItem,
  type ToolOutcome,
  type Transcript,
  type UserItem,
} from './types'

/** Beyond this many buffered out-of-order events of one run we stop waiting for the gap. */
export const MAX_BUFFERED_EVENTS = 1000
const TIMED_OUT = 'The run timed out and was stopped.'
const INTERRUPTED = 'Interrupted: Loopdesk stopped before this message was answered.'
/** stopReason of a run folded into another one (runtime queue "collect" mode) */
const COLLECTED = 'collected'
/** lifecycle end / chat stopReason of a queued message removed before its run started (the runtime's queue) */
const REMOVED = 'removed'

export type SendResult = Results['chat.send']

export type Action =
  | { type: 'agent'; event: AgentEvent }
  | { type: 'chat'; event: ChatEvent }
  | { type: 'approval.requested'; request: ExecApprovalRequest }
  | { type: 'approval.resolved'; resolved: ExecApprovalResolved }
  | { type: 'queue'; items: QueueItem[] }
  /** optimistic user message for a normal send; `id` is the idempotency key */
  /** `files`: the message carried attachments (its text ends with their lines) */
  | { type: 'local.send'; id: string; text: string; ts: number; files?: boolean }
  | { type: 'local.sendResult'; id: string; text: string; result: SendResult; ts: number }
  /** `retryable`: sending it again could work; `restored`: its text went back to the composer */
  | { type: 'local.sendFailed'; id: string; error: string; retryable?: boolean; restored?: boolean }
  /** a Retry that could not be sent: its optimistic items go (the failed turn keeps its Retry) */
  | { type: 'local.sendWithdrawn'; id: string }
  /** a message was steered into a running reply */
  | { type: 'local.steered'; runId: string; text: string; ts: number }
  | { type: 'local.stopping'; runId: string }
  /** the stop request itself failed (not connected, runtime error): the run is not stopping */
  | { type: 'local.stopFailed'; runId: string }
  /** Stop was acknowledged but no terminal event came: settle the run locally as stopped */
  | { type: 'local.stopSettle'; runId: string; ts: number }
  | { type: 'local.stopRetryTimedOut'; runId: string }
  | { type: 'local.approvalDecided'; id: string; decision: ApprovalDecision }
  | { type: 'gap.flush'; runId?: string }
  | {
      type: 'hydrate'
      history: ChatHistoryPage
      recent?: Results['loopdesk.events.recent']
      paging?: RefetchPaging
      /** a run whose "Stop and retry" timed out (state/retry-wanted.ts): its rebuilt item keeps `stopRetryTimedOut` */
      retryWanted?: string
    }
  | { type: 'prepend'; history: ChatHistoryPage }

// ------------------------------------------------------------------------------------------- draft

/** Copy-on-write wrapper so a batch of events copies the item array and run map at most once. */
class Draft {
  items: Item[]
  runs: Record<string, RunTrack>
  private itemsCopied = false
  private runsCopied = new Set<string>()
  private runsMapCopied = false
  needsRefetch: boolean
  loaded: boolean
  hasMore: boolean
  nextOffset?: number
  /** items[0, older) came from older pages: kept in step when items are inserted or removed there */
  older: number
  hideReasoning?: boolean

  constructor(readonly base: Transcript) {
    this.items = base.items
    this.runs = base.runs
    this.hideReasoning = base.hideReasoning
    this.needsRefetch = base.needsRefetch
    this.loaded = base.loaded
    this.hasMore = base.hasMore
    this.nextOffset = base.nextOffset
    this.older = base.older
  }

  private writableItems(): Item[] {
    if (!this.itemsCopied) {
      this.items = this.items.slice()
      this.itemsCopied = true
    }
    return this.items
  }

  /** A mutable copy of one run's track (copied once per batch). */
  track(runId: string): RunTrack | undefined {
    const t = this.runs[runId]
    if (!t) return undefined
    if (!this.runsCopied.has(runId)) {
      if (!this.runsMapCopied) {
        this.runs = { ...this.runs }
        this.runsMapCopied = true
      }
      const copy = { ...t, buffer: t.buffer.slice() }
      this.runs[runId] = copy
      this.runsCopied.add(runId)
      return copy
    }
    return t
  }

  addTrack(runId: string, init?: Partial<RunTrack>): RunTrack {
    if (!this.runsMapCopied) {
      this.runs = { ...this.runs }
      this.runsMapCopied = true
    }
    const t: RunTrack = { runId, nextSeq: 1, buffer: [], segs: 0, users: 0, sawAssistant: false, terminal: false, ...init }
    this.runs[runId] = t
    this.runsCopied.add(runId)
    return t
  }

  deleteTrack(runId: string) {
    if (!this.runs[runId]) return
    if (!this.runsMapCopied) {
      this.runs = { ...this.runs }
      this.runsMapCopied = true
    }
    delete this.runs[runId]
  }

  /** Index of the item with this key, scanning from the end (live activity happens at the end). */
  find(key: string): number {
    const items = this.items
    for (let i = items.length - 1; i >= 0; i--) if (items[i].key === key) return i
    return -1
  }

  get<T extends Item>(key: string): T | undefined {
    const i = this.find(key)
    return i < 0 ? undefined : (this.items[i] as T)
  }

  /** Replace the item with this key by patching it (new object, so memoized views update). */
  patch<T extends Item>(key: string, patch: Partial<T>): T | undefined {
    const i = this.find(key)
    if (i < 0) return undefined
    const next = { ...this.items[i], ...patch } as T
    this.writableItems()[i] = next
    return next
  }

  insertAt(index: number, item: Item) {
    const items = this.writableItems()
    if (index >= items.length) items.push(item)
    else items.splice(index, 0, item)
    if (index < this.older) this.older++
  }

  push(item: Item) {
    this.writableItems().push(item)
  }

  remove(key: string) {
    const i = this.find(key)
    if (i < 0) return
    this.writableItems().splice(i, 1)
    if (i < this.older) this.older--
  }

  /** Insert an item into a run: just before the run's status footer. */
  insertInRun(runId: string, item: Item) {
    const f = this.find(runKey(runId))
    if (f < 0) this.push(item)
    else this.insertAt(f, item)
  }

  result(): Transcript {
    const b = this.base
    if (
      this.items === b.items &&
      this.runs === b.runs &&
      this.needsRefetch === b.needsRefetch &&
      this.loaded === b.loaded &&
      this.hasMore === b.hasMore &&
      this.nextOffset === b.nextOffset &&
      this.older === b.older &&
      this.hideReasoning === b.hideReasoning
    )
      return b
    return {
      ...b,
      items: this.items,
      runs: this.runs,
      hideReasoning: this.hideReasoning,
      loaded: this.loaded,
      hasMore: this.hasMore,
      nextOffset: this.nextOffset,
      needsRefetch: this.needsRefetch,
      older: this.older,
    }
  }
}

// ------------------------------------------------------------------------------------------- runs

function ensureRun(d: Draft, runId: string, ts: number, status: RunItem['status'] = 'running'): RunTrack {
  let t = d.track(runId)
  if (!t) t = d.addTrack(runId)
  if (d.find(runKey(runId)) < 0) {
    const footer: RunItem = { kind: 'run', key: runKey(runId), runId, ts, status }
    d.push(footer)
  }
  return t
}

function footer(d: Draft, runId: string): RunItem | undefined {
  return d.get<RunItem>(runKey(runId))
}

function closeSegment(d: Draft, t: RunTrack, opts: { stopped?: boolean } = {}) {
  if (!t.openSeg) return
  const seg = d.get<AssistantItem>(t.openSeg)
  if (seg && (seg.streaming || opts.stopped)) d.patch<AssistantItem>(seg.key, { streaming: false, ...(opts.stopped ? { stopped: true } : {}) })
  t.openSeg = undefined
}

function openSegment(d: Draft, t: RunTrack, ts: number, init: Partial<AssistantItem>): AssistantItem {
  const seg: AssistantItem = {
    kind: 'assistant',
    key: segKey(t.runId, t.segs++),
    runId: t.runId,
    ts,
    text: '',
    streaming: !t.terminal,
    ...init,
  }
  d.insertInRun(t.runId, seg)
  t.openSeg = seg.key
  t.sealK = 0
  t.sealScan = undefined
  return seg
}

/**
 * Keeps the open segment bounded: once its text crosses a multiple of SEAL_CHARS, the part before
 * the last block boundary is sealed and the rest continues in a new item (same message).
 */
function maybeSeal(d: Draft, t: RunTrack, seg: AssistantItem) {
  const k = Math.floor(seg.text.length / SEAL_CHARS)
  if (k <= (t.sealK ?? 0)) return
  const scan = { state: t.sealScan }
  const cut = sealPoint(seg.text, (t.sealK ?? 0) + 1, scan)
  t.sealK = k
  t.sealScan = scan.state
  if (cut <= 0) return
  const head = seg.text.slice(0, cut)
  const rest = seg.text.slice(cut)
  d.patch<AssistantItem>(seg.key, { text: head, streaming: false })
  t.segBase = (t.segBase ?? '') + head
  const next = openSegment(d, t, seg.ts, { text: rest, cont: true, offset: (seg.offset ?? 0) + head.length })
  maybeSeal(d, t, next)
}

function markTerminal(d: Draft, t: RunTrack, ts: number, patch: Partial<RunItem>, stopped = false) {
  // Mark the last assistant text of the run as stopped even if its segment was already closed.
  if (stopped && !t.openSeg && t.segs > 0) {
    const last = d.get<AssistantItem>(segKey(t.runId, t.segs - 1))
    if (last && !last.stopped) d.patch<AssistantItem>(last.key, { stopped: true })
  }
  closeSegment(d, t, { stopped })
  t.terminal = true
  t.thinking = false
  t.buffer = []
  const f = footer(d, t.runId)
  if (f) d.patch<RunItem>(f.key, { stopping: false, thinkingSince: undefined, waiting: undefined, endedAt: f.endedAt ?? ts, ...patch })
  // Tools still "running" when the run ended will never finish.
  for (let i = d.items.length - 1; i >= 0; i--) {
    const it = d.items[i]
    if (it.runId !== t.runId) continue
    if (it.kind === 'tool' && it.status === 'running') d.patch<ToolItem>(it.key, { status: 'interrupted', endedAt: ts })
    if (it.kind === 'user' && it.pending) d.patch<UserItem>(it.key, { pending: false })
  }
}

// ------------------------------------------------------------------------------------------- agent events

function str(v: unknown): string {
  return typeof v === 'string' ? v : ''
}

function applyAssistant(d: Draft, t: RunTrack, ev: AgentEvent) {
  const text = str(ev.data.text)
  const delta = str(ev.data.delta)
  t.sawAssistant = true
  const seg = t.openSeg ? d.get<AssistantItem>(t.openSeg) : undefined
  const pending = d.get<UserItem>(userKey(t.runId, 0))
  if (pending?.pending) d.patch<UserItem>(pending.key, { pending: false })
  if (ev.data.replace === true) {
    // the message's text so far is not the reply after all — reasoning (a closing </think> with no opener) or a
    // repeat of what a `message` call of it sends: take it back
    if (seg) d.patch<AssistantItem>(seg.key, { text: '' })
    return
  }
  if (!seg) {
    // After a tool, the same assistant message may continue: strip what was already shown.
    const base = t.segBase
    const shown = base && delta !== text && text.startsWith(base) ? text.slice(base.length) : text
    t.segBase = shown === text ? undefined : base
    maybeSeal(d, t, openSegment(d, t, ev.ts, { text: shown }))
    return
  }
  // Hot path (one event per token): a snapshot that grew by exactly `delta` extends the message.
  // Only lengths are compared — any string operation on the whole text would make a long reply
  // O(length²) (V8 flattens the cumulative string on every such call).
  const baseLen = t.segBase ? t.segBase.length : 0
  const fullLen = baseLen + seg.text.length
  if (delta.length > 0 && text.length === fullLen + delta.length && delta !== text) {
    // Our own rope of the segment: touching `text` would copy the whole reply.
    maybeSeal(d, t, d.patch<AssistantItem>(seg.key, { text: baseLen ? seg.text + delta : text })!)
    return
  }
  const full = t.segBase ? t.segBase + seg.text : seg.text
  if (seg.text === '' || text.startsWith(full)) {
    const shown = t.segBase ? text.slice(t.segBase.length) : text
    if (shown !== seg.text) maybeSeal(d, t, d.patch<AssistantItem>(seg.key, { text: shown })!)
  } else if (delta === text) {
    // A new assistant message (e.g. after a steer or a compaction retry).
    closeSegment(d, t)
    t.segBase = undefined
    maybeSeal(d, t, openSegment(d, t, ev.ts, { text }))
  } else {
    // Cleaned text is no longer a prefix extension: replace what this segment shows.
    const shown = t.segBase && text.startsWith(t.segBase) ? text.slice(t.segBase.length) : text
    if (shown === text) t.segBase = undefined
    d.patch<AssistantItem>(seg.key, { text: shown })
  }
}

function applyThinking(d: Draft, t: RunTrack, ev: AgentEvent) {
  // reasoning text reaches the window only at levels on and stream: the level read with history is stale (a patch
  // since; a delta resync, which has none, keeps it), and stored reasoning shows again
  d.hideReasoning = false
  const text = str(ev.data.text)
  const delta = str(ev.data.delta)
  let seg = t.openSeg ? d.get<AssistantItem>(t.openSeg) : undefined
  // Reasoning after visible text, or a restarted reasoning snapshot, belongs to a new message.
  if (seg && (seg.text !== '' || (seg.reasoning && delta === text && !text.startsWith(seg.reasoning)))) {
    closeSegment(d, t)
    t.segBase = undefined
    seg = undefined
  }
  if (!seg) openSegment(d, t, ev.ts, { reasoning: text })
  else d.patch<AssistantItem>(seg.key, { reasoning: text })
}

function endThinking(d: Draft, t: RunTrack) {
  if (!t.thinking) return
  t.thinking = false
  const f = footer(d, t.runId)
  if (f?.thinkingSince !== undefined) d.patch<RunItem>(f.key, { thinkingSince: undefined })
}

function applyTool(d: Draft, t: RunTrack, ev: AgentEvent) {
  const data = ev.data as Record<string, unknown>
  const toolCallId = str(data.toolCallId) || `${t.runId}:${ev.seq}`
  const name = str(data.name) || 'tool'
  const key = toolKey(toolCallId)
  const phase = data.phase
  if (t.openSeg) {
    const seg = d.get<AssistantItem>(t.openSeg)
    t.segBase = seg ? (t.segBase ?? '') + seg.text : t.segBase
    closeSegment(d, t)
  }
  let item = d.get<ToolItem>(key)
  if (!item) {
    item = {
      kind: 'tool',
      key,
      runId: t.runId,
      ts: ev.ts,
      toolCallId,
      name,
      args: phase === 'start' ? data.args : undefined,
      status: 'running',
      startedAt: ev.ts,
      timed: phase === 'start',
    }
    // the approval request can arrive before the call's own events (a different event stream)
    const asked = d.items.find((it): it is ApprovalItem => it.kind === 'approval' && it.request.toolCallId === toolCallId)
    if (asked) item.approval = { decision: asked.decision, resolvedBy: asked.resolvedBy, askedAt: asked.request.createdAt, resolvedAt: asked.resolvedAt }
    d.insertInRun(t.runId, item)
    if (asked) d.patch<ApprovalItem>(asked.key, { onTool: true })
  }
  if (phase === 'start') d.patch<ToolItem>(key, { args: data.args, name, startedAt: ev.ts, timed: true })
  else if (phase === 'update') d.patch<ToolItem>(key, { partial: data.partialResult })
  else if (phase === 'result')
    d.patch<ToolItem>(key, {
      status: data.isError ? 'failed' : 'done',
      result: data.result,
      meta: typeof data.meta === 'string' ? data.meta : undefined,
      endedAt: ev.ts,
    })
}

/** Why a stopped run stopped when it was not a Stop (a lifecycle end's or chat `aborted`'s stopReason). */
function stopCauseOf(stopReason: unknown): Pick<RunItem, 'stopCause'> {
  return stopReason === 'shutdown' ? { stopCause: 'shutdown' } : {}
}

/** What a finished run's footer adds to "Done" (lifecycle end data). */
function endNotice(data: Record<string, unknown>): Pick<RunItem, 'notice'> {
  if (data.stopReason === 'length') return { notice: 'length' }
  if (data.emptyReply) return { notice: 'empty' }
  if (data.silentReply) return { notice: 'silent' }
  return {}
}

/**
 * A waiting run's message (its `lane` event carries it): the transcript gets it only when the run starts, so a
 * window reloaded meanwhile (or one that did not send it) would show the wait without it. Drawn with the keys
 * history gives the run's user rows, so the real rows replace it (never a second copy); nothing when the run
 * already shows a message (this window sent it, or history has it).
 */
function drawWaitingMessage(d: Draft, t: RunTrack, text: string, ts: number) {
  if (!text || d.items.some((it) => it.kind === 'user' && it.runId === t.runId)) return
  const collected = collectedTexts(text)
  let at = d.items.findIndex((it) => it.runId === t.runId)
  if (at < 0) at = d.items.length
  ;(collected ?? [text]).forEach((c, n) => {
    d.insertAt(at + n, { kind: 'user', key: userKey(t.runId, n), runId: t.runId, ts, text: c, ...(collected ? { via: 'collect' as const } : {}) })
  })
  t.users = Math.max(t.users, collected?.length ?? 1)
}

function applyInOrder(d: Draft, t: RunTrack, ev: AgentEvent) {
  const data = ev.data as Record<string, unknown>
  // the retried request answered (any output, or the run ended): no longer waiting for a retry
  if (t.retrying && ev.stream !== 'error') {
    t.retrying = false
    const f = footer(d, t.runId)
    if (f?.retry) d.patch<RunItem>(f.key, { retry: undefined })
  }
  // the model sent something (or the run ended): it is no longer silent
  if (t.silent && ev.stream !== 'silence' && ev.stream !== 'error' && ev.stream !== 'lane') {
    t.silent = false
    const f = footer(d, t.runId)
    if (f?.silent) d.patch<RunItem>(f.key, { silent: undefined })
  }
  // text, a tool call, a compaction or the run's end: the model is no longer inside a reasoning block
  // (the block's own end may come late or never: a provider that closes blocks only with the message, an abort)
  if (t.thinking && (ev.stream === 'assistant' || ev.stream === 'tool' || ev.stream === 'compaction' || ev.stream === 'lifecycle')) endThinking(d, t)
  switch (ev.stream) {
    case 'lifecycle': {
      const f = footer(d, t.runId)
      if (data.phase === 'start') {
        if (f && !t.terminal) d.patch<RunItem>(f.key, { status: 'running', startedAt: (data.startedAt as number) ?? ev.ts, timed: true, waiting: undefined })
      } else if (data.phase === 'end') {
        const aborted = !!data.aborted
        // the run timeout is not the user's Stop: show it as an error that says what happened
        const timedOut = aborted && data.stopReason === 'timeout'
        markTerminal(
          d,
          t,
          ev.ts,
          {
            status: timedOut ? 'error' : aborted ? 'stopped' : 'done',
            ...(timedOut ? { error: TIMED_OUT } : {}),
            ...(aborted ? stopCauseOf(data.stopReason) : {}),
            ...(aborted ? {} : endNotice(data)),
            endedAt: (data.endedAt as number) ?? ev.ts,
            startedAt: (data.startedAt as number | undefined) ?? f?.startedAt,
            timed: true,
          },
          aborted,
        )
      } else if (data.phase === 'error') {
        markTerminal(d, t, ev.ts, {
          status: 'error',
          error: readableError(str(data.error)) || 'The run failed',
          endedAt: (data.endedAt as number) ?? ev.ts,
          startedAt: (data.startedAt as number | undefined) ?? f?.startedAt,
          timed: true,
        })
      }
      return
    }
    case 'assistant':
      if (!t.terminal) applyAssistant(d, t, ev)
      return
    case 'thinking':
      if (!t.terminal) applyThinking(d, t, ev)
      return
    case 'reasoning': {
      if (t.terminal) return
      if (data.phase === 'start') {
        const f = footer(d, t.runId)
        if (f && !t.thinking) d.patch<RunItem>(f.key, { thinkingSince: ev.ts })
        t.thinking = true
        return
      }
      endThinking(d, t)
      // reasoning level `on`: the finished block, shown now rather than after the reply
      if (typeof data.text === 'string' && data.text) applyThinking(d, t, { ...ev, data: { text: data.text, delta: data.text } })
      return
    }
    case 'lane': {
      // not started yet: its session's earlier run or every global slot is busy (lifecycle start clears it)
      // (a reload rebuilds the footer of a run it finds in flight as running: nothing has started it yet, though)
      const f = footer(d, t.runId)
      const waiting = runWaitingOf(data)
      if (f && !t.terminal && f.startedAt === undefined && (f.status === 'pending' || f.status === 'running') && waiting) {
        d.patch<RunItem>(f.key, { status: 'pending', waiting })
        drawWaitingMessage(d, t, str(data.message), ev.ts)
      }
      return
    }
    case 'silence': {
      // nothing from the model server for a while (runtime model-silence.ts): the footer says so, with Stop
      const f = footer(d, t.runId)
      if (!f || t.terminal) return
      if (data.phase === 'silent' && (data.since === 'request' || data.since === 'reply')) {
        const silentMs = typeof data.silentMs === 'number' ? data.silentMs : 0
        d.patch<RunItem>(f.key, { silent: { what: data.since, since: ev.ts - silentMs, ...(typeof data.provider === 'string' ? { provider: data.provider } : {}) } })
        t.silent = true
      } else if (f.silent) {
        d.patch<RunItem>(f.key, { silent: undefined })
        t.silent = false
      }
      return
    }
    case 'tool':
      applyTool(d, t, ev)
      return
    case 'compaction': {
      const f = footer(d, t.runId)
      if (!f || t.terminal) return
      if (data.phase === 'start') d.patch<RunItem>(f.key, { status: 'compacting' })
      else {
        d.patch<RunItem>(f.key, { status: 'running' })
        if (data.willRetry) {
          closeSegment(d, t)
          t.segBase = undefined
        }
      }
      return
    }
    case 'error': {
      // the model server refused a request that will be sent again (runtime retry-notice.ts): say so
      if (data.reason === 'model_retry') {
        const f = footer(d, t.runId)
        if (!f || t.terminal) return
        const wait = typeof data.retryAfterMs === 'number' ? data.retryAfterMs : undefined
        d.patch<RunItem>(f.key, { retry: { status: Number(data.status) || 0, ...(wait !== undefined ? { until: ev.ts + wait } : {}) } })
        t.retrying = true
        return
      }
      // Ollama read only part of the prompt (runtime ollama-truncation.ts): stays under the run, also once it ended
      if (data.reason === 'context_truncated') {
        const f = footer(d, t.runId)
        if (f && typeof data.message === 'string') d.patch<RunItem>(f.key, { warning: data.message })
        return
      }
      // the session's last model was gone: this run moved to the default one (runtime model-switch.ts)
      if (data.reason === 'model_changed') {
        const f = footer(d, t.runId)
        if (f && typeof data.message === 'string') d.patch<RunItem>(f.key, { modelNote: data.message })
        return
      }
      // The gateway reports seq gaps it saw upstream: our copy may be incomplete.
      d.needsRefetch = true
      return
    }
    default:
      return // block / approval streams duplicate information shown elsewhere
  }
}

/** A tool result row as the tool card reads it: its content, and its details when history kept any (exec's approval). */
function historyResult(m: HistoryMessage): { content: unknown; details?: unknown } {
  return m.details === undefined ? { content: m.content } : { content: m.content, details: m.details }
}

/** The batch run a lifecycle event says this run was folded into (queue "collect" mode), if any. */
function foldTarget(ev: AgentEvent): string | undefined {
  if (ev.stream !== 'lifecycle') return undefined
  const into = (ev.data as Record<string, unknown>).foldedInto
  return typeof into === 'string' && into && into !== ev.runId ? into : undefined
}

/**
 * A run whose queued message was folded into another run: that run answers it and shows the outcome,
 * so this one gets no footer of its own (it would be an empty "Done"). Its message is shown in the
 * handling run (from the queue's "collected" items, or history's collect prompt).
 */
function applyFolded(d: Draft, runId: string, into: string, seq?: number) {
  const t = d.track(runId) ?? d.addTrack(runId, { sawAssistant: true })
  if (seq !== undefined) t.nextSeq = Math.max(t.nextSeq, seq + 1)
  t.buffer = []
  t.terminal = true
  t.foldedInto = into
  d.remove(runKey(runId))
  for (let i = d.items.length - 1; i >= 0; i--) {
    const it = d.items[i]
    if (it.runId === runId && it.kind === 'user') d.remove(it.key)
  }
}

/**
 * A run that ends before it ever started: a queued message removed (lifecycle end `{aborted, stopReason:
 * "removed"}`) or a run cancelled while waiting in its lane. It has no message, no output and no start
 * (its first event is the end), so it has nothing to show in the conversation.
 */
function neverStarted(ev: AgentEvent): boolean {
  const data = ev.data as Record<string, unknown>
  return ev.stream === 'lifecycle' && ev.seq === 1 && data.phase === 'end' && !!data.aborted
}

/** Remembers a never-started run (late duplicates and its chat "aborted" are dropped) without drawing it. */
function applyNeverStarted(d: Draft, runId: string, seq: number) {
  const t = d.track(runId) ?? d.addTrack(runId, { sawAssistant: true })
  t.nextSeq = Math.max(t.nextSeq, seq + 1)
  t.terminal = true
  t.buffer = []
}

function applyAgent(d: Draft, ev: AgentEvent) {
  if (typeof ev.runId !== 'string' || typeof ev.seq !== 'number' || !ev.data || typeof ev.data !== 'object') return
  const prev = d.runs[ev.runId]
  if (prev && ev.seq < prev.nextSeq) return // duplicate
  // Every lifecycle event of a folded run carries foldedInto, so the first one seen decides.
  const into = prev?.foldedInto ?? foldTarget(ev)
  if (into !== undefined) return applyFolded(d, ev.runId, into, ev.seq)
  // a run this window shows nothing of yet (not one it sent: that has its message and footer) that never started
  if (!prev && neverStarted(ev)) return applyNeverStarted(d, ev.runId, ev.seq)
  const known = !!prev
  const t = ensureRun(d, ev.runId, ev.ts)
  if (!known && ev.seq !== 1) d.needsRefetch = true // joined mid-run: history has the beginning
  if (ev.seq < t.nextSeq) return // duplicate
  if (ev.seq > t.nextSeq) {
    if (!t.buffer.some((b) => b.seq === ev.seq)) {
      const i = t.buffer.findIndex((b) => b.seq > ev.seq)
      if (i < 0) t.buffer.push(ev)
      else t.buffer.splice(i, 0, ev)
    }
    if (t.buffer.length > MAX_BUFFERED_EVENTS) flushGap(d, t)
    return
  }
  applyInOrder(d, t, ev)
  t.nextSeq = ev.seq + 1
  drain(d, t)
}

function drain(d: Draft, t: RunTrack) {
  while (t.buffer.length && t.buffer[0].seq <= t.nextSeq) {
    const next = t.buffer.shift()!
    if (next.seq < t.nextSeq) continue
    applyInOrder(d, t, next)
    t.nextSeq = next.seq + 1
  }
}

/** Stop waiting for missing events: apply what is buffered, in order. */
function flushGap(d: Draft, t: RunTrack) {
  if (!t.buffer.length) return
  const buffered = t.buffer
  t.buffer = []
  for (const ev of buffered) {
    if (ev.seq < t.nextSeq) continue
    applyInOrder(d, t, ev)
    t.nextSeq = ev.seq + 1
  }
  d.needsRefetch = true
}

// ------------------------------------------------------------------------------------------- chat events

function chatText(ev: ChatEvent): string {
  return ev.message?.content?.map((c) => (c && c.type === 'text' ? c.text : '')).join('') ?? ''
}

function applyChat(d: Draft, ev: ChatEvent) {
  if (typeof ev.runId !== 'string') return
  const existing = d.track(ev.runId)
  if (existing?.foldedInto !== undefined) return
  // The chat projection of a folded run ends with stopReason "collected" and no message ('' = the
  // handling run is not known from here).
  if (ev.stopReason === COLLECTED && !ev.message && !existing?.sawAssistant) return applyFolded(d, ev.runId, '')
  // a removed queued message's run id is closed with aborted "removed": it never ran, nothing to show
  if (!existing && ev.state === 'aborted' && ev.stopReason === REMOVED && !chatText(ev)) return applyNeverStarted(d, ev.runId, 0)
  if (!existing && ev.state === 'delta') {
    // Deltas of a run we have no agent events for (agent events lost or filtered): make the run visible.
    d.needsRefetch = true
  }
  const t = existing ?? ensureRun(d, ev.runId, ev.message?.timestamp ?? Date.now())
  // The chat projection duplicates the agent stream: don't touch its (long) text unless needed.
  if (ev.state === 'delta' && (t.terminal || t.sawAssistant)) return
  const text = t.sawAssistant && t.segs > 0 ? '' : chatText(ev)
  const f = footer(d, t.runId)
  switch (ev.state) {
    case 'delta': {
      if (!text) return
      // Fallback path: only chat projection is available for this run.
      const seg = t.openSeg ? d.get<AssistantItem>(t.openSeg) : undefined
      if (!seg) openSegment(d, t, ev.message?.timestamp ?? 0, { text })
      else if (text.length >= seg.text.length) d.patch<AssistantItem>(seg.key, { text })
      return
    }
    case 'final': {
      if (!t.sawAssistant && t.segs === 0 && text) openSegment(d, t, ev.message?.timestamp ?? 0, { text })
      const ts = ev.message?.timestamp ?? f?.endedAt ?? Date.now()
      if (!t.terminal) markTerminal(d, t, ts, { status: 'done' })
      if (f && ev.usage) d.patch<RunItem>(f.key, { usage: ev.usage })
      return
    }
    case 'aborted': {
      if (!t.sawAssistant && t.segs === 0 && text) openSegment(d, t, ev.message?.timestamp ?? 0, { text })
      const timedOut = ev.stopReason === 'timeout'
      if (!t.terminal) markTerminal(d, t, ev.message?.timestamp ?? Date.now(), timedOut ? { status: 'error', error: TIMED_OUT } : { status: 'stopped', ...stopCauseOf(ev.stopReason) }, true)
      // the lifecycle end came first without the cause (an older runtime): the chat event's still says it
      else if (f?.status === 'stopped' && !f.stopCause && stopCauseOf(ev.stopReason).stopCause) d.patch<RunItem>(f.key, stopCauseOf(ev.stopReason))
      if (f && ev.usage) d.patch<RunItem>(f.key, { usage: ev.usage })
      return
    }
    case 'error': {
      const message = readableError(ev.errorMessage) || 'The model returned an error'
      if (!t.terminal) markTerminal(d, t, Date.now(), { status: 'error', error: message })
      else if (f && f.status === 'error' && !f.error) d.patch<RunItem>(f.key, { error: message })
      if (f && ev.usage) d.patch<RunItem>(f.key, { usage: ev.usage })
      return
    }
  }
}

// ------------------------------------------------------------------------------------------- approvals / queue

function applyApprovalRequested(d: Draft, req: ExecApprovalRequest) {
  const key = approvalKey(req.id)
  if (d.find(key) >= 0) return
  const item: Item = { kind: 'approval', key, runId: req.runId, ts: req.createdAt, request: req }
  const toolAt = req.toolCallId ? d.find(toolKey(req.toolCallId)) : -1
  if (toolAt >= 0 && !(d.items[toolAt] as ToolItem).approval?.decision) d.patch<ToolItem>(toolKey(req.toolCallId), { approval: { askedAt: req.createdAt } })
  if (toolAt >= 0) d.insertAt(toolAt + 1, { ...item, onTool: true })
  else if (d.runs[req.runId]) d.insertInRun(req.runId, item)
  else {
    ensureRun(d, req.runId, req.createdAt)
    d.insertInRun(req.runId, item)
  }
}

/** The answer goes on the approval card and on its tool card, which keeps it after a reload drops the approval card. */
function applyApprovalDecided(d: Draft, id: string, outcome: Pick<ToolApproval, 'decision' | 'resolvedBy' | 'resolvedAt'>) {
  const key = approvalKey(id)
  const before = d.get<ApprovalItem>(key)
  // the local answer has no runtime time; the runtime's resolved event that follows brings it
  const resolvedAt = outcome.resolvedAt ?? before?.resolvedAt
  d.patch<ApprovalItem>(key, { ...outcome, resolvedAt })
  const toolCallId = before?.request.toolCallId
  const tool = toolCallId ? d.get<ToolItem>(toolKey(toolCallId)) : undefined
  if (!tool) return
  d.patch<ToolItem>(tool.key, { approval: { askedAt: tool.approval?.askedAt ?? before?.request.createdAt, ...outcome, resolvedAt } })
  d.patch<ApprovalItem>(key, { onTool: true })
}

/** A rebuild from history has no approvals in it: tool cards keep the answers already seen. */
function keepApprovalOutcomes(d: Draft, base: Transcript) {
  for (const it of base.items) {
    if (it.kind !== 'tool' || !it.approval?.decision) continue
    const now = d.get<ToolItem>(it.key)
    if (now && !now.approval?.decision) d.patch<ToolItem>(it.key, { approval: it.approval })
  }
}

/**
 * A run's warning (Ollama read only part of the prompt) comes with the run's messages in history
 * (`contextTruncated`) once written; until then (and from a transcript written before it was stored) a refetch
 * rebuilding the footer keeps it from the transcript it replaces or from the events it was given.
 */
function keepRunWarnings(d: Draft, recent: AgentEvent[], base: Transcript) {
  const warnings = new Map<string, string>()
  const modelNotes = new Map<string, string>()
  for (const it of base.items) {
    if (it.kind === 'run' && it.warning) warnings.set(it.runId, it.warning)
    if (it.kind === 'run' && it.modelNote) modelNotes.set(it.runId, it.modelNote)
  }
  for (const ev of recent) {
    const data = ev.data as Record<string, unknown>
    if (ev.stream === 'error' && data.reason === 'context_truncated' && typeof data.message === 'string') warnings.set(ev.runId, data.message)
    if (ev.stream === 'error' && data.reason === 'model_changed' && typeof data.message === 'string') modelNotes.set(ev.runId, data.message)
  }
  for (const [runId, warning] of warnings) {
    const now = d.get<RunItem>(runKey(runId))
    if (now && !now.warning) d.patch<RunItem>(now.key, { warning })
  }
  for (const [runId, modelNote] of modelNotes) {
    const now = d.get<RunItem>(runKey(runId))
    if (now && !now.modelNote) d.patch<RunItem>(now.key, { modelNote })
  }
}

/**
 * A run whose "Stop and retry" gave up waiting: history has no trace of that wish (a plain Stop ends a run the same
 * way), so the rebuilt item takes it from the item it replaces, or from what the window kept (`wanted`, a reload):
 * once stopped, its footer offers Retry rather than Regenerate.
 */
function keepRetryWanted(d: Draft, base: Transcript, wanted: string | undefined) {
  const runIds = new Set<string>()
  for (const it of base.items) if (it.kind === 'run' && it.stopRetryTimedOut) runIds.add(it.runId)
  if (wanted) runIds.add(wanted)
  for (const runId of runIds) {
    const now = d.get<RunItem>(runKey(runId))
    if (now && !now.stopRetryTimedOut) d.patch<RunItem>(now.key, { stopRetryTimedOut: true })
  }
}

function applyQueue(d: Draft, items: QueueItem[]) {
  // A queued follow-up that started a run: show its text as that run's user message. Messages
  // "collected" into one run are all shown, in queue (= batch) order, as that run's messages — the same items
  // (and keys) history's collect prompt gives after a reload.
  const byRun = new Map<string, QueueItem[]>()
  for (const q of items) {
    if ((q.status !== 'started' && q.status !== 'collected') || !q.runId) continue
    const list = byRun.get(q.runId) ?? []
    list.push(q)
    byRun.set(q.runId, list)
  }
  for (const [runId, list] of byRun) {
    if (d.find(userKey(runId, 0)) >= 0) continue
    const collect = list.length > 1 || list[0].status === 'collected'
    // the runtime lists a batch in its prompt's order (the user may have reordered the queue): keep it
    const t = ensureRun(d, runId, Math.min(...list.map((q) => q.enqueuedAt)), 'pending')
    let at = d.items.findIndex((it) => it.runId === runId)
    if (at < 0) at = d.items.length
    list.forEach((q, n) => {
      const user: UserItem = { kind: 'user', key: userKey(runId, n), runId, ts: q.enqueuedAt, text: q.text, ...(collect ? { via: 'collect' as const } : {}) }
      d.insertAt(at + n, user)
    })
    t.users = Math.max(t.users, list.length)
  }
}

// ------------------------------------------------------------------------------------------- local actions

function applyLocalSend(d: Draft, a: Extract<Action, { type: 'local.send' }>) {
  const user: UserItem = { kind: 'user', key: userKey(a.id, 0), runId: a.id, ts: a.ts, text: a.text, pending: true, ...(a.files ? { files: true } : {}) }
  d.push(user)
  const t = d.runs[a.id] ? d.track(a.id)! : d.addTrack(a.id)
  t.users = Math.max(t.users, 1)
  if (d.find(runKey(a.id)) < 0) d.push({ kind: 'run', key: runKey(a.id), runId: a.id, ts: a.ts, status: 'pending' } as RunItem)
}

function dropLocalRun(d: Draft, id: string) {
  d.remove(runKey(id))
  d.deleteTrack(id)
}

function applySendResult(d: Draft, a: Extract<Action, { type: 'local.sendResult' }>) {
  const r = a.result
  const localKey = userKey(a.id, 0)
  const local = d.get<UserItem>(localKey)
  if (r.status === 'queued') {
    // The message waits in the session queue (shown by the composer), not in the transcript.
    d.remove(localKey)
    dropLocalRun(d, a.id)
    return
  }
  if (r.status === 'steered') {
    d.remove(localKey)
    dropLocalRun(d, a.id)
    if (r.runId) applySteered(d, { type: 'local.steered', runId: r.runId, text: a.text, ts: a.ts })
    return
  }
  if (r.status === 'command') {
    if (local) d.patch<UserItem>(localKey, { pending: false, runId: undefined })
    if (!r.runId || r.runId !== a.id) dropLocalRun(d, a.id)
    return
  }
  const runId = r.runId
  if (!local) return
  if (runId === a.id) {
    if (r.status === 'error') markTerminal(d, d.track(runId)!, a.ts, { status: 'error', error: 'The run failed' })
    // the runtime has the message: no longer "Sending…", even while the run's first step is a tool
    // waiting for approval rather than text
    else if (local.pending) d.patch<UserItem>(localKey, { pending: false })
    return
  }
  // The runtime chose its own runId: re-key the optimistic items to it.
  const realExists = !!d.runs[runId]
  const localTrack = d.runs[a.id]
  if (realExists) {
    dropLocalRun(d, a.id)
  } else {
    const f = footer(d, a.id)
    d.deleteTrack(a.id)
    d.addTrack(runId, { ...(localTrack ?? {}), runId })
    if (f) d.patch<RunItem>(f.key, { key: runKey(runId), runId })
  }
  const t = d.track(runId)!
  t.users = Math.max(t.users, 1)
  const realUser = userKey(runId, 0)
  if (d.find(realUser) >= 0) d.remove(localKey)
  else d.patch<UserItem>(localKey, { key: realUser, runId, pending: false })
}

function applySteered(d: Draft, a: Extract<Action, { type: 'local.steered' }>) {
  const t = d.track(a.runId) ?? ensureRun(d, a.runId, a.ts)
  const n = Math.max(t.users, 1)
  const key = userKey(a.runId, n)
  if (d.find(key) >= 0) return
  t.users = n + 1
  // The model reads a steer at its next turn boundary: the message it is writing now finishes above
  // the steer (it stays the open segment), and the next message starts below it — the order the
  // transcript will have.
  d.insertInRun(a.runId, { kind: 'user', key, runId: a.runId, ts: a.ts, text: a.text, via: 'steer' })
}

// ------------------------------------------------------------------------------------------- history

interface PiPart {
  type?: string
  text?: string
  thinking?: string
  id?: string
  name?: string
  arguments?: unknown
}

function parts(content: unknown): PiPart[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }]
  return Array.isArray(content) ? (content.filter((p) => p && typeof p === 'object') as PiPart[]) : []
}

export function messageText(content: unknown): string {
  return parts(content)
    .map((p) => (p.type === 'text' && typeof p.text === 'string' ? p.text : ''))
    .join('')
}

function usageOf(u: unknown): UsageTotals | undefined {
  if (!u || typeof u !== 'object') return undefined
  const o = u as Record<string, unknown>
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0)
  const cost = o.cost && typeof o.cost === 'object' ? n((o.cost as Record<string, unknown>).total) : n(o.costUsd)
  const input = n(o.input)
  const output = n(o.output)
  return {
    input,
    output,
    cacheRead: n(o.cacheRead),
    cacheWrite: n(o.cacheWrite),
    totalTokens: n(o.totalTokens) || n(o.total) || input + output,
    costUsd: cost,
  }
}

function addUsage(a: UsageTotals | undefined, b: UsageTotals | undefined): UsageTotals | undefined {
  if (!a) return b
  if (!b) return a
  return {
    input: a.input + b.input,
    output: a.output + b.output,
    cacheRead: a.cacheRead + b.cacheRead,
    cacheWrite: a.cacheWrite + b.cacheWrite,
    totalTokens: a.totalTokens + b.totalTokens,
    costUsd: a.costUsd + b.costUsd,
  }
}

interface HistRun {
  runId: string
  firstTs: number
  lastTs: number
  usage?: UsageTotals
  status: RunItem['status']
  error?: string
  hasAssistant: boolean
  /** the last assistant message stopped at the output limit */
  notice?: 'length'
  /** a reply that said nothing (history's `silent` row: NO_REPLY) */
  silent?: boolean
  /** something of the run shows: reply text or a tool card */
  shown?: boolean
  /** a crash cut it off (recovery's closing message, or no reply at all) */
  interrupted?: boolean
  /** the run's user message is on this page (the whole run is: a page may start mid-run) */
  sawUser?: boolean
  /** the model wrote text in the run, or delivered some with the message tool (else: lifecycle end `emptyReply`) */
  wrote?: boolean
  /** Ollama read only part of a prompt of the run (the note stored with that model call's message) */
  warning?: string
  /** the run moved the session to the default model (the note stored with its first reply) */
  modelNote?: string
  /** stopped by the runtime's shutdown (the reply's persisted abort mark, `openclawAbort.origin`) */
  stopCause?: 'shutdown'
}

/**
 * What history paging tells historyItems about the messages around a page: a call and its result
 * can be on two pages (pages cut runs anywhere).
 */
interface PageEdge {
  /** results of calls this page may hold, from pages loaded before (newer ones) */
  results?: Readonly<Record<string, ToolOutcome>>
  /** filled with this page's results whose call is not on it (it is on an older page) */
  orphans?: Record<string, ToolOutcome>
  /** the page's last run continues on a newer page: its calls' results may be there */
  openEndRun?: string
  /** leave the rows' stored reasoning out (Transcript.hideReasoning) */
  hideReasoning?: boolean
}

function withOutcome(tool: ToolItem, o: ToolOutcome): ToolItem {
  return { ...tool, status: o.isError ? 'failed' : 'done', result: o.result, endedAt: o.endedAt }
}

/** Converts history messages to items (oldest first). `skipRun`: drop non-user messages of that run. */
function historyItems(
  messages: HistoryMessage[],
  runs: Record<string, RunTrack>,
  skipRun?: string,
  liveRuns?: Set<string>,
  edge: PageEdge = {},
): Item[] {
  const out: Item[] = []
  const toolIndex = new Map<string, number>()
  let cur: HistRun | undefined
  let openSeg: AssistantItem | undefined
  const created = new Set<string>()
  const track = (runId: string): RunTrack => {
    if (!created.has(runId)) {
      // Never mutate a track owned by a previous state.
      runs[runId] = runs[runId]
        ? { ...runs[runId], buffer: runs[runId].buffer.slice() }
        : { runId, nextSeq: 1, buffer: [], segs: 0, users: 0, sawAssistant: true, terminal: true }
      created.add(runId)
    }
    return runs[runId]
  }
  const closeRun = () => {
    // A finished run with no reply at all: the app stopped before answering (a crash; recovery put the
    // acknowledged message back). Say so instead of leaving an unexplained, unanswered message.
    if (cur && !cur.hasAssistant && !liveRuns?.has(cur.runId)) {
      cur.status = 'error'
      cur.error = INTERRUPTED
      cur.interrupted = true
      cur.hasAssistant = true
    }
    if (cur && cur.hasAssistant && !liveRuns?.has(cur.runId)) {
      // the model chose to say nothing and nothing else of the run shows: a quiet "No reply", as live; it wrote
      // nothing at all (the runtime's `emptyReply`, judged over the whole run: only when its start is on this page)
      const notice =
        cur.notice ??
        (cur.silent && !cur.shown && cur.status === 'done' ? 'silent' : undefined) ??
        (!cur.wrote && !cur.silent && cur.sawUser && cur.status === 'done' ? 'empty' : undefined)
      // an interrupted run's end is when it was last seen alive; when nothing after its message was, its
      // duration is unknown (not "0 ms")
      const timed = !cur.interrupted || cur.lastTs > cur.firstTs
      out.push({
        kind: 'run',
        key: runKey(cur.runId),
        runId: cur.runId,
        ts: cur.lastTs,
        status: cur.status,
        ...(timed ? { startedAt: cur.firstTs, endedAt: cur.lastTs } : {}),
        error: cur.error,
        usage: cur.usage,
        ...(notice ? { notice } : {}),
        ...(cur.interrupted ? { interrupted: true } : {}),
        ...(cur.warning ? { warning: cur.warning } : {}),
        ...(cur.modelNote ? { modelNote: cur.modelNote } : {}),
        ...(cur.status === 'stopped' && cur.stopCause ? { stopCause: cur.stopCause } : {}),
      })
    }
    cur = undefined
    openSeg = undefined
  }
  for (const m of messages) {
    if (!m || typeof m !== 'object') continue
    const runId = typeof m.runId === 'string' ? m.runId : undefined
    if (runId !== cur?.runId) {
      closeRun()
      if (runId) cur = { runId, firstTs: m.timestamp, lastTs: m.timestamp, status: 'done', hasAssistant: false }
    }
    // a message's own timestamp is when it started (an assistant reply: its stream's start): the run
    // lasted until the last one was written
    if (cur) cur.lastTs = Math.max(cur.lastTs, m.completedAt ?? 0, m.timestamp ?? 0)
    if (runId && runId === skipRun && m.role !== 'user') continue
    switch (m.role) {
      case 'user': {
        if (cur) cur.sawUser = true
        const text = messageText(m.content)
        const collected = runId ? collectedTexts(text) : undefined
        if (runId && collected) {
          // Queued messages the runtime sent together: one item each, as the live view showed them.
          for (const c of collected) out.push({ kind: 'user', key: userKey(runId, track(runId).users++), runId, ts: m.timestamp, text: c, via: 'collect', msg: m.id })
          break
        }
        const key = runId ? userKey(runId, track(runId).users++) : `h:${m.id}`
        out.push({ kind: 'user', key, runId, ts: m.timestamp, text, msg: m.id })
        break
      }
      case 'assistant': {
        openSeg = undefined // each message starts a new segment
        const msgStart = out.length
        const t = runId ? track(runId) : undefined
        const newSeg = (init: Partial<AssistantItem>): AssistantItem => {
          const seg: AssistantItem = {
            kind: 'assistant',
            key: t ? segKey(t.runId, t.segs++) : `h:${m.id}:${out.length}`,
            runId,
            ts: m.timestamp,
            text: '',
            streaming: false,
            msg: m.id,
            ...init,
          }
          out.push(seg)
          return seg
        }
        for (const p of parts(m.content)) {
          if (p.type === 'thinking' && typeof p.thinking === 'string' && p.thinking) {
            if (edge.hideReasoning) continue
            if (openSeg && openSeg.text === '') openSeg.reasoning = (openSeg.reasoning ?? '') + p.thinking
            else openSeg = newSeg({ reasoning: p.thinking })
          } else if (p.type === 'text' && typeof p.text === 'string' && p.text) {
            if (cur && p.text.trim()) cur.wrote = true
            if (openSeg) openSeg.text += p.text
            else openSeg = newSeg({ text: p.text })
          } else if (p.type === 'toolCall' && typeof p.id === 'string') {
            // the message tool delivered the run's text
            if (cur && p.name === 'message') cur.wrote = true
            openSeg = undefined
            const key = toolKey(p.id)
            toolIndex.set(p.id, out.length)
            out.push({
              kind: 'tool',
              key,
              runId,
              ts: m.timestamp,
              toolCallId: p.id,
              name: p.name ?? 'tool',
              args: p.arguments,
              status: 'running',
              startedAt: m.timestamp,
              msg: m.id,
            })
          }
        }
        // Long texts become the same continuation rows streaming produced.
        sealHistorySegments(out, msgStart, t)
        const last = out[out.length - 1]
        if (last && last.kind === 'assistant') openSeg = last
        const stopped = m.aborted || m.stopReason === 'aborted'
        if (stopped && openSeg) openSeg.stopped = true
        if (cur) {
          cur.hasAssistant = true
          if (m.silent) cur.silent = true
          if (m.contextTruncated?.message) cur.warning ??= m.contextTruncated.message
          if (m.modelChanged?.message) cur.modelNote ??= m.modelChanged.message
          if (out.slice(msgStart).some((it) => it.kind === 'tool' || (it.kind === 'assistant' && it.text))) cur.shown = true
          cur.usage = addUsage(cur.usage, usageOf(m.usage))
          cur.interrupted = m.interrupted === true
          if (stopped) {
            cur.status = 'stopped'
            cur.stopCause = m.openclawAbort?.origin === 'shutdown' ? 'shutdown' : undefined
          } else if (m.stopReason === 'error' || m.errorMessage) {
            cur.status = 'error'
            cur.error = readableError(m.errorMessage) || 'The model returned an error'
          } else {
            cur.status = 'done'
            cur.notice = m.stopReason === 'length' ? 'length' : undefined
          }
        }
        break
      }
      case 'toolResult': {
        const at = m.toolCallId ? toolIndex.get(m.toolCallId) : undefined
        if (at === undefined) {
          // its call is on an older page: keep the result for when that page is loaded
          if (m.toolCallId && edge.orphans)
            edge.orphans[m.toolCallId] = { runId, isError: !!m.isError, result: historyResult(m), endedAt: m.timestamp }
          break
        }
        const tool = out[at] as ToolItem
        out[at] = {
          ...tool,
          status: m.isError ? 'failed' : 'done',
          result: historyResult(m),
          endedAt: m.timestamp,
          resultMsg: m.id,
        }
        break
      }
      case 'compaction':
        out.push({ kind: 'compaction', key: `c:${m.id}`, runId, ts: m.timestamp, summary: m.summary ?? messageText(m.content), msg: m.id })
        break
      default:
        break
    }
  }
  closeRun()
  // Tools whose result never arrived in a finished run were interrupted — unless the result is on a
  // newer page (known, or not loaded: the run goes on past this page).
  for (const i of toolIndex.values()) {
    const tool = out[i] as ToolItem
    if (tool.status !== 'running' || (tool.runId && liveRuns?.has(tool.runId))) continue
    const known = edge.results?.[tool.toolCallId]
    if (known) out[i] = withOutcome(tool, known)
    else out[i] = { ...tool, status: tool.runId && tool.runId === edge.openEndRun ? 'unknown' : 'interrupted' }
  }
  return out
}

/** Splits long assistant segments of one history message (out[from…]) into continuation items. */
function sealHistorySegments(out: Item[], from: number, t: RunTrack | undefined) {
  for (let i = from; i < out.length; i++) {
    const it = out[i]
    if (it.kind !== 'assistant' || it.text.length < SEAL_CHARS) continue
    const pieces = sealParts(it.text)
    if (pieces.length < 2) continue
    let offset = (it.offset ?? 0) + pieces[0].length
    const extra: AssistantItem[] = pieces.slice(1).map((text, j) => {
      const piece: AssistantItem = { ...it, key: t ? '' : `${it.key}:${j + 1}`, reasoning: undefined, text, cont: true, offset }
      offset += text.length
      return piece
    })
    out.splice(i, 1, { ...it, text: pieces[0] }, ...extra)
    i += extra.length
  }
  // Keys follow creation order, like live segments.
  if (t) {
    let n = t.segs - out.slice(from).filter((it) => it.kind === 'assistant' && it.key !== '').length
    for (let i = from; i < out.length; i++) {
      const it = out[i]
      if (it.kind === 'assistant') out[i] = { ...it, key: segKey(t.runId, n++) }
    }
    t.segs = n
  }
}

function hydrate(base: Transcript, a: Extract<Action, { type: 'hydrate' }>): Transcript {
  const h = a.history
  const recent = a.recent?.events ?? []
  const byRun = new Map<string, AgentEvent[]>()
  for (const ev of recent) {
    if (!ev || typeof ev.runId !== 'string') continue
    const list = byRun.get(ev.runId) ?? []
    list.push(ev)
    byRun.set(ev.runId, list)
  }
  for (const list of byRun.values()) list.sort((x, y) => x.seq - y.seq)
  // A refetch of the newest part keeps the older part (history paging): see history-paging.ts.
  const p = a.paging
  const keep = !!p?.keepOlder && base.older > 0
  const keptItems = keep ? base.items.slice(0, base.older) : []
  const recentBase: Transcript = keep ? { ...base, items: base.items.slice(base.older), older: 0 } : base
  const inRuns = new Set<string>()
  for (const m of h.messages) if (typeof m.runId === 'string') inRuns.add(m.runId)
  for (const m of p?.frozen ?? []) if (typeof m.runId === 'string') inRuns.add(m.runId)
  for (const it of keptItems) if (it.runId) inRuns.add(it.runId)
  // runs history has more of than their message (a reply, a tool turn, a closing error)
  const answered = new Set<string>()
  for (const m of [...h.messages, ...(p?.frozen ?? [])]) if (typeof m.runId === 'string' && m.role !== 'user') answered.add(m.runId)
  const inFlight = h.inFlightRun?.runId
  // Runs rebuilt from their events: the in-flight run (if its events are complete) and runs newer
  // than the history snapshot. The event ring also holds runs older than the loaded history (their
  // messages are on older pages): those started before its first message and are not replayed.
  const firstTs = p?.frozen[0]?.timestamp ?? h.messages[0]?.timestamp
  const replay = new Set<string>()
  for (const [runId, list] of byRun) {
    const complete = list[0].seq === 1
    const olderThanHistory = firstTs !== undefined && list[0].ts < firstTs
    // a run that failed with only its message written (the disk refused its reply): what it streamed is in its
    // events alone, so they draw it, above its error (recovery writes it at the next start)
    const replyLost = complete && inRuns.has(runId) && !answered.has(runId) && list.some((e) => e.stream === 'lifecycle' && e.data.phase === 'error')
    if (runId === inFlight ? complete : replyLost || (!inRuns.has(runId) && !olderThanHistory)) replay.add(runId)
  }
  const runs: Record<string, RunTrack> = {}
  const live = new Set<string>(replay)
  if (inFlight) live.add(inFlight)
  const orphans: Record<string, ToolOutcome> = {}
  // a delta resync's page has no level: the last one read holds
  const hideReasoning = h.reasoningLevel !== undefined ? h.reasoningLevel === 'off' : !!base.hideReasoning
  const items = historyItems(h.messages, runs, inFlight && replay.has(inFlight) ? inFlight : undefined, live, { orphans, hideReasoning })
  const d = new Draft({ ...emptyTranscript(base.sessionKey), items, runs })
  // Events of runs already complete in history: remember their seq so late duplicates are dropped.
  for (const [runId, list] of byRun) {
    if (replay.has(runId) || runId === inFlight) continue
    const t = d.track(runId) ?? d.addTrack(runId, { sawAssistant: true, terminal: runId !== inFlight })
    t.nextSeq = Math.max(t.nextSeq, list[list.length - 1].seq + 1)
  }
  // The in-flight run whose events are incomplete: keep history's part, continue live from here.
  if (inFlight && !replay.has(inFlight)) {
    const t = d.track(inFlight) ?? d.addTrack(inFlight)
    t.terminal = false
    if (d.find(runKey(inFlight)) < 0) d.push({ kind: 'run', key: runKey(inFlight), runId: inFlight, ts: Date.now(), status: 'running' } as RunItem)
    if (h.inFlightRun?.text) {
      const seg = openSegment(d, t, Date.now(), { text: h.inFlightRun.text })
      t.sawAssistant = true
      t.openSeg = seg.key
    }
    // Apply the events we do have; older assistant snapshots are already in history, only the
    // newest one can extend the streamed text.
    const list = byRun.get(inFlight) ?? []
    const lastText = [...list].reverse().find((e) => e.stream === 'assistant')
    if (list.length) t.nextSeq = list[0].seq
    for (const ev of list) {
      if ((ev.stream === 'assistant' && ev !== lastText) || ev.stream === 'thinking') {
        const tr = d.track(inFlight)!
        if (ev.seq === tr.nextSeq) tr.nextSeq = ev.seq + 1
        continue
      }
      // a finished reasoning block's text may be in history already (as thinking is): only its end counts
      if (ev.stream === 'reasoning' && ev.data.text !== undefined) applyAgent(d, { ...ev, data: { phase: ev.data.phase } })
      else applyAgent(d, ev)
    }
  }
  for (const runId of replay) {
    const list = byRun.get(runId)!
    const t = d.track(runId)
    if (t) {
      // Keep the user message count from history; rebuild everything else from events.
      t.segs = 0
      t.terminal = false
      t.sawAssistant = false
      t.nextSeq = list[0].seq
    } else d.addTrack(runId, { nextSeq: list[0].seq })
    const into = list.map(foldTarget).find((x) => x)
    if (into !== undefined) applyFolded(d, runId, into, list[list.length - 1].seq)
    else if (!t && neverStarted(list[0])) applyNeverStarted(d, runId, list[list.length - 1].seq)
    else ensureRun(d, runId, list[0].ts)
    for (const ev of list) applyAgent(d, ev)
  }
  // the same, when the ring no longer has its events whole (a long reply): what this window streamed stays
  const lost = new Set<string>()
  for (const runId of inRuns) if (!answered.has(runId) && !replay.has(runId) && runId !== inFlight) lost.add(runId)
  if (lost.size) keepStreamedReplies(d, recentBase, lost)
  for (const req of a.recent?.approvals ?? []) applyApprovalRequested(d, req)
  keepApprovalOutcomes(d, recentBase)
  d.loaded = true
  keepLocalUsers(d, recentBase)
  applyEventTimings(d, recent, recentBase)
  keepRunWarnings(d, recent, recentBase)
  keepRetryWanted(d, recentBase, a.retryWanted)
  const part = d.result()
  // Stitch: kept older part, then the messages that leave the refetched part, then the refetched part.
  const olderRuns: Record<string, RunTrack> = {}
  const frozenItems = p?.frozen.length ? historyItems(p.frozen, olderRuns, undefined, undefined, { results: orphans, orphans, hideReasoning }) : []
  // Calls shown from older pages whose result was not loaded then: the refetched part may have it.
  for (let i = 0; i < keptItems.length; i++) {
    const it = keptItems[i]
    if (it.kind === 'tool' && it.status === 'unknown' && orphans[it.toolCallId]) keptItems[i] = withOutcome(it, orphans[it.toolCallId])
  }
  const toolResults = unresolved({ ...(keep ? (base.toolResults ?? {}) : {}), ...orphans }, [keptItems, frozenItems, part.items])
  for (const it of keptItems) if (it.runId && base.runs[it.runId] && !olderRuns[it.runId]) olderRuns[it.runId] = base.runs[it.runId]
  const older = keptItems.length + frozenItems.length
  let olderIds: ReadonlySet<string> = keep ? base.olderIds : new Set<string>()
  if (p?.frozen.length) {
    const ids = new Set(olderIds)
    for (const m of p.frozen) ids.add(m.id)
    olderIds = ids
  }
  const next: Transcript = {
    ...part,
    items: older ? [...keptItems, ...frozenItems, ...part.items] : part.items,
    runs: older ? { ...olderRuns, ...part.runs } : part.runs,
    older,
    olderIds,
    recentIds: new Set(h.messages.map((m) => m.id)),
    anchorId: h.messages[0]?.id,
    anchorCount: h.messages.length,
    recentMessages: h.messages,
    historyCursor: h.deltaCursor,
    damaged: h.damagedLines ? { lines: h.damagedLines, file: h.transcriptFile ?? '' } : undefined,
    toolResults,
    hideReasoning,
    // Without paging info (tests, older callers) the page itself is the cursor.
    hasMore: p ? (keep ? base.hasMore : p.more) : !!h.hasMore,
    nextOffset: p ? p.rows + (keep ? base.olderIds.size : 0) : h.nextOffset,
  }
  next.msgKeys = msgKeysOf(next.items, keep ? base.msgKeys : undefined)
  return shareUnchanged(next, base)
}

/** Which item shows each history row (its first item; a tool result: its call's card), added to `into`. */
function msgKeysOf(items: readonly Item[], into?: ReadonlyMap<string, string>): ReadonlyMap<string, string> {
  const out = new Map(into)
  for (const it of items) {
    if (it.msg && !out.has(it.msg)) out.set(it.msg, it.key)
    if (it.kind === 'tool' && it.resultMsg && !out.has(it.resultMsg)) out.set(it.resultMsg, it.key)
  }
  return out
}

/** Same display: ignores timestamps and the streaming-only `partial`; absent ≡ undefined ≡ false. */
function sameItem(a: Item, b: Item): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)])
  for (const k of keys) {
    // (which row an item came from is kept in Transcript.msgKeys, so a live item may stand for it)
    if (k === 'ts' || k === 'partial' || k === 'msg' || k === 'resultMsg') continue
    const x = (a as unknown as Record<string, unknown>)[k] ?? false
    const y = (b as unknown as Record<string, unknown>)[k] ?? false
    if (x === y) continue
    // args / results / usage are small JSON values
    if (typeof x === 'object' && x !== null && typeof y === 'object' && y !== null && JSON.stringify(x) === JSON.stringify(y)) continue
    return false
  }
  return true
}

/** Reuses the previous item objects that a refetch reproduced unchanged, so memoized rows don't re-render. */
function shareUnchanged(next: Transcript, base: Transcript): Transcript {
  if (!base.items.length) return next
  const byKey = new Map(base.items.map((it) => [it.key, it]))
  let changed = false
  const items = next.items.map((it) => {
    const old = byKey.get(it.key)
    if (old && old !== it && sameItem(old, it)) {
      changed = true
      return old
    }
    return it
  })
  return changed ? { ...next, items } : next
}

/**
 * History only has message timestamps. Tool and run durations measured from their events (the
 * recent-event ring, or what this window saw live) replace the estimates, so a refetch or reload
 * shows the same durations as the live view did.
 */
function applyEventTimings(d: Draft, recent: AgentEvent[], base: Transcript) {
  const tools = new Map<string, { startedAt?: number; endedAt?: number }>()
  const runs = new Map<string, { startedAt?: number; endedAt?: number; error?: string }>()
  for (const ev of recent) {
    const data = ev.data as Record<string, unknown>
    if (ev.stream === 'tool' && typeof data.toolCallId === 'string') {
      const t = tools.get(data.toolCallId) ?? {}
      if (data.phase === 'start') t.startedAt = ev.ts
      if (data.phase === 'result') t.endedAt = ev.ts
      tools.set(data.toolCallId, t)
    } else if (ev.stream === 'lifecycle') {
      const r = runs.get(ev.runId) ?? {}
      if (data.phase === 'start') r.startedAt = (data.startedAt as number) ?? ev.ts
      else {
        r.endedAt = (data.endedAt as number) ?? ev.ts
        r.startedAt = (data.startedAt as number) ?? r.startedAt
        if (data.phase === 'error' && typeof data.error === 'string') r.error = data.error
      }
      runs.set(ev.runId, r)
    }
  }
  for (const it of base.items) {
    if (it.kind === 'tool' && it.timed && !tools.has(it.toolCallId)) tools.set(it.toolCallId, { startedAt: it.startedAt, endedAt: it.endedAt })
    if (it.kind === 'run' && it.timed && !runs.has(it.runId)) runs.set(it.runId, { startedAt: it.startedAt, endedAt: it.endedAt, error: it.error })
  }
  for (let i = 0; i < d.items.length; i++) {
    const it = d.items[i]
    if (it.kind === 'tool' && !it.timed) {
      const t = tools.get(it.toolCallId)
      if (t?.startedAt !== undefined) d.patch<ToolItem>(it.key, { startedAt: t.startedAt, endedAt: t.endedAt ?? it.endedAt, timed: true })
    } else if (it.kind === 'run' && !it.timed && (it.status === 'done' || it.status === 'error' || it.status === 'stopped')) {
      const r = runs.get(it.runId)
      if (r?.startedAt !== undefined && r.endedAt !== undefined)
        d.patch<RunItem>(it.key, { startedAt: r.startedAt, endedAt: r.endedAt, timed: true, ...(it.status === 'error' && r.error ? { error: r.error } : {}) })
    }
  }
}

/** Provider errors often arrive as `401: {"error":{"message":…}}`; show the provider's message. */
export function readableError(raw: string | undefined): string | undefined {
  const text = raw?.trim()
  if (!text) return undefined
  const m = /^(\d{3})(?:\s+status code)?[:\s]\s*(\{.*\})\s*$/s.exec(text)
  const body = m ? m[2] : text.startsWith('{') ? text : undefined
  if (!body) return text
  try {
    const j = JSON.parse(body) as { error?: { message?: string } | string; message?: string }
    const inner = typeof j.error === 'string' ? j.error : (j.error?.message ?? j.message)
    if (typeof inner === 'string' && inner) return m ? `HTTP ${m[1]}: ${inner}` : inner
  } catch {
    // not JSON after all
  }
  return text
}

/**
 * User messages we showed that the history snapshot does not have yet (just sent, or steered into
 * a live run) survive a refetch, in their run.
 */
/**
 * Runs history has only the message of, which this window saw fail after streaming (a reply the disk refused):
 * the window's own items of the run — its text, tools, the footer with the error — take the place of history's
 * bare footer, so the reply stays above its error. (The next start's recovery writes it into history.)
 */
function keepStreamedReplies(d: Draft, base: Transcript, runIds: Set<string>) {
  for (const runId of runIds) {
    const mine = base.items.filter((it) => it.runId === runId && it.kind !== 'user')
    const footer = mine.find((it): it is RunItem => it.kind === 'run')
    if (footer?.status !== 'error' || !mine.some((it) => it.kind === 'assistant')) continue
    const own = base.runs[runId]
    if (!own?.terminal) continue
    let at = d.items.findLastIndex((it) => it.runId === runId && it.kind === 'user') + 1
    if (at === 0) continue // its message is not on this page
    d.remove(runKey(runId)) // history's footer comes after the message: `at` stays
    for (const it of mine) d.insertAt(at++, it)
    const t = d.track(runId) ?? d.addTrack(runId)
    Object.assign(t, { ...own, buffer: own.buffer.slice(), users: Math.max(t.users, own.users) })
  }
}

function keepLocalUsers(d: Draft, base: Transcript) {
  for (const u of base.items) {
    if (u.kind !== 'user' || !u.runId || d.find(u.key) >= 0) continue
    const t = d.runs[u.runId]
    if (t && t.terminal) continue // the runtime's transcript for that run is authoritative
    if (!t) {
      if (!u.pending) continue
      d.push(u)
      d.addTrack(u.runId, { users: 1 })
      d.push({ kind: 'run', key: runKey(u.runId), runId: u.runId, ts: u.ts, status: 'pending' } as RunItem)
      continue
    }
    if (u.key === userKey(u.runId, 0)) {
      const first = d.items.findIndex((it) => it.runId === u.runId)
      d.insertAt(first < 0 ? d.items.length : first, u)
    } else d.insertInRun(u.runId, u)
    const tr = d.track(u.runId)!
    tr.users = Math.max(tr.users, u.key === userKey(u.runId, 0) ? 1 : Number(u.key.split(':').pop()) + 1)
  }
}

/** Results whose call is not among these items (kept until the page with the call is loaded). */
function unresolved(results: Record<string, ToolOutcome>, lists: Item[][]): Record<string, ToolOutcome> {
  const ids = Object.keys(results)
  if (!ids.length) return results
  const shown = new Set<string>()
  for (const list of lists) for (const it of list) if (it.kind === 'tool') shown.add(it.toolCallId)
  const out: Record<string, ToolOutcome> = {}
  for (const id of ids) if (!shown.has(id)) out[id] = results[id]
  return out
}

/** An older page goes before everything shown (the controller already dropped messages shown). */
function prepend(base: Transcript, a: Extract<Action, { type: 'prepend' }>): Transcript {
  const runs: Record<string, RunTrack> = {}
  const msgs = a.history.messages
  // The page's last run may go on in what is shown (a page cuts runs anywhere).
  const lastRun = msgs.length ? msgs[msgs.length - 1].runId : undefined
  const known = base.toolResults ?? {}
  const continues =
    !!lastRun && (!!base.runs[lastRun] || base.items.some((it) => it.runId === lastRun) || Object.values(known).some((o) => o.runId === lastRun))
  const orphans: Record<string, ToolOutcome> = {}
  const older = historyItems(msgs, runs, undefined, undefined, { results: known, orphans, openEndRun: continues ? lastRun : undefined, hideReasoning: base.hideReasoning })
  const baseKeys = new Set(base.items.map((i) => i.key))
  // A run split by the page boundary: its footer is in the newer part; re-key colliding items.
  const tag = `p${a.history.messages[0]?.id ?? 'first'}:`
  const fixed = older
    .filter((it) => !(it.kind === 'run' && base.runs[it.runId]))
    .map((it) => (baseKeys.has(it.key) ? { ...it, key: tag + it.key } : it))
  const olderIds = new Set(base.olderIds)
  for (const m of a.history.messages) olderIds.add(m.id)
  return {
    ...base,
    items: fixed.length ? fixed.concat(base.items) : base.items,
    runs: { ...runs, ...base.runs },
    hasMore: !!a.history.hasMore,
    nextOffset: a.history.nextOffset,
    older: base.older + fixed.length,
    olderIds,
    toolResults: unresolved({ ...known, ...orphans }, [fixed]),
    msgKeys: msgKeysOf(fixed, base.msgKeys),
  }
}

// ------------------------------------------------------------------------------------------- entry points

function applyOne(d: Draft, a: Action) {
  switch (a.type) {
    case 'agent':
      return applyAgent(d, a.event)
    case 'chat':
      return applyChat(d, a.event)
    case 'approval.requested':
      return applyApprovalRequested(d, a.request)
    case 'approval.resolved':
      return applyApprovalDecided(d, a.resolved.id, { decision: a.resolved.decision, resolvedBy: a.resolved.resolvedBy, resolvedAt: a.resolved.ts })
    case 'local.approvalDecided':
      return applyApprovalDecided(d, a.id, { decision: a.decision, resolvedBy: 'user' })
    case 'queue':
      return applyQueue(d, a.items)
    case 'local.send':
      return applyLocalSend(d, a)
    case 'local.sendResult':
      return applySendResult(d, a)
    case 'local.sendFailed': {
      d.patch<UserItem>(userKey(a.id, 0), {
        pending: false,
        error: a.error,
        runId: undefined,
        failed: { id: a.id, retryable: a.retryable ?? true, restored: !!a.restored },
      })
      dropLocalRun(d, a.id)
      return
    }
    case 'local.sendWithdrawn':
      d.remove(userKey(a.id, 0))
      dropLocalRun(d, a.id)
      return
    case 'local.steered':
      return applySteered(d, a)
    case 'local.stopping': {
      const t = d.runs[a.runId]
      if (t && !t.terminal) d.patch<RunItem>(runKey(a.runId), { stopping: true })
      return
    }
    case 'local.stopFailed': {
      const t = d.runs[a.runId]
      if (t && !t.terminal) d.patch<RunItem>(runKey(a.runId), { stopping: false })
      return
    }
    case 'local.stopRetryTimedOut': {
      const t = d.runs[a.runId]
      if (t && !t.terminal) d.patch<RunItem>(runKey(a.runId), { stopRetryTimedOut: true })
      return
    }
    case 'local.stopSettle': {
      const t = d.track(a.runId)
      if (t && !t.terminal) markTerminal(d, t, a.ts, { status: 'stopped' }, true)
      return
    }
    case 'gap.flush': {
      for (const runId of a.runId ? [a.runId] : Object.keys(d.runs)) {
        const t = d.runs[runId]?.buffer.length ? d.track(runId) : undefined
        if (t) flushGap(d, t)
      }
      return
    }
    case 'hydrate':
    case 'prepend':
      return // handled in reduce()
  }
}

/** Applies a batch of actions; returns the same object when nothing changed. */
export function reduce(state: Transcript, actions: Action | Action[]): Transcript {
  const list = Array.isArray(actions) ? actions : [actions]
  let s = state
  let d: Draft | undefined
  for (const a of list) {
    if (a.type === 'hydrate' || a.type === 'prepend') {
      if (d) s = d.result()
      d = undefined
      s = a.type === 'hydrate' ? hydrate(s, a) : prepend(s, a)
      continue
    }
    if (!d) d = new Draft(s)
    applyOne(d, a)
  }
  return d ? d.result() : s
}

// ------------------------------------------------------------------------------------------- selectors

/** The run that is currently active (not terminal) in this transcript, newest first. */
export function activeRun(t: Transcript): RunItem | undefined {
  for (let i = t.items.length - 1; i >= 0; i--) {
    const it = t.items[i]
    if (it.kind === 'run' && it.status !== 'done' && it.status !== 'error' && it.status !== 'stopped') return it
  }
  return undefined
}

/**
 * The failed run a Retry may send again: the session's last turn ended in an error (a model error, a lost
 * connection, …) and nothing runs. Only the last turn: retrying an older one would answer out of order.
 * `stopped`: a stopped one too (the silence notice's "Stop and retry" stops the run, then retries it).
 */
export function retryableRun(t: Transcript | undefined, stopped?: boolean): string | undefined {
  if (!t || activeRun(t)) return undefined
  for (let i = t.items.length - 1; i >= 0; i--) {
    const it = t.items[i]
    if (it.kind === 'user' && it.runId === undefined) return undefined // a later message that was not sent
    if (it.kind !== 'run') continue
    if (it.status !== 'error' && !(stopped && it.status === 'stopped')) return undefined
    return t.items.some((u) => u.kind === 'user' && u.runId === it.runId) ? it.runId : undefined
  }
  return undefined
}

/** Runs that wait for a gap to fill. */
export function runsWithGaps(t: Transcript): string[] {
  return Object.values(t.runs)
    .filter((r) => r.buffer.length > 0)
    .map((r) => r.runId)
}
