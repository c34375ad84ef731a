// Display model of a session transcript: an ordered list of items derived from history and live events.
// Item keys are derived from server ids (runId, toolCallId, transcript ids) the same way on both
// paths, so a live transcript and the one rebuilt after a reload have identical keys and order.
import type { ApprovalDecision, ExecApprovalRequest, UsageTotals } from '../../../shared/events'
import type { HistoryMessage } from '../../../shared/methods'
import type { RunWaiting } from '../../../shared/lane-wait-text'
import type { SplitState } from '../markdown/blocks'

interface ItemBase {
  key: string
  runId?: string
  ts: number
  /** the history row (transcript message) it was built from: a search hit or find match scrolls to it */
  msg?: string
}

export interface UserItem extends ItemBase {
  kind: 'user'
  text: string
  /** sent, not yet acknowledged by the runtime */
  pending?: boolean
  /** injected into a running reply ('steer'), or one of several queued messages the runtime sent
   * together as one run ('collect') */
  via?: 'steer' | 'collect'
  /** send failed */
  error?: string
  /** a failed send: its idempotency key (a Retry withdraws this row), whether a Retry could work, and whether its text went back to the composer */
  failed?: { id: string; retryable: boolean; restored: boolean }
  /** a local echo of a message with attachments: a failed one is retried from the composer, which kept them */
  files?: boolean
}

export interface AssistantItem extends ItemBase {
  kind: 'assistant'
  text: string
  reasoning?: string
  /** still receiving text */
  streaming: boolean
  /** the run was stopped while this text streamed */
  stopped?: boolean
  /** continues the previous assistant item (a long text is split into rows of bounded size) */
  cont?: boolean
  /** where this item's text starts within the whole message (continuations) */
  offset?: number
}

/** 'unknown': history is paged and this call's result may be on a page not loaded yet */
export type ToolStatus = 'running' | 'done' | 'failed' | 'interrupted' | 'unknown'

/** A tool result from history whose call is not loaded yet (it is on an older page). */
export interface ToolOutcome {
  runId?: string
  isError: boolean
  result: unknown
  endedAt: number
}

export interface ToolItem extends ItemBase {
  kind: 'tool'
  toolCallId: string
  name: string
  args: unknown
  status: ToolStatus
  partial?: unknown
  result?: unknown
  meta?: string
  startedAt?: number
  endedAt?: number
  /** startedAt/endedAt come from the tool's own events (not estimated from transcript timestamps) */
  timed?: boolean
  /** the history row of its result (a match in a tool's output scrolls to the call's card) */
  resultMsg?: string
  /** the exec approval this call asked for: waiting (no decision yet), or how it was answered */
  approval?: ToolApproval
}

export interface ToolApproval {
  decision?: ApprovalDecision
  resolvedBy?: 'user' | 'timeout' | 'abort'
  /** when the approval was asked and answered (runtime clock): the card shows the wait apart from the run time */
  askedAt?: number
  resolvedAt?: number
}

export interface ApprovalItem extends ItemBase {
  kind: 'approval'
  request: ExecApprovalRequest
  decision?: ApprovalDecision
  resolvedBy?: 'user' | 'timeout' | 'abort'
  resolvedAt?: number
  /** its tool card is in the transcript and carries the answer: once answered, this card is not shown twice */
  onTool?: boolean
}

export type RunStatus = 'pending' | 'running' | 'compacting' | 'done' | 'error' | 'stopped'

export interface RunItem extends ItemBase {
  kind: 'run'
  runId: string
  status: RunStatus
  /** Stop was requested and the terminal event has not arrived yet */
  stopping?: boolean
  /**
   * "Stop and retry" gave up waiting for the run to end (state/stop-and-retry.ts): nothing was sent again, so the
   * footer keeps it offered while the run goes on, and Retry once it has stopped
   */
  stopRetryTimedOut?: boolean
  startedAt?: number
  endedAt?: number
  error?: string
  usage?: UsageTotals
  /** startedAt/endedAt come from lifecycle events (not estimated from transcript timestamps) */
  timed?: boolean
  /**
   * a finished run's reply is not what the user may assume: cut off at the output limit, empty, or none at all
   * because the model chose to say nothing (NO_REPLY)
   */
  notice?: 'length' | 'empty' | 'silent'
  /** the model server refused the request and it will be sent again (HTTP status; `until`: the wait it asked for) */
  retry?: { status: number; until?: number }
  /**
   * nothing has come from the model since `since` (the runtime's `silence` stream): before its first token
   * (`request`) or mid-reply (`reply`); cleared by the next data
   */
  silent?: { what: 'request' | 'reply'; since: number; provider?: string }
  /** something the user should act on that did not fail the run (Ollama cut the prompt to its context) */
  warning?: string
  /** the session's last model was gone and this run used the default one (runtime model-switch.ts) */
  modelNote?: string
  /** a crash cut the run off (recovery closed it): `error` says how far it got; shown as Interrupted, not Error */
  interrupted?: boolean
  /** the model is inside a reasoning block since this time (the runtime's `reasoning` stream; at every level) */
  thinkingSince?: number
  /** accepted but not started: it waits for its session's earlier run or a global slot (the `lane` stream) */
  waiting?: RunWaiting
  /**
   * a stopped run's cause when it was not a Stop: the gateway's runtime shut down (chat `aborted` / lifecycle end
   * `stopReason: "shutdown"`; after a reload the reply's `openclawAbort.origin`)
   */
  stopCause?: 'shutdown'
}



export interface CompactionItem extends ItemBase {
  kind: 'compaction'
  summary?: string
}

export type Item = UserItem | AssistantItem | ToolItem | ApprovalItem | RunItem | CompactionItem

/** Per-run bookkeeping for ordering and segment assembly (not rendered). */
export interface RunTrack {
  runId: string
  /** next expected per-run seq */
  nextSeq: number
  /** out-of-order events waiting for a gap to fill, sorted by seq */
  buffer: import('../../../shared/events').AgentEvent[]
  /** number of assistant segments created (keys `a:<runId>:<n>`) */
  segs: number
  /** number of user messages in the run (keys `user:<runId>[:n]`) */
  users: number
  /** key of the open assistant segment */
  openSeg?: string
  /** cumulative text of the current assistant message already shown in earlier segments
   * (closed by a tool, or sealed because the text got long) */
  segBase?: string
  /** multiples of SEAL_CHARS of the open segment already checked for a cut */
  sealK?: number
  /** the open segment's split up to sealK·SEAL_CHARS, so the next check resumes it (`sealPoint`) */
  sealScan?: SplitState
  sawAssistant: boolean
  /** the footer shows "Thinking…" (RunItem.thinkingSince): checked per event without looking the footer up */
  thinking?: boolean
  terminal: boolean
  /** its footer shows a model retry: the next output clears it */
  retrying?: boolean
  /** its footer says the model went quiet (RunItem.silent): the next data clears it */
  silent?: boolean
  /** queue "collect" mode: this run's message was answered by that run (no footer of its own) */
  foldedInto?: string
}

export interface Transcript {
  sessionKey: string
  items: Item[]
  runs: Record<string, RunTrack>
  /** history was loaded */
  loaded: boolean
  /** older history exists than what is loaded */
  hasMore: boolean
  /** chat.history offset of the next older page (messages newer than it, counted from the newest) */
  nextOffset?: number
  /** a seq gap or an unknown run was seen: the controller should refetch history */
  needsRefetch: boolean
  // History paging (see history-paging.ts). A refetch rebuilds only the newest part of the
  // transcript, starting at `anchorId`; items[0, older) came from older pages and are kept as they are.
  /** number of items at the start that came from older pages */
  older: number
  /** ids of the history messages in items[0, older) */
  olderIds: ReadonlySet<string>
  /** ids of the history messages in the refetched part */
  recentIds: ReadonlySet<string>
  /** first history message of the refetched part, and how many messages that part had */
  anchorId?: string
  anchorCount: number
  /** tool results seen in history whose call is on a page not loaded yet, by toolCallId */
  toolResults: Readonly<Record<string, ToolOutcome>>
  // Delta resync (history-paging.ts `planDelta`): the history rows the refetched part was built from and the
  // chat.history `deltaCursor` for the transcript's end when they were read. A resync asks with the cursor and
  // rebuilds the refetched part from these rows + the rows appended since, instead of refetching them.
  /** the history rows of the refetched part (from `anchorId` on), oldest first */
  recentMessages: readonly HistoryMessage[]
  /** where the transcript ended when `recentMessages` were read (none: the next resync is a full refetch) */
  historyCursor?: string
  /**
   * the session's reasoning level is `off` (chat.history's `reasoningLevel`, the last one read): history rows are
   * shown without their stored reasoning, as a live run at `off` shows none (OpenClaw's Control UI does the same)
   */
  hideReasoning?: boolean
  /** lines of the session's transcript file the runtime could not read (as of the last history load) */
  damaged?: { lines: number; file: string }
  /**
   * history row id → key of the first item built from it (a tool result: its call's card). Kept beside the
   * items because a refetch reuses unchanged item objects, which may predate their row (a live item).
   */
  msgKeys?: ReadonlyMap<string, string>
}

const NO_IDS: ReadonlySet<string> = new Set()
const NO_MESSAGES: readonly HistoryMessage[] = []

export const emptyTranscript = (sessionKey: string): Transcript => ({
  sessionKey,
  items: [],
  runs: {},
  loaded: false,
  hasMore: false,
  needsRefetch: false,
  older: 0,
  olderIds: NO_IDS,
  recentIds: NO_IDS,
  anchorCount: 0,
  toolResults: {},
  recentMessages: NO_MESSAGES,
})

export const runKey = (runId: string) => `run:${runId}`
export const userKey = (runId: string, n: number) => (n === 0 ? `user:${runId}` : `user:${runId}:${n}`)
export const segKey = (runId: string, n: number) => `a:${runId}:${n}`
export const toolKey = (toolCallId: string) => `tool:${toolCallId}`
export const approvalKey = (id: string) => `approval:${id}`
