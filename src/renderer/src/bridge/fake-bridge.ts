// An in-page Bridge for component tests, the stubbed-bridge e2e and the UI bench. It simulates the
// runtime from scripts: runs emit lifecycle/assistant (cumulative text)/thinking/reasoning/tool events with a
// per-run seq, the chat projection (throttled deltas, final with usage), sessions.changed, exec
// approvals and queue.changed; a transcript is kept so history/recentEvents behave like the runtime's.
import { modelCommandChanges, parseCommand } from '../../../shared/chat-commands'
import { INVISIBLE_ONLY, isBlankMessage } from '../../../shared/hidden-chars'
import type {
  AgentEvent,
  AnyEvent,
  ApprovalDecision,
  EventFilter,
  ExecApprovalRequest,
  QueueItem,
  QueueMode,
  UsageTotals,
} from '../../../shared/events'
import { eventMatches } from '../../../shared/events'
import { ATTACHMENT_LIMITS, attachmentLine, formatMb, sniffImage, withAttachmentLines } from '../../../shared/attachments'
import { MAIN_KEY, SESSION_SCOPE } from '../../../shared/session-key'
import { SCOPES } from '../../../shared/scopes'
import { oneAgentHealth, oneAgentStatusParts } from '../../../shared/status-summary'
import type { Bridge, BridgeCallName, HistoryCursorParams, HistoryPageParams, HistoryWindowParams } from '../../../shared/bridge'
import type {
  ConfigIssue,
  ChatFindMatch,
  ChatHistoryCursorResult,
  ChatHistoryPage,
  ChatHistoryWindow,
  HistoryMessage,
  ModelChoice,
  Prefs,
  Result,
  Results,
  SessionMessagePayload,
  SessionRow,
  SessionSearchMatch,
  ThinkingLevel,
} from '../../../shared/methods'
import { PROVIDER_NAME_PATTERN } from '../../../shared/config-values'
import { countOccurrences, matchMessageSnippet } from '../../../shared/message-search'
import { archivedWorkRefusal, deleteRefusal, keptOnReset, patchOrganisation, withOrganisation } from './fake-organisation'
import { normalizeSessionCategory } from '../../../shared/session-organisation'
import { deriveSessionTitleOf, sessionTitle } from '../../../shared/session-title'
import { numberedForkTitle } from '../../../shared/fork-name'
import { isCompletedReply, textOf } from '../../../shared/history-row'
import type { DevicePairRequested } from '../../../shared/events'
import {
  PAIRING_REJECTION_MS,
  PAIRING_REJECTION_NOT_FOUND,
  PAIRING_REQUEST_NOT_FOUND,
  PAIRING_REQUEST_TTL_MS,
  REJECTION_LIFTED_EVENT,
  type PairedDeviceInfo,
  type RejectedDeviceInfo,
  type PairingBridge,
  type PairingCallName,
  type PairingEvent,
} from '../../../shared/pairing'

export type FakeStep =
  /**
   * a reasoning block, announced on the `reasoning` stream like the runtime does; `level` is the session's reasoning
   * level (default `stream`: the text streams live on `thinking`; `on`: it comes with the block's end; `off`: never)
   */
  | { kind: 'thinking'; text: string; level?: 'off' | 'on' | 'stream' }
  | { kind: 'text'; text: string }
  | {
      kind: 'tool'
      name: string
      args: unknown
      result: unknown
      isError?: boolean
      /** simulated duration of the tool (ms) */
      durationMs?: number
      /** ask for exec approval first (denied → tool error) */
      approval?: boolean
    }
  /** tool calls the model made together, run at once (their approvals wait together: the window's Allow all) */
  | { kind: 'parallel'; tools: Array<Extract<FakeStep, { kind: 'tool' }>> }
  | { kind: 'error'; message: string }
  | { kind: 'wait'; ms: number }
  /** an agent `error` event that does not end the run (a runtime notice: model_retry, context_truncated) */
  | { kind: 'notice'; data: Record<string, unknown> }
  /** an agent `silence` event (the runtime's notice that the model server went quiet: model-silence.ts) */
  | { kind: 'silence'; data: Record<string, unknown> }
  /** stream nothing until the run is stopped (a test then never races the run's natural end) */
  | { kind: 'untilAborted' }

export interface FakeScript {
  steps: FakeStep[]
  usage?: Partial<UsageTotals>
}

export interface FakeBridgeOptions {
  /** ms between emission ticks (default 25) */
  tickMs?: number
  /** characters of text per assistant delta (default 6) */
  chunkChars?: number
  /** deltas emitted per tick (default 1) */
  deltasPerTick?: number
  /** scripts used for successive runs (then the built-in script chooser) */
  scripts?: FakeScript[]
  /** sessions to start with; `generated` creates N messages of filler history */
  seed?: Array<{ key: string; label?: string; messages?: number }>
  /** models configured (a usable model exists) — default true */
  configured?: boolean
  /** persist state in localStorage under this key (survives page reloads) */
  persistKey?: string
  /** gateway port reported by status/config */
  gatewayPort?: number
  /** how long a history call takes (ms), like a runtime reading a long transcript (default 0) */
  historyDelayMs?: number
  /** the port the gateway really listens on, as status reports it (default: the configured
   * gatewayPort; another port = it fell back from a taken one; null = no gateway listening) */
  listeningPort?: number | null
  /** rate limit for config.patch like the gateway's (3 per 60 s per device): refused writes answer
   * UNAVAILABLE + retryable + retryAfterMs (default: no limit) */
  configWriteLimit?: { max: number; windowMs: number }
  /** model servers the "Check" of a base URL reaches (modelsProbe), by base URL without a trailing slash:
   * their model list, or an HTTP error; any other URL is refused as a closed port is */
  modelServers?: Record<string, { models: Array<{ id: string; contextWindow?: number }> } | { status: number; error: string }>
  /** what checking a built-in provider's key finds (modelsProbe with only `provider`), by provider id;
   * absent = its API does not answer */
  providerChecks?: Record<string, { models: Array<{ id: string }> } | { status: number; error: string }>
  /** problems of the config file (config.get, status); a save that sets a value at an issue's path fixes it */
  configIssues?: ConfigIssue[]
}

/** where the built-in providers' model lists are (as pi's catalog has them), for key checks */
const BUILTIN_API_URLS: Record<string, string> = {
  openai: 'https://api.openai.com/v1',
  anthropic: 'https://api.anthropic.com/v1',
  google: 'https://generativelanguage.googleapis.com/v1beta',
  openrouter: 'https://openrouter.ai/api/v1',
}

interface FakeSession {
  row: SessionRow
  messages: HistoryMessage[]
  events: AgentEvent[]
  queue: QueueItem[]
}

/** like the runtime: an unlabelled session is named after its first user message */
function derivedTitleOf(s: FakeSession): { derivedTitle?: string } {
  if (s.row.label) return {}
  for (const m of s.messages) {
    if (m.role !== 'user') continue
    const title = deriveSessionTitleOf(m.content)
    if (title) return { derivedTitle: title }
  }
  return {}
}

interface ActiveRun {
  runId: string
  sessionKey: string
  seq: number
  aborted: boolean
  steers: string[]
  startedAt: number
  text: string
  appends: number
  /** content parts of the assistant message being produced */
  parts: Array<Record<string, unknown>>
  /** fields the runtime stores with the next assistant message (a run note: `contextTruncated`) */
  note?: Partial<HistoryMessage>
}

const RING = 5000
const MODELS: Array<Omit<ModelChoice, 'configured'>> = [
  { ref: 'anthropic/claude-sonnet-4-5', provider: 'anthropic', id: 'claude-sonnet-4-5', name: 'Claude Sonnet 4.5', contextWindow: 200000, maxTokens: 64000, reasoning: true, input: ['text', 'image'] },
  { ref: 'openai/gpt-5', provider: 'openai', id: 'gpt-5', name: 'GPT-5', contextWindow: 400000, maxTokens: 128000, reasoning: true, input: ['text', 'image'] },
  { ref: 'google/gemini-2.5-pro', provider: 'google', id: 'gemini-2.5-pro', name: 'Gemini 2.5 Pro', contextWindow: 1000000, maxTokens: 65536, reasoning: true, input: ['text', 'image'] },
]

/** the runtime's bound: a delta of more messages is a reset */
const HISTORY_DELTA_MAX_MESSAGES = 200

/** An opaque history cursor: the session's transcript (key + sessionId) and how many of its messages the holder has. */
function fakeCursor(sessionKey: string, sessionId: string, lastSeq: number): string {
  return `fake1.${encodeURIComponent(JSON.stringify({ sessionKey, sessionId, lastSeq }))}`
}

function readFakeCursor(text: string): { sessionKey: string; sessionId: string; lastSeq: number } | undefined {
  if (!text.startsWith('fake1.')) return undefined
  try {
    const c = JSON.parse(decodeURIComponent(text.slice(6))) as { sessionKey?: unknown; sessionId?: unknown; lastSeq?: unknown }
    if (typeof c.sessionKey !== 'string' || typeof c.sessionId !== 'string' || typeof c.lastSeq !== 'number' || !Number.isSafeInteger(c.lastSeq) || c.lastSeq < 0) return undefined
    return { sessionKey: c.sessionKey, sessionId: c.sessionId, lastSeq: c.lastSeq }
  } catch {
    return undefined
  }
}

const ok = <T>(data: T): Result<T> => ({ ok: true, data })
const fail = (code: 'INVALID_REQUEST' | 'NOT_FOUND' | 'APPROVAL_NOT_FOUND', message: string): Result<never> => ({
  ok: false,
  error: { code, message },
})

/** Filler history: question/answer pairs numbered from message `from` (Question n = message 2n−2). */
function fillerMessages(key: string, from: number, count: number, t0: number): HistoryMessage[] {
  const out: HistoryMessage[] = []
  for (let i = from; i < from + count; i += 2) {
    const runId = `seed-${key}-${i}`
    const at = t0 + (i - from) * 30_000
    out.push({ id: `m${i}`, runId, role: 'user', content: `Question ${i / 2 + 1}: how does part ${i} work?`, timestamp: at })
    if (i + 1 < from + count)
      out.push({
        id: `m${i + 1}`,
        runId,
        role: 'assistant',
        content: [
          {
            type: 'text',
            text: `Answer ${i / 2 + 1}. Part ${i} works like this:\n\n- it reads the **input**\n- it writes \`output.json\`\n\n\`\`\`js\nrun(${i})\n\`\`\``,
          },
        ],
        stopReason: 'stop',
        usage: { input: 120, output: 40, cacheRead: 0, cacheWrite: 0, totalTokens: 160, cost: { total: 0.0004 } },
        timestamp: at + 4000,
      })
  }
  return out
}

/** The built-in script chooser: keywords in the message pick a scenario. */
export function defaultScript(message: string): FakeScript {
  const m = message.toLowerCase()
  if (m.includes('error')) return { steps: [{ kind: 'error', message: '401 Unauthorized: invalid x-api-key (provider anthropic)' }] }
  if (m.includes('approve'))
    return {
      steps: [
        { kind: 'text', text: 'I need to clean the build folder.' },
        { kind: 'tool', name: 'exec', args: { command: 'rm -rf build' }, result: { content: [{ type: 'text', text: 'removed build/' }] }, approval: true, durationMs: 300 },
        { kind: 'text', text: 'Done — the build folder is gone.' },
      ],
    }
  if (m.includes('tool') || m.includes('files') || m.includes('ls'))
    return {
      steps: [
        { kind: 'thinking', text: 'The user wants to see the workspace. I will list it first.' },
        { kind: 'text', text: "I'll look at the workspace first." },
        {
          kind: 'tool',
          name: 'exec',
          args: { command: 'ls -la', cwd: '.' },
          result: { content: [{ type: 'text', text: 'README.md\npackage.json\nsrc/' }], details: { exitCode: 0 } },
          durationMs: 600,
        },
        {
          kind: 'text',
          text: 'The workspace has **3 entries**:\n\n- `README.md`\n- `package.json`\n- `src/`\n\n```bash\nls -la\n```\n\nWant me to open one of them?',
        },
      ],
    }
  if (m.includes('slow') || m.includes('long')) {
    // Several messages with a tool between them: time to stop, steer (read at a message boundary) or queue.
    const para = (i: number) => `${i}. This is a long answer that keeps streaming, with time to stop or steer it.`
    const steps: FakeStep[] = []
    for (let part = 0; part < 8; part++) {
      if (part) steps.push({ kind: 'tool', name: 'read', args: { path: `notes/part-${part}.md` }, result: { content: [{ type: 'text', text: `notes for part ${part}` }] }, durationMs: 150 })
      steps.push({ kind: 'text', text: Array.from({ length: 4 }, (_, i) => para(part * 4 + i + 1)).join('\n\n') })
    }
    return { steps }
  }
  return {
    steps: [
      {
        kind: 'text',
        text: `You said: **${message.slice(0, 200)}**\n\nHere is a snippet:\n\n\`\`\`ts\nconst greet = (name: string) => \`hello \${name}\`\n\`\`\`\n\nAnything else?`,
      },
    ],
  }
}

const IMAGE_EXT: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/gif': 'gif', 'image/webp': 'webp' }

/**
 * The runtime's handling of `chat.send` attachments, without the files: each is checked against the same
 * limits (same messages), "saved" under a made-up path, and stands in the message as one line; an image
 * also gets the transcript's `[image: …]` part. Returns an error message for a refused request.
 */
function fakeAttachments(raw: unknown[] | undefined, savedName: () => string): { lines: string[]; imageParts: string[] } | string {
  const lines: string[] = []
  const imageParts: string[] = []
  if (!raw?.length) return { lines, imageParts }
  if (raw.length > ATTACHMENT_LIMITS.maxCount) return `too many attachments (max ${ATTACHMENT_LIMITS.maxCount})`
  for (const [i, item] of raw.entries()) {
    const a = (item ?? {}) as { content?: unknown; fileName?: unknown; mimeType?: unknown }
    if (typeof a.content !== 'string' || a.content === '') continue
    const name = typeof a.fileName === 'string' && a.fileName ? a.fileName.split(/[\\/]/).pop()! : undefined
    const label = `attachments[${i}]${name ? ` (${name})` : ''}`
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(a.content) || a.content.length % 4 === 1) return `${label}: content is not valid base64`
    const size = Math.floor((a.content.length * 3) / 4) - (a.content.endsWith('==') ? 2 : a.content.endsWith('=') ? 1 : 0)
    if (size > ATTACHMENT_LIMITS.maxBytes) return `${label} is larger than the ${formatMb(ATTACHMENT_LIMITS.maxBytes)} attachment limit`
    const head = Uint8Array.from(atob(a.content.slice(0, 16)), (c) => c.charCodeAt(0))
    const sniffed = sniffImage(head)
    if (sniffed && size > ATTACHMENT_LIMITS.maxImageBytes) return `${label} is an image larger than the ${formatMb(ATTACHMENT_LIMITS.maxImageBytes)} image limit`
    const declared = typeof a.mimeType === 'string' ? a.mimeType.toLowerCase() : ''
    const mimeType = sniffed ?? (declared && !declared.startsWith('image/') ? declared : 'application/octet-stream')
    const path = `~/.loopdesk/media/inbound/${savedName()}.${sniffed ? IMAGE_EXT[sniffed] : (/\.([A-Za-z0-9]{1,10})$/.exec(name ?? '')?.[1] ?? 'bin')}`
    lines.push(attachmentLine({ image: !!sniffed, fileName: name ?? `attachment-${i + 1}`, mimeType, sizeBytes: size, path }))
    if (sniffed) imageParts.push(`\n[image: ${path} (${mimeType})]`)
  }
  return { lines, imageParts }
}

export class FakeBridge implements Bridge {
  readonly transport = 'ipc' as const
  private listeners = new Set<{ filter: EventFilter; fn: (e: AnyEvent) => void }>()
  private sessions = new Map<string, FakeSession>()
  private runs = new Map<string, ActiveRun>()
  private approvals = new Map<string, { req: ExecApprovalRequest; resolve: (d: ApprovalDecision) => void }>()
  /** the config in effect: the file's while it is valid, else the last good one (as the runtime keeps it) */
  private config: Record<string, unknown>
  /** loopdesk.json as written: saves land here even while it has problems (configIssues) */
  private file: Record<string, unknown>
  private secrets: Record<string, 'set' | 'not set'> = {}
  private configIssues: ConfigIssue[]
  private prefs: Prefs = { theme: 'system', inspectorOpen: false, inspectorWidth: 420, sidebarWidth: 280 }
  private scripts: FakeScript[]
  private nextId = 1
  private startedAt = Date.now()
  readonly opts: Required<Omit<FakeBridgeOptions, 'scripts' | 'seed' | 'persistKey' | 'listeningPort' | 'configWriteLimit' | 'configIssues'>> &
    Pick<FakeBridgeOptions, 'persistKey' | 'listeningPort' | 'configWriteLimit'>
  /** when accepted config writes happened (for configWriteLimit) */
  private configWrites: number[] = []
  /** every call made, for assertions */
  readonly calls: Array<{ name: BridgeCallName | PairingCallName; params: unknown }> = []
  /** remote devices waiting for approval, as the gateway keeps them (pending-pairings.ts) */
  private pairingRequests = new Map<string, DevicePairRequested>()
  private pairedDevices: PairedDeviceInfo[] = []
  /** devices refused after a rejection, as the gateway keeps them (device id → what it was and until when) */
  private rejectedDevices = new Map<string, RejectedDeviceInfo>()
  private pairingListeners = new Set<(e: PairingEvent) => void>()

  constructor(options: FakeBridgeOptions = {}) {
    this.opts = {
      tickMs: options.tickMs ?? 25,
      chunkChars: options.chunkChars ?? 6,
      deltasPerTick: options.deltasPerTick ?? 1,
      configured: options.configured ?? true,
      gatewayPort: options.gatewayPort ?? 18789,
      historyDelayMs: options.historyDelayMs ?? 0,
      listeningPort: options.listeningPort === undefined ? (options.gatewayPort ?? 18789) : options.listeningPort,
      persistKey: options.persistKey,
      configWriteLimit: options.configWriteLimit,
      modelServers: options.modelServers ?? {},
      providerChecks: options.providerChecks ?? {},
    }
    this.scripts = [...(options.scripts ?? [])]
    this.configIssues = [...(options.configIssues ?? [])]
    this.config = { agents: { defaults: { timeoutSeconds: 600, thinkingDefault: 'low', workspace: '~/loopdesk' } }, gateway: { port: this.opts.gatewayPort } }
    if (this.opts.configured) {
      this.secrets['anthropic'] = 'set'
      this.config.agents = { defaults: { ...(this.config.agents as { defaults: object }).defaults, model: { primary: 'anthropic/claude-sonnet-4-5' } } }
    }
    this.file = this.config
    if (!this.restore()) {
      // Seeded sessions are listed (newest first) in seed order whatever the clock does meanwhile: with
      // Date.now() each, a slow machine gave the second one a later millisecond, so it was listed (and
      // opened) first — the Sidebar test then sent its message to the wrong session.
      const seededAt = Date.now()
      ;(options.seed ?? [{ key: 'agent:main:main', label: 'Main' }]).forEach((s, i) => this.seedSession(s.key, s.label, s.messages ?? 0, seededAt - i))
    }
  }

  // ------------------------------------------------------------------------------ plumbing

  subscribe(filter: EventFilter, listener: (event: AnyEvent) => void): () => void {
    const entry = { filter, fn: listener }
    this.listeners.add(entry)
    return () => this.listeners.delete(entry)
  }

  private emit(ev: AnyEvent) {
    for (const l of [...this.listeners]) {
      if (!eventMatches(l.filter, ev)) continue
      try {
        l.fn(ev)
      } catch (err) {
        console.error('listener failed', err)
      }
    }
  }

  private record<K extends BridgeCallName>(name: K, params: unknown) {
    this.calls.push({ name, params })
  }

  private id(prefix: string) {
    return `${prefix}${Date.now().toString(36)}${(this.nextId++).toString(36)}`
  }

  private persist() {
    if (!this.opts.persistKey) return
    try {
      const data = {
        sessions: [...this.sessions.values()].map((s) => ({ row: s.row.status === 'running' ? { ...s.row, status: 'failed' as const, interrupted: true as const, activeRunId: undefined } : { ...s.row, activeRunId: undefined }, messages: s.messages })),
        config: this.file,
        secrets: this.secrets,
        prefs: this.prefs,
      }
      localStorage.setItem(this.opts.persistKey, JSON.stringify(data))
    } catch {
      // storage full or unavailable: the fake just forgets
    }
  }

  private restore(): boolean {
    if (!this.opts.persistKey) return false
    try {
      const raw = localStorage.getItem(this.opts.persistKey)
      if (!raw) return false
      const data = JSON.parse(raw)
      for (const s of data.sessions) this.sessions.set(s.row.key, { row: s.row, messages: s.messages, events: [], queue: [] })
      this.config = data.config
      this.file = data.config
      this.secrets = data.secrets
      this.prefs = data.prefs
      return true
    } catch {
      return false
    }
  }

  private newRow(key: string, label?: string): SessionRow {
    const row: SessionRow = {
      key,
      kind: 'direct',
      sessionId: this.id('s'),
      lifecycleRevision: this.id('rev'),
      agentId: 'main',
      label,
      updatedAt: Date.now(),
      createdAt: Date.now(),
      inputTokens: 0,
      outputTokens: 0,
      totalTokens: 0,
      estimatedCostUsd: 0,
      compactionCount: 0,
    }
    return withOrganisation(row, {})
  }

  private seedSession(key: string, label: string | undefined, count: number, updatedAt: number) {
    const s: FakeSession = { row: { ...this.newRow(key, label), updatedAt, createdAt: updatedAt }, messages: [], events: [], queue: [] }
    s.messages.push(...fillerMessages(key, 0, count, Date.now() - count * 60_000))
    if (count) s.row = { ...s.row, lastMessagePreview: 'Answer…', startedAt: updatedAt, endedAt: updatedAt } // its messages came from runs
    this.sessions.set(key, s)
  }

  /**
   * Messages another client (the CLI, another window) added to a session's transcript: they are in
   * history, but this window saw no events for them. Numbering continues the seeded filler.
   */
  appendHistory(key: string, count: number): void {
    const s = this.session(key)
    if (!s) throw new Error(`unknown session: ${key}`)
    s.messages.push(...fillerMessages(key, s.messages.length, count, Date.now() - count * 30_000))
    s.row = { ...s.row, updatedAt: Date.now() }
  }

  private session(key: string): FakeSession | undefined {
    return this.sessions.get(key)
  }

  /** loopdesk.json was edited behind the window's back (an editor): these problems now, the last good config kept */
  breakConfig(issues: ConfigIssue[]): void {
    this.configIssues = [...issues]
  }

  /** The runtime's event ring moved past the session's runs so far (a long session, a restart): history only. */
  forgetEvents(sessionKey: string): void {
    const s = this.session(sessionKey)
    if (s) s.events.length = 0
  }

  private changed(s: FakeSession, reason: import('../../../shared/events').SessionsChangedEvent['reason'], runId?: string) {
    s.row = { ...s.row, updatedAt: Date.now() }
    this.emit({ event: 'sessions.changed', payload: { sessionKey: s.row.key, reason, runId, ts: Date.now(), session: { ...s.row } } })
    this.persist()
  }

  private agentEvent(run: ActiveRun, stream: AgentEvent['stream'], data: Record<string, unknown>) {
    const ev: AgentEvent = { runId: run.runId, seq: ++run.seq, stream, ts: Date.now(), data, sessionKey: run.sessionKey }
    const s = this.session(run.sessionKey)
    if (s) {
      s.events.push(ev)
      // trim in chunks: splicing per event would be O(ring) per delta
      if (s.events.length > RING * 1.25) s.events.splice(0, s.events.length - RING)
    }
    this.emit({ event: 'agent', payload: ev })
    return ev
  }

  private queueChanged(s: FakeSession) {
    this.emit({ event: 'queue.changed', payload: { sessionKey: s.row.key, items: s.queue.map((q) => ({ ...q })) } })
  }

  // ------------------------------------------------------------------------------ runs

  private sleep(ms: number) {
    return new Promise<void>((r) => setTimeout(r, ms))
  }

  private nextScript(message: string): FakeScript {
    return this.scripts.shift() ?? defaultScript(message)
  }

  private startRun(s: FakeSession, runId: string, message: string, imageParts: string[] = []) {
    const run: ActiveRun = { runId, sessionKey: s.row.key, seq: 0, aborted: false, steers: [], startedAt: Date.now(), text: '', appends: 0, parts: [] }
    this.runs.set(runId, run)
    // like the runtime's transcript: an image is a path reference, never its bytes
    const content = imageParts.length ? [{ type: 'text', text: message }, ...imageParts.map((text) => ({ type: 'text', text }))] : message
    // like the runtime: no label of its own (an unlabelled session gets a derived title from sessions.list);
    // the row says which model the run uses (Settings opens at its provider after a key error)
    // the session's chosen model, else the default one (as the runtime's runner)
    const primary = s.row.modelOverride ?? (this.config.agents as { defaults?: { model?: { primary?: string } } } | undefined)?.defaults?.model?.primary
    const slash = primary?.indexOf('/') ?? -1
    const model = primary && slash > 0 ? { modelProvider: primary.slice(0, slash), model: primary.slice(slash + 1) } : {}
    s.row = { ...s.row, ...model, status: 'running', activeRunId: runId, startedAt: run.startedAt, endedAt: undefined, lastError: undefined }
    this.changed(s, 'start', runId)
    void this.execute(s, run, this.nextScript(message), { id: this.id('m'), runId, role: 'user', content, timestamp: Date.now() })
  }

  /** Ends the assistant message being produced and stores it in the transcript. */
  private flushMessage(s: FakeSession, run: ActiveRun, extra: Partial<HistoryMessage> = {}) {
    if (!run.parts.length && !extra.stopReason) return
    s.messages.push({ id: this.id('m'), runId: run.runId, role: 'assistant', content: run.parts, timestamp: Date.now(), ...run.note, ...extra })
    run.parts = []
    run.text = ''
    run.note = undefined
  }

  /** The runtime's reasoning block (runner/bridge.ts): start, the text per level, end; the transcript keeps it. */
  private async think(s: FakeSession, run: ActiveRun, step: Extract<FakeStep, { kind: 'thinking' }>) {
    const level = step.level ?? 'stream'
    this.agentEvent(run, 'reasoning', { phase: 'start' })
    if (level === 'stream') await this.streamText(s, run, 'thinking', step.text)
    else {
      // as long as streaming it would take, nothing shown
      const ticks = Math.ceil(step.text.length / Math.max(1, this.opts.chunkChars * this.opts.deltasPerTick))
      for (let i = 0; i < ticks && !run.aborted; i++) if (this.opts.tickMs > 0) await this.sleep(this.opts.tickMs)
      run.parts.push({ type: 'thinking', thinking: step.text })
    }
    if (run.aborted) return
    this.agentEvent(run, 'reasoning', level === 'on' ? { phase: 'end', text: step.text } : { phase: 'end' })
  }

  private async streamText(s: FakeSession, run: ActiveRun, kind: 'text' | 'thinking', text: string) {
    let part = run.parts.find((p) => p.type === kind && p === run.parts[run.parts.length - 1])
    if (!part) {
      part = kind === 'text' ? { type: 'text', text: '' } : { type: 'thinking', thinking: '' }
      run.parts.push(part)
    }
    const field = kind === 'text' ? 'text' : 'thinking'
    let lastChat = 0
    let i = 0
    while (i < text.length) {
      for (let k = 0; k < this.opts.deltasPerTick && i < text.length; k++) {
        if (run.aborted) return
        const delta = text.slice(i, i + this.opts.chunkChars)
        i += delta.length
        part[field] = (part[field] as string) + delta
        if (kind === 'text') {
          run.text += delta
          // Keep the ropes shallow like a real transport's buffers (a 100k-node rope is GC work).
          if (++run.appends % 2048 === 0) {
            run.text = flatten(run.text)
            part[field] = flatten(part[field] as string)
          }
          this.agentEvent(run, 'assistant', { text: run.text, delta })
        } else this.agentEvent(run, 'thinking', { text: part[field], delta })
      }
      if (kind === 'text' && Date.now() - lastChat >= 150) {
        lastChat = Date.now()
        this.chat(run, 'delta')
      }
      if (this.opts.tickMs > 0) await this.sleep(this.opts.tickMs)
    }
    if (kind === 'text') this.chat(run, 'delta')
  }

  /** Like pi: steering messages are read at the next turn boundary, after the current message. */
  private async handleSteers(s: FakeSession, run: ActiveRun) {
    while (run.steers.length && !run.aborted) {
      this.flushMessage(s, run, { stopReason: 'stop' })
      const text = run.steers.shift()!
      s.messages.push({ id: this.id('m'), runId: run.runId, role: 'user', content: text, timestamp: Date.now() })
      await this.streamText(s, run, 'text', `Understood — ${text}.`)
    }
  }

  private chat(run: ActiveRun, state: 'delta' | 'final' | 'aborted' | 'error', extra: Record<string, unknown> = {}) {
    this.emit({
      event: 'chat',
      payload: {
        runId: run.runId,
        sessionKey: run.sessionKey,
        seq: run.seq,
        state,
        message: { role: 'assistant', content: [{ type: 'text', text: run.text }], timestamp: Date.now() },
        ...extra,
      },
    })
  }

  private async execute(s: FakeSession, run: ActiveRun, script: FakeScript, user: HistoryMessage) {
    await this.sleep(0)
    this.agentEvent(run, 'lifecycle', { phase: 'start', startedAt: run.startedAt })
    // like the runtime: the run writes its user message to the transcript after its lifecycle start (when the
    // agent takes the prompt), so a history read right at the start may not have it yet
    await this.sleep(0)
    s.messages.push(user)
    let outChars = 0
    try {
      for (const step of script.steps) {
        if (run.aborted) break
        if (step.kind === 'thinking') {
          await this.think(s, run, step)
          outChars += step.text.length
        } else if (step.kind === 'text') {
          await this.streamText(s, run, step.kind, step.text)
          outChars += step.text.length
          if (step.kind === 'text') await this.handleSteers(s, run)
        } else if (step.kind === 'wait') await this.sleep(step.ms)
        else if (step.kind === 'notice') {
          this.agentEvent(run, 'error', step.data)
          // like the runtime: stored with the model call's message, so history brings it back (runner/ollama-truncation.ts)
          if (step.data.reason === 'context_truncated' && typeof step.data.message === 'string') run.note = { contextTruncated: { message: step.data.message } }
          // (runner/model-switch.ts: stored with the run's first reply)
          if (step.data.reason === 'model_changed' && typeof step.data.message === 'string') {
            run.note = { modelChanged: { from: String(step.data.from), to: String(step.data.to), message: step.data.message } }
          }
        }
        else if (step.kind === 'silence') this.agentEvent(run, 'silence', step.data)
        else if (step.kind === 'untilAborted') {
          while (!run.aborted) await this.sleep(Math.max(1, this.opts.tickMs))
        }
        else if (step.kind === 'error') {
          this.flushMessage(s, run, { stopReason: 'error', errorMessage: step.message })
          this.agentEvent(run, 'lifecycle', { phase: 'error', error: step.message, endedAt: Date.now(), startedAt: run.startedAt, errorKind: 'unknown' })
          this.chat(run, 'error', { errorMessage: step.message, errorKind: 'unknown' })
          return this.finish(s, run, 'failed', step.message)
        } else if (step.kind === 'tool') {
          await this.runTool(s, run, step)
        } else if (step.kind === 'parallel') {
          await Promise.all(step.tools.map((t) => this.runTool(s, run, t)))
        }
      }
      const usage: UsageTotals = {
        input: 400,
        output: Math.ceil(outChars / 4),
        cacheRead: 0,
        cacheWrite: 0,
        totalTokens: 400 + Math.ceil(outChars / 4),
        costUsd: 0.0012 + outChars * 0.000004,
        ...script.usage,
      }
      // a stopped run used tokens too: the runtime reports them and counts them in the session's totals
      const stopped = run.aborted
      this.flushMessage(s, run, {
        stopReason: stopped ? 'aborted' : 'stop',
        ...(stopped ? { aborted: true } : {}),
        usage: { ...usage, cost: { total: usage.costUsd } },
      })
      this.agentEvent(run, 'lifecycle', { phase: 'end', endedAt: Date.now(), startedAt: run.startedAt, ...(stopped ? { aborted: true, stopReason: 'aborted' } : {}) })
      this.chat(run, stopped ? 'aborted' : 'final', { usage, stopReason: stopped ? 'aborted' : 'stop' })
      s.row = {
        ...s.row,
        inputTokens: s.row.inputTokens + usage.input,
        outputTokens: s.row.outputTokens + usage.output,
        totalTokens: s.row.totalTokens + usage.totalTokens,
        estimatedCostUsd: s.row.estimatedCostUsd + usage.costUsd,
      }
      return this.finish(s, run, stopped ? 'killed' : 'done')
    } catch (err) {
      this.agentEvent(run, 'lifecycle', { phase: 'error', error: String(err), endedAt: Date.now() })
      return this.finish(s, run, 'failed', String(err))
    }
  }

  private async runTool(s: FakeSession, run: ActiveRun, step: Extract<FakeStep, { kind: 'tool' }>) {
    const toolCallId = this.id('call_')
    run.parts.push({ type: 'toolCall', id: toolCallId, name: step.name, arguments: step.args })
    this.chat(run, 'delta')
    this.flushMessage(s, run, { stopReason: 'toolUse' })
    this.agentEvent(run, 'tool', { phase: 'start', name: step.name, toolCallId, args: step.args })
    let result = step.result
    let isError = !!step.isError
    if (step.approval) {
      const decision = await this.requestApproval(run, toolCallId, String((step.args as { command?: string })?.command ?? step.name))
      if (decision === 'deny') {
        // the runtime's texts (tools/exec.ts), which the tool card reads
        result = { content: [{ type: 'text', text: 'exec denied by user: the command was not run' }] }
        isError = true
      }
    }
    if (!run.aborted) {
      const dur = step.durationMs ?? 200
      this.agentEvent(run, 'tool', { phase: 'update', name: step.name, toolCallId, partialResult: { content: [{ type: 'text', text: '…' }] } })
      await this.sleep(dur)
    }
    if (run.aborted) {
      result = { content: [{ type: 'text', text: `${step.name} aborted` }] }
      isError = true
    }
    this.agentEvent(run, 'tool', { phase: 'result', name: step.name, toolCallId, result, isError })
    s.messages.push({
      id: this.id('m'),
      runId: run.runId,
      role: 'toolResult',
      toolCallId,
      toolName: step.name,
      isError,
      content: (result as { content?: unknown })?.content ?? [{ type: 'text', text: JSON.stringify(result) }],
      timestamp: Date.now(),
    })
  }

  private requestApproval(run: ActiveRun, toolCallId: string, command: string): Promise<ApprovalDecision> {
    const req: ExecApprovalRequest = {
      id: this.id('ap'),
      runId: run.runId,
      sessionKey: run.sessionKey,
      toolCallId,
      command,
      cwd: '~/loopdesk',
      createdAt: Date.now(),
      expiresAt: Date.now() + 120_000,
    }
    return new Promise((resolve) => {
      const done = (d: ApprovalDecision, by: 'user' | 'timeout' | 'abort') => {
        if (!this.approvals.delete(req.id)) return
        clearInterval(poll)
        this.emit({ event: 'exec.approval.resolved', payload: { id: req.id, runId: run.runId, sessionKey: run.sessionKey, decision: d, resolvedBy: by, ts: Date.now() } })
        resolve(d)
      }
      const poll = setInterval(() => run.aborted && done('deny', 'abort'), 50)
      this.approvals.set(req.id, { req, resolve: (d) => done(d, 'user') })
      this.emit({ event: 'exec.approval.requested', payload: req })
    })
  }

  private finish(s: FakeSession, run: ActiveRun, status: SessionRow['status'], error?: string) {
    this.runs.delete(run.runId)
    const endedAt = Date.now()
    // the reply's text (flushMessage already moved it from run.text into the transcript)
    let reply = run.text
    for (let i = s.messages.length - 1; !reply && i >= 0 && s.messages[i].runId === run.runId; i--) if (s.messages[i].role === 'assistant') reply = textOf(s.messages[i].content)
    s.row = { ...s.row, status, activeRunId: undefined, endedAt, runtimeMs: endedAt - run.startedAt, lastError: error, lastMessagePreview: reply.slice(0, 80) || s.row.lastMessagePreview }
    this.changed(s, status === 'failed' ? 'error' : 'end', run.runId)
    this.drainNext(s)
  }

  /** Starts the first queued follow-up that is not held. */
  private drainNext(s: FakeSession) {
    const next = s.queue.find((q) => q.status === 'queued' && !q.held)
    if (next) {
      const runId = this.id('run-')
      next.status = 'started'
      next.runId = runId
      this.queueChanged(s)
      setTimeout(() => this.startRun(s, runId, next.text), this.opts.tickMs)
    }
  }

  // ------------------------------------------------------------------------------ bridge calls

  async run(params: Parameters<Bridge['run']>[0]): Promise<Result<Results['agent']>> {
    this.record('run', params)
    const key = params.sessionKey ?? 'agent:main:main'
    if (!this.session(key)) this.sessions.set(key, { row: this.newRow(key), messages: [], events: [], queue: [] })
    const r = await this.send({ sessionKey: key, message: params.message, idempotencyKey: params.idempotencyKey })
    if (!r.ok) return r
    return ok({ runId: r.data.runId ?? params.idempotencyKey, status: 'accepted', acceptedAt: Date.now() })
  }

  async send(params: Parameters<Bridge['send']>[0]): Promise<Result<Results['chat.send']>> {
    this.record('send', params)
    const s = this.session(params.sessionKey)
    if (!s) return fail('NOT_FOUND', `unknown session: ${params.sessionKey}`)
    if (s.row.archived && params.message.trim() !== '/stop') return fail('INVALID_REQUEST', archivedWorkRefusal(s.row.key))
    const att = fakeAttachments(params.attachments, () => this.id('f'))
    if (typeof att === 'string') return fail('INVALID_REQUEST', att)
    // as the runtime (handlers-context.ts refuseBlank): only invisible characters is as empty
    if (isBlankMessage(params.message) && !att.lines.length)
      return fail('INVALID_REQUEST', params.message.trim() ? `message or attachment required: ${INVISIBLE_ONLY}` : 'message or attachment required')
    if (params.message.trim() === '/stop') {
      const ids = [...this.runs.values()].filter((r) => r.sessionKey === s.row.key).map((r) => r.runId)
      ids.forEach((id) => (this.runs.get(id)!.aborted = true))
      return ok({ status: 'command', ok: true, aborted: ids.length > 0, runIds: ids })
    }
    const cmd = parseCommand(params.message)
    if (cmd?.command === 'model') {
      // as the runtime's model-command.ts, briefly: show, choose, or back to the default
      const primary = (this.config.agents as { defaults?: { model?: { primary?: string } } } | undefined)?.defaults?.model?.primary
      const arg = cmd.rest.trim()
      let messages: string[]
      if (!modelCommandChanges(arg)) messages = [s.row.modelOverride ? `This session uses ${s.row.modelOverride}.` : `This session uses the default model, ${primary}.`]
      else {
        const patched = await this.sessionsPatch({ key: s.row.key, model: arg === 'default' ? null : arg })
        messages = !patched.ok ? [`Could not choose ${arg}: ${patched.error.message}.`] : [`This session now uses ${arg === 'default' ? `the default model, ${primary}` : arg}.`]
      }
      return ok({ status: 'command', ok: true, messages, sessionKey: s.row.key })
    }
    const message = withAttachmentLines(params.message, att.lines)
    const active = s.row.activeRunId ? this.runs.get(s.row.activeRunId) : undefined
    if (active) {
      const mode: QueueMode = params.queueMode ?? 'followup'
      const item: QueueItem = { id: this.id('q'), sessionKey: s.row.key, mode, text: message, enqueuedAt: Date.now(), status: 'queued' }
      if (mode === 'steer') {
        item.status = 'steered'
        item.runId = active.runId
        active.steers.push(message)
      } else if (mode === 'interrupt') {
        active.aborted = true
      }
      s.queue.push(item)
      this.queueChanged(s)
      this.changed(s, 'queue')
      return ok({ runId: active.runId, status: item.status === 'steered' ? 'steered' : 'queued', queueItemId: item.id })
    }
    const runId = params.idempotencyKey
    this.startRun(s, runId, message, att.imageParts)
    return ok({ runId, status: 'started' })
  }

  async wait(params: Parameters<Bridge['wait']>[0]): Promise<Result<Results['agent.wait']>> {
    this.record('wait', params)
    const deadline = Date.now() + (params.timeoutMs ?? 30_000)
    while (this.runs.has(params.runId) && Date.now() < deadline) await this.sleep(20)
    return ok({ runId: params.runId, status: this.runs.has(params.runId) ? 'timeout' : 'ok', endedAt: Date.now() })
  }

  async abort(params: Parameters<Bridge['abort']>[0]): Promise<Result<Results['chat.abort']>> {
    this.record('abort', params)
    const ids = [...this.runs.values()]
      .filter((r) => r.sessionKey === params.sessionKey && (!params.runId || r.runId === params.runId))
      .map((r) => r.runId)
    for (const id of ids) this.runs.get(id)!.aborted = true
    return ok({ ok: true, aborted: ids.length > 0, runIds: ids })
  }

  /**
   * chat.history like the runtime's: the newest page carries a `deltaCursor`; with `cursor`, the messages
   * appended since (as replayed session.message payloads) and a new cursor, or `reset` for a cursor of another
   * session or transcript (after sessionsReset), past the end, malformed, or more than 200 messages behind.
   */
  history(params: HistoryCursorParams): Promise<Result<ChatHistoryCursorResult>>
  history(params: HistoryPageParams): Promise<Result<ChatHistoryPage>>
  history(params: HistoryWindowParams): Promise<Result<ChatHistoryWindow>>
  async history(params: HistoryCursorParams | HistoryPageParams | HistoryWindowParams): Promise<Result<ChatHistoryPage | ChatHistoryWindow | ChatHistoryCursorResult>> {
    this.record('history', params)
    if (this.opts.historyDelayMs > 0) await this.sleep(this.opts.historyDelayMs)
    const s = this.session(params.sessionKey)
    if (!s) return fail('NOT_FOUND', `unknown session: ${params.sessionKey}`)
    const active = s.row.activeRunId ? this.runs.get(s.row.activeRunId) : undefined
    const inFlightRun = active ? { runId: active.runId, text: active.text } : undefined
    if (params.cursor !== undefined) return ok(this.historyDelta(s, params.cursor, inFlightRun))
    const limit = params.limit ?? 200
    if ('messageId' in params && params.messageId !== undefined) {
      // like the runtime's window: `limit` rows around the row, about half newer; [] when absent
      const at = s.messages.findIndex((m) => m.id === params.messageId)
      const newer = at < 0 ? 0 : Math.min(Math.floor(limit / 2), s.messages.length - 1 - at)
      const from = Math.max(0, at - (limit - 1 - newer))
      const window: ChatHistoryWindow = {
        sessionKey: s.row.key,
        sessionId: s.row.sessionId,
        messages: at < 0 ? [] : s.messages.slice(from, at + newer + 1).map((m, i) => ({ ...m, __openclaw: { id: m.id, seq: from + i + 1 } })),
        inFlightRun,
        thinkingLevel: s.row.thinkingLevel ?? null,
        fastMode: s.row.fastMode ?? null,
        verboseLevel: s.row.verboseLevel ?? null,
      }
      return ok(window)
    }
    const offset = ('offset' in params ? params.offset : undefined) ?? 0
    const end = s.messages.length - offset
    const start = Math.max(0, end - limit)
    return ok({
      sessionKey: s.row.key,
      sessionId: s.row.sessionId,
      messages: s.messages.slice(start, Math.max(0, end)),
      hasMore: start > 0,
      nextOffset: start > 0 ? offset + (end - start) : undefined,
      inFlightRun,
      thinkingLevel: s.row.thinkingLevel ?? null,
      fastMode: s.row.fastMode ?? null,
      verboseLevel: s.row.verboseLevel ?? null,
      ...(offset === 0 ? { deltaCursor: fakeCursor(s.row.key, s.row.sessionId, s.messages.length) } : {}),
    })
  }

  private historyDelta(s: FakeSession, cursor: string, inFlightRun: ChatHistoryPage['inFlightRun']): ChatHistoryCursorResult {
    const c = readFakeCursor(cursor)
    if (!c || c.sessionKey !== s.row.key || c.sessionId !== s.row.sessionId || c.lastSeq > s.messages.length) return { kind: 'reset' }
    if (s.messages.length - c.lastSeq > HISTORY_DELTA_MAX_MESSAGES) return { kind: 'reset' }
    const messages: SessionMessagePayload[] = s.messages.slice(c.lastSeq).map((m, i) => {
      const seq = c.lastSeq + i + 1
      const { id, runId, ...message } = m
      const run = runId ? { runId } : {}
      return { sessionKey: s.row.key, message: { ...message, __openclaw: { id, seq, ...run } }, messageId: id, messageSeq: seq, ts: m.timestamp, ...run }
    })
    const activeRunIds = inFlightRun ? [inFlightRun.runId] : []
    return {
      kind: 'delta',
      messages,
      deltaCursor: fakeCursor(s.row.key, s.row.sessionId, s.messages.length),
      sessionInfo: { hasActiveRun: activeRunIds.length > 0, activeRunIds },
      ...(inFlightRun ? { inFlightRun } : {}),
    }
  }

  async health(): Promise<Result<Results['health']>> {
    this.record('health', {})
    return ok(oneAgentHealth('main', '~/.loopdesk/agents/main/sessions/sessions.json', [...this.sessions.values()].map((s) => ({ key: s.row.key, updatedAt: s.row.updatedAt }))))
  }

  async status(): Promise<Result<Results['status']>> {
    this.record('status', {})
    return ok({
      ...oneAgentStatusParts('0.1.0-fake', 'main', '~/.loopdesk/agents/main/sessions/sessions.json', this.sessions.size),
      ok: true,
      version: '0.1.0-fake',
      uptimeMs: Date.now() - this.startedAt,
      stateDir: '~/.loopdesk',
      activeRuns: this.runs.size,
      lanes: {},
      configIssues: [...this.configIssues],
      credentials: { store: 'system' },
      ...(this.opts.listeningPort
        ? { gateway: { port: this.opts.listeningPort, url: `ws://127.0.0.1:${this.opts.listeningPort}`, bind: 'loopback' as const, fellBack: this.opts.listeningPort !== this.opts.gatewayPort } }
        : {}),
    })
  }

  async sessionsList(params: Parameters<Bridge['sessionsList']>[0]): Promise<Result<Results['sessions.list']>> {
    this.record('sessionsList', params)
    // like the runtime: archived sessions only when asked for (true: only them, "all": every session)
    const archived = params.archived ?? false
    let rows = [...this.sessions.values()].filter((s) => archived === 'all' || !!s.row.archived === archived)
    // like the runtime: the session's key, label, name and last-message preview; messages are searched by sessionsSearch
    const q = params.search?.trim().toLowerCase()
    if (q)
      rows = rows.filter((s) =>
        [s.row.key, s.row.label, s.row.displayName, s.row.lastMessagePreview].some((v) => typeof v === 'string' && v.toLowerCase().includes(q)),
      )
    const sorted = rows.map((s) => ({ ...s.row, ...(params.includeDerivedTitles ? derivedTitleOf(s) : {}) })).sort((a, b) => b.updatedAt - a.updatedAt)
    const offset = params.offset ?? 0
    const sessions = sorted.slice(offset, offset + (params.limit ?? 500))
    const end = offset + sessions.length
    return ok({
      ts: Date.now(),
      path: '~/.loopdesk/agents/main/sessions/sessions.json',
      count: sessions.length,
      total: sorted.length,
      hasMore: end < sorted.length,
      ...(end < sorted.length ? { nextOffset: end } : {}),
      defaults: { modelProvider: null, model: null, contextTokens: null, agentId: 'main', mainKey: 'agent:main:main' },
      sessions,
    })
  }

  async sessionsCreate(params: Parameters<Bridge['sessionsCreate']>[0]): Promise<Result<Results['sessions.create']>> {
    this.record('sessionsCreate', params)
    const key = params.key ?? `agent:main:chat-${this.id('')}`
    if (this.sessions.has(key)) return fail('INVALID_REQUEST', `session exists: ${key}`)
    let category: string | undefined
    if (params.category !== undefined) {
      const c = normalizeSessionCategory(params.category)
      if (!c.ok) return fail('INVALID_REQUEST', c.reason)
      category = c.value
    }
    const parent = params.parentSessionKey !== undefined ? this.session(params.parentSessionKey) : undefined
    if (params.parentSessionKey !== undefined && !parent) return fail('NOT_FOUND', `session not found: ${params.parentSessionKey}`)
    if (params.fork && !parent) return fail('INVALID_REQUEST', 'sessions.create fork requires parentSessionKey')
    // first messages (message/task, attachments) are not sent by this fake; a fork copies the parent's messages
    let copied = params.fork && parent ? parent.messages : []
    if (params.forkFrom === 'last-completed') {
      // through the last reply that ended normally, as the runtime cuts it
      const end = copied.findLastIndex((m) => isCompletedReply(m))
      if (end < 0) return fail('INVALID_REQUEST', 'sessions.create forkFrom=last-completed: the parent has no completed reply to fork from')
      copied = copied.slice(0, end + 1)
    }
    const messages = copied.map((m) => ({ ...m }))
    const row: SessionRow = { ...this.newRow(key, params.label), ...(category ? { category } : {}), ...(parent ? { spawnedBy: parent.row.key } : {}) }
    if (params.fork && parent) Object.assign(row, { forkSource: { sessionKey: parent.row.key, sessionId: parent.row.sessionId }, forkedFromParent: true })
    if (params.displayName !== undefined) row.displayName = params.displayName
    // as the runtime: a fork nobody named is "<parent's title> (fork)", numbered past the names taken
    else if (params.fork && parent && params.label === undefined) row.displayName = this.forkName(parent)
    // as the runtime: a fork keeps its parent's permission mode unless one is given
    const mode = params.permissionMode ?? (params.fork ? parent?.row.permissionMode : undefined)
    if (mode === 'workspace' || mode === 'full') return fail('INVALID_REQUEST', `sessions.create permissionMode "${mode}" is not offered`)
    if (mode) row.permissionMode = mode
    const s: FakeSession = { row, messages, events: [], queue: [] }
    this.sessions.set(key, s)
    this.changed(s, 'create')
    return ok({ ok: true, key, sessionId: s.row.sessionId, entry: { ...s.row } })
  }

  /** The runtime's name for an unnamed fork of `parent`. */
  private forkName(parent: FakeSession): string {
    const taken = [...this.sessions.values()].flatMap((x) => [x.row.label, x.row.displayName].filter((n): n is string => !!n))
    return numberedForkTitle(sessionTitle({ ...parent.row, ...derivedTitleOf(parent) }), taken)
  }

  async sessionsFork(params: Parameters<Bridge['sessionsFork']>[0]): Promise<Result<Results['sessions.fork']>> {
    this.record('sessionsFork', params)
    const parent = this.session(params.sessionKey)
    if (!parent) return fail('NOT_FOUND', `session not found: ${params.sessionKey}`)
    // as the runtime: the conversation before that user message, and its text for the composer
    const at = parent.messages.findIndex((m) => m.id === params.entryId && m.role === 'user')
    if (at < 0) return fail('INVALID_REQUEST', `sessions.fork: no user message ${params.entryId} in this session's transcript`)
    const key = `agent:main:chat-${this.id('')}`
    const row: SessionRow = {
      ...this.newRow(key),
      spawnedBy: parent.row.key,
      displayName: this.forkName(parent),
      forkSource: { sessionKey: parent.row.key, sessionId: parent.row.sessionId, entryId: params.entryId },
      forkedFromParent: true,
    }
    if (parent.row.permissionMode) row.permissionMode = parent.row.permissionMode
    const s: FakeSession = { row, messages: parent.messages.slice(0, at).map((m) => ({ ...m })), events: [], queue: [] }
    this.sessions.set(key, s)
    this.changed(s, 'create')
    return ok({ sessionKey: key, editorText: textOf(parent.messages[at].content) })
  }

  async sessionsPatch(params: Parameters<Bridge['sessionsPatch']>[0]): Promise<Result<Results['sessions.patch']>> {
    this.record('sessionsPatch', params)
    const s = this.session(params.key)
    if (!s) return fail('NOT_FOUND', `unknown session: ${params.key}`)
    const busy = !!s.row.activeRunId || s.queue.some((q) => q.status === 'queued')
    const organised = patchOrganisation(s.row, params, busy)
    if (typeof organised === 'string') return fail('INVALID_REQUEST', organised)
    if (organised === s.row) return ok({ ok: true, key: s.row.key, entry: { ...s.row } }) // a stale read acknowledgement
    if (params.permissionMode === 'workspace' || params.permissionMode === 'full') return fail('INVALID_REQUEST', `sessions.patch permissionMode "${params.permissionMode}" is not offered`)
    s.row = organised
    if (params.label !== undefined) s.row = { ...s.row, label: params.label ?? undefined }
    if (params.thinkingLevel !== undefined) s.row = { ...s.row, thinkingLevel: (params.thinkingLevel ?? undefined) as ThinkingLevel | undefined }
    if (params.model === null) {
      const { modelOverride: _cleared, ...rest } = s.row
      s.row = rest
    } else if (params.model !== undefined) {
      // as the runtime: a ref that is no model is refused; a chosen one shows on the row at once
      const slash = params.model.indexOf('/')
      if (slash <= 0) return fail('INVALID_REQUEST', `invalid model ref "${params.model}": expected "<provider>/<model>"`)
      s.row = { ...s.row, modelOverride: params.model, modelProvider: params.model.slice(0, slash), model: params.model.slice(slash + 1) }
    }
    if (params.fastMode !== undefined) s.row = { ...s.row, fastMode: params.fastMode ?? undefined }
    if (params.permissionMode !== undefined) s.row = { ...s.row, permissionMode: params.permissionMode ?? undefined }
    this.changed(s, 'patch')
    return ok({ ok: true, key: s.row.key, entry: { ...s.row } })
  }

  async sessionsReset(params: Parameters<Bridge['sessionsReset']>[0]): Promise<Result<Results['sessions.reset']>> {
    this.record('sessionsReset', params)
    const s = this.session(params.key)
    if (!s) return fail('NOT_FOUND', `unknown session: ${params.key}`)
    for (const r of this.runs.values()) if (r.sessionKey === s.row.key) r.aborted = true
    s.messages = []
    s.events = []
    s.queue = []
    const mode = s.row.permissionMode
    s.row = withOrganisation({ ...this.newRow(s.row.key, s.row.label), ...(mode ? { permissionMode: mode } : {}) }, keptOnReset(s.row))
    this.changed(s, 'reset')
    return ok({ ok: true, key: s.row.key, entry: { ...s.row } })
  }

  async sessionsDelete(params: Parameters<Bridge['sessionsDelete']>[0]): Promise<Result<Results['sessions.delete']>> {
    this.record('sessionsDelete', params)
    const s = this.session(params.key)
    const refused = deleteRefusal(params.key, s?.row, params)
    if (refused) return fail('INVALID_REQUEST', refused)
    if (!s) return ok({ ok: true, key: params.key, deleted: false, archived: [] })
    for (const r of this.runs.values()) if (r.sessionKey === s.row.key) r.aborted = true
    this.sessions.delete(params.key)
    this.emit({ event: 'sessions.changed', payload: { sessionKey: params.key, reason: 'delete', ts: Date.now() } })
    this.persist()
    return ok({ ok: true, key: params.key, deleted: true, archived: [] })
  }

  async sessionsAbort(params: Parameters<Bridge['sessionsAbort']>[0]): Promise<Result<Results['sessions.abort']>> {
    this.record('sessionsAbort', params)
    const sessionKey = params.key ?? (params.runId ? this.runs.get(params.runId)?.sessionKey : undefined)
    if (!sessionKey) return ok({ ok: true, abortedRunId: null, status: 'no-active-run' })
    const r = await this.abort({ sessionKey, runId: params.runId })
    const id = (r.ok ? r.data.runIds[0] : undefined) ?? null
    return ok({ ok: true, abortedRunId: id, status: id ? 'aborted' : 'no-active-run' })
  }

  async sessionsCompact(params: Parameters<Bridge['sessionsCompact']>[0]): Promise<Result<Results['sessions.compact']>> {
    this.record('sessionsCompact', params)
    const s = this.sessions.get(params.key)
    if (!s) return fail('INVALID_REQUEST', `unknown session: ${params.key}`)
    // like the runtime: the last turn stays, everything before it becomes one summary (when that is smaller)
    const keep = 2
    if (s.messages.length <= keep + 1) return ok({ ok: true, key: params.key, compacted: false, reason: 'the conversation is too short to compact' })
    const tokens = (ms: HistoryMessage[]) => Math.ceil(ms.reduce((n, m) => n + JSON.stringify(m.content).length, 0) / 4)
    const tokensBefore = tokens(s.messages)
    const older = s.messages.slice(0, -keep)
    const summary = `Summary of ${older.length} earlier messages.`
    s.messages = [{ role: 'compaction', content: summary, summary, timestamp: Date.now(), id: this.id('c') }, ...s.messages.slice(-keep)]
    this.persist()
    return ok({ ok: true, key: params.key, compacted: true, tokensBefore, tokensAfter: tokens(s.messages) })
  }

  private providerConfigured(provider: string): boolean {
    const providers = ((this.config.models as { providers?: Record<string, { baseUrl?: string }> })?.providers ?? {})
    return this.secrets[provider] === 'set' || !!providers[provider]?.baseUrl
  }

  async modelsList(): Promise<Result<Results['models.list']>> {
    this.record('modelsList', {})
    const providers = ((this.config.models as { providers?: Record<string, { baseUrl?: string; models?: Array<{ id: string; contextWindow?: number }> }> })?.providers ?? {})
    const custom: ModelChoice[] = Object.entries(providers).flatMap(([p, cfg]) =>
      (cfg.models ?? []).map((m) => ({
        ref: `${p}/${m.id}`,
        provider: p,
        id: m.id,
        name: m.id,
        contextWindow: m.contextWindow ?? 32768,
        maxTokens: 4096,
        reasoning: false,
        input: ['text'],
        configured: !!cfg.baseUrl || this.secrets[p] === 'set',
      })),
    )
    const models = [...MODELS.map((m) => ({ ...m, configured: this.providerConfigured(m.provider) })), ...custom]
    const primary = ((this.config.agents as { defaults?: { model?: { primary?: string } } })?.defaults?.model?.primary)
    return ok({ models, defaultModel: primary })
  }

  async sessionsSearch(params: Parameters<Bridge['sessionsSearch']>[0]): Promise<Result<Results['loopdesk.sessions.search']>> {
    this.record('sessionsSearch', params)
    const matches: SessionSearchMatch[] = []
    const newestFirst = [...this.sessions.values()].sort((a, b) => b.row.updatedAt - a.row.updatedAt)
    for (const s of newestFirst) {
      if (matches.length >= (params.limit ?? 50)) break
      for (const m of [...s.messages].reverse()) {
        if (m.role !== 'user' && m.role !== 'assistant' && m.role !== 'toolResult') continue
        const snippet = matchMessageSnippet(m, params.query)
        if (snippet === undefined) continue
        matches.push({ key: s.row.key, messageId: m.id, role: m.role, snippet })
        break
      }
    }
    return ok({ matches, partial: false })
  }

  /** like the runtime: every matching message of the session, oldest first, the newest `limit` listed */
  async chatFind(params: Parameters<Bridge['chatFind']>[0]): Promise<Result<Results['loopdesk.chat.find']>> {
    this.record('chatFind', params)
    const s = this.session(params.sessionKey)
    const all: ChatFindMatch[] = []
    for (const m of s?.messages ?? []) {
      if (m.role !== 'user' && m.role !== 'assistant' && m.role !== 'toolResult') continue
      const count = matchMessageSnippet(m, params.query) !== undefined ? countOccurrences(m, params.query) : 0
      if (count) all.push({ messageId: m.id, role: m.role, count })
    }
    const occurrences = all.reduce((n, m) => n + m.count, 0)
    return ok({ matches: all.slice(-(params.limit ?? 1000)), total: all.length, occurrences, partial: false })
  }

  async modelsProbe(params: Parameters<Bridge['modelsProbe']>[0]): Promise<Result<Results['loopdesk.models.probe']>> {
    this.record('modelsProbe', params)
    const saved = params.provider ? (this.config.models as { providers?: Record<string, { baseUrl?: string }> } | undefined)?.providers?.[params.provider] : undefined
    // a built-in provider's key, checked at its own API (the runtime knows where that is)
    const builtin = params.provider && !params.baseUrl && !saved?.baseUrl ? BUILTIN_API_URLS[params.provider] : undefined
    if (builtin) {
      const found = this.opts.providerChecks?.[params.provider!]
      const url = `${builtin}/models`
      if (!found) return ok({ ok: false, url, error: `could not connect: could not reach ${new URL(builtin).host}: timed out while connecting`, ms: 8000 })
      if ('error' in found) return ok({ ok: false, url, error: found.error, status: found.status, ms: 40 })
      return ok({ ok: true, url, models: [...found.models].sort((a, b) => a.id.localeCompare(b.id)), ms: 40 })
    }
    const base = (params.baseUrl ?? saved?.baseUrl ?? '').replace(/\/+$/, '')
    if (!base) return fail('INVALID_REQUEST', 'give a baseUrl or a configured provider')
    const servers = this.opts.modelServers ?? {}
    const answer = (b: string): Results['loopdesk.models.probe'] => {
      const url = `${b}/models`
      const server = servers[b]
      if (!server) {
        let host: string
        try {
          host = new URL(b).host
        } catch {
          return { ok: false, url, error: 'the base URL is not a valid URL', ms: 1 }
        }
        return { ok: false, url, error: `could not connect: could not reach ${host}: connection refused — is the server running?`, ms: 1 }
      }
      if ('error' in server) return { ok: false, url, error: server.error, status: server.status, ms: 3 }
      return { ok: true, url, models: [...server.models].sort((a, b2) => a.id.localeCompare(b2.id)), ms: 3 }
    }
    const first = answer(base)
    if (!first.ok && !/\/v1$/.test(base) && servers[`${base}/v1`]) return ok({ ...answer(`${base}/v1`), suggestedBaseUrl: `${base}/v1` })
    return ok(first)
  }

  async agentsList(): Promise<Result<Results['agents.list']>> {
    this.record('agentsList', {})
    // as the runtime resolves it: the configured folder, else the state dir's `workspace`
    const configured = (this.config.agents as { defaults?: { workspace?: string } } | undefined)?.defaults?.workspace
    return ok({ defaultId: 'main', mainKey: MAIN_KEY, scope: SESSION_SCOPE, agents: [{ id: 'main', workspace: configured ?? '~/.loopdesk/workspace' }] })
  }

  async toolsCatalog(params: Parameters<Bridge['toolsCatalog']>[0]): Promise<Result<Results['tools.catalog']>> {
    this.record('toolsCatalog', params)
    return ok({ tools: [{ name: 'exec', label: 'Run command', description: 'Runs a shell command', parameters: {}, needsApproval: true }] })
  }

  async settingsGet(): Promise<Result<Results['config.get']>> {
    this.record('settingsGet', {})
    return ok({
      path: '~/.loopdesk/loopdesk.json',
      exists: true,
      valid: this.configIssues.length === 0,
      hash: String(this.nextId),
      config: structuredClone(this.config),
      ...this.fileView(),
      issues: [...this.configIssues],
      secrets: { ...this.secrets },
    })
  }

  /** config.get's `fileConfig`: what the file says while it has problems (saves not in effect yet included) */
  private fileView(): { fileConfig?: Record<string, unknown> } {
    return this.configIssues.length && !this.fileUnreadable() ? { fileConfig: structuredClone(this.file) } : {}
  }

  /** a file-level problem (path ''): a syntax error, no access — the runtime cannot patch such a file */
  private fileUnreadable(): ConfigIssue | undefined {
    return this.configIssues.find((i) => i.path === '')
  }

  /** applies a merge patch as config.patch does: to the file; in effect once the file has no problem left */
  private applyConfigPatch(params: { patch?: Record<string, unknown> }): Results['config.patch'] {
    const patch = structuredClone(params.patch ?? {}) as Record<string, unknown>
    // Secrets are write-only: move them to the secret store and out of the config.
    const providers = (patch.models as { providers?: Record<string, Record<string, unknown>> } | undefined)?.providers
    for (const [id, p] of Object.entries(providers ?? {})) {
      // like the runtime: removing a provider of one's own removes its stored key too
      if (p === null && !BUILTIN_API_URLS[id]) delete this.secrets[id]
      if (p && typeof p === 'object' && 'apiKey' in p) {
        this.secrets[id] = p.apiKey ? 'set' : 'not set'
        delete p.apiKey
      }
    }
    const auth = (patch.gateway as { auth?: Record<string, unknown> } | undefined)?.auth
    if (auth && 'token' in auth) {
      this.secrets['gateway.auth.token'] = auth.token ? 'set' : 'not set'
      delete auth.token
    }
    const touched = patchedPaths(params.patch ?? {})
    this.configIssues = this.configIssues.filter((i) => !touched.some((p) => i.path === p || i.path.startsWith(`${p}.`) || i.path.startsWith(`${p}[`)))
    this.file = mergePatch(this.file, patch) as Record<string, unknown>
    // still invalid: written, but the last good config stays in effect
    if (this.configIssues.length === 0) this.config = this.file
    this.nextId++
    this.persist()
    return { ok: true, hash: String(this.nextId), config: structuredClone(this.config), ...this.fileView(), secrets: { ...this.secrets }, issues: [...this.configIssues] }
  }

  /** The runtime's rename of a provider of one's own: entry, stored key and model refs move in one write. */
  async providerRename(params: Parameters<Bridge['providerRename']>[0]): Promise<Result<Results['loopdesk.config.renameProvider']>> {
    this.record('providerRename', params)
    const { from, to } = params
    const providers = (this.file.models as { providers?: Record<string, unknown> } | undefined)?.providers ?? {}
    if (!new RegExp(PROVIDER_NAME_PATTERN).test(to)) return fail('INVALID_REQUEST', `invalid loopdesk.config.renameProvider params: /to: must match pattern "${PROVIDER_NAME_PATTERN}"`)
    if (from === to) return fail('INVALID_REQUEST', `the provider is named “${to}” already`)
    const builtin = (id: string) => !!BUILTIN_API_URLS[id] || MODELS.some((m) => m.provider === id)
    if (builtin(from)) return fail('INVALID_REQUEST', `“${from}” is a built-in provider: only providers of your own can be renamed`)
    if (builtin(to)) return fail('INVALID_REQUEST', `“${to}” is the name of a built-in provider: pick another name`)
    const unreadable = this.fileUnreadable()
    if (unreadable) return fail('INVALID_REQUEST', `cannot patch ~/.loopdesk/loopdesk.json: ${unreadable.message}; fix the file first`)
    if (this.configIssues.length) {
      const list = this.configIssues.map((i) => `${i.path || '(root)'}: ${i.message}`).join('; ')
      return fail('INVALID_REQUEST', `cannot rename “${from}” while the config file has problems (${list}): fix them first — the settings in use still name “${from}”`)
    }
    if (!Object.hasOwn(providers, from)) return fail('NOT_FOUND', `no provider named “${from}” in the config`)
    if (Object.hasOwn(providers, to)) return fail('INVALID_REQUEST', `a provider named “${to}” exists already: pick another name`)
    const p = params.patch ?? {}
    const keys = (v: unknown) => (v && typeof v === 'object' ? Object.keys(v) : [])
    const agents0 = p.agents as { defaults?: { model?: object } } | undefined
    const stray =
      keys(p).some((k) => k !== 'models' && k !== 'agents') ||
      keys(p.models).some((k) => k !== 'providers') ||
      keys((p.models as { providers?: object } | undefined)?.providers).some((k) => k !== to) ||
      keys(agents0).some((k) => k !== 'defaults') ||
      keys(agents0?.defaults).some((k) => k !== 'model') ||
      keys(agents0?.defaults?.model).some((k) => k !== 'primary')
    if (stray) return fail('INVALID_REQUEST', `loopdesk.config.renameProvider: patch may only change models.providers.${to} and agents.defaults.model.primary`)
    const next = structuredClone(this.file)
    ;(next.models as Record<string, unknown>).providers = Object.fromEntries(Object.entries(providers).map(([id, e]) => [id === from ? to : id, e]))
    const movedRefs: string[] = []
    const agents = next.agents as { defaults?: { model?: { primary?: string } }; list?: Array<{ model?: string }> } | undefined
    const moved = (ref: string | undefined) => (ref?.startsWith(`${from}/`) ? `${to}/${ref.slice(from.length + 1)}` : undefined)
    const primary = moved(agents?.defaults?.model?.primary)
    if (primary) {
      agents!.defaults!.model!.primary = primary
      movedRefs.push('agents.defaults.model.primary')
    }
    agents?.list?.forEach((a, i) => {
      const ref = moved(a.model)
      if (ref) {
        a.model = ref
        movedRefs.push(`agents.list[${i}].model`)
      }
    })
    this.file = next
    // the key moves with it; an orphan key under the new name is not inherited
    if (this.secrets[from]) this.secrets[to] = this.secrets[from]
    else delete this.secrets[to]
    delete this.secrets[from]
    const result = this.applyConfigPatch({ patch: params.patch })
    // sessions that ran (or chose) a model of it name the new provider
    let movedSessions = 0
    for (const session of this.sessions.values()) {
      if (session.row.modelProvider !== from) continue
      session.row = { ...session.row, modelProvider: to }
      movedSessions++
    }
    return ok({ ...result, movedRefs, movedSessions })
  }

  async settingsSet(params: Parameters<Bridge['settingsSet']>[0]): Promise<Result<Results['config.patch']>> {
    this.record('settingsSet', params)
    const limit = this.opts.configWriteLimit
    if (limit) {
      const now = Date.now()
      this.configWrites = this.configWrites.filter((t) => t > now - limit.windowMs)
      if (this.configWrites.length >= limit.max) {
        const retryAfterMs = Math.max(1, this.configWrites[0] + limit.windowMs - now)
        return {
          ok: false,
          error: {
            code: 'UNAVAILABLE',
            message: `rate limit exceeded for config.patch: too many configuration writes, retry in ${Math.ceil(retryAfterMs / 1000)} s`,
            details: { code: 'RATE_LIMITED', method: 'config.patch' },
            retryable: true,
            retryAfterMs,
          },
        }
      }
      this.configWrites.push(now)
    }
    const unreadable = this.fileUnreadable()
    if (unreadable) return fail('INVALID_REQUEST', `cannot patch ~/.loopdesk/loopdesk.json: ${unreadable.message}; fix the file first`)
    return ok(this.applyConfigPatch(params))
  }

  async approvalResolve(params: Parameters<Bridge['approvalResolve']>[0]): Promise<Result<Results['exec.approval.resolve']>> {
    this.record('approvalResolve', params)
    const a = this.approvals.get(params.id)
    if (!a) return fail('APPROVAL_NOT_FOUND', `no pending approval ${params.id}`)
    a.resolve(params.decision)
    return ok({ ok: true, id: params.id, decision: params.decision })
  }

  async recentEvents(params: Parameters<Bridge['recentEvents']>[0]): Promise<Result<Results['loopdesk.events.recent']>> {
    this.record('recentEvents', params)
    const s = this.session(params.sessionKey)
    const events = s ? s.events.slice(-Math.min(RING, params.limit ?? 1000)) : []
    const approvals = [...this.approvals.values()].map((a) => a.req).filter((r) => r.sessionKey === params.sessionKey)
    return ok({ events, approvals })
  }

  async queueList(params: Parameters<Bridge['queueList']>[0]): Promise<Result<Results['loopdesk.queue.list']>> {
    this.record('queueList', params)
    return ok({ items: (this.session(params.sessionKey)?.queue ?? []).map((q) => ({ ...q })) })
  }

  async queueRemove(params: Parameters<Bridge['queueRemove']>[0]): Promise<Result<Results['loopdesk.queue.remove']>> {
    this.record('queueRemove', params)
    const s = this.session(params.sessionKey)
    const item = s?.queue.find((q) => q.id === params.id && q.status === 'queued')
    if (!s || !item) return ok({ ok: true, removed: false })
    item.status = 'removed'
    this.queueChanged(s)
    return ok({ ok: true, removed: true })
  }

  async queueReorder(params: Parameters<Bridge['queueReorder']>[0]): Promise<Result<Results['loopdesk.queue.reorder']>> {
    this.record('queueReorder', params)
    const s = this.session(params.sessionKey)
    if (!s) return ok({ ok: true, ids: [] })
    // as the runtime: the named waiting items take the places the named ones held, in the order given
    const waiting = s.queue.filter((q) => q.status === 'queued')
    const named = params.ids.map((id) => waiting.find((q) => q.id === id)).filter((q, i, a): q is QueueItem => !!q && a.indexOf(q) === i)
    const slots = named.map((q) => s.queue.indexOf(q)).sort((a, b) => a - b)
    const moved = slots.some((slot, i) => s.queue[slot] !== named[i])
    slots.forEach((slot, i) => (s.queue[slot] = named[i]))
    if (moved) this.queueChanged(s)
    return ok({ ok: true, ids: s.queue.filter((q) => q.status === 'queued').map((q) => q.id) })
  }

  async queueHold(params: Parameters<Bridge['queueHold']>[0]): Promise<Result<Results['loopdesk.queue.hold']>> {
    this.record('queueHold', params)
    const s = this.session(params.sessionKey)
    const held = s?.queue.filter((q) => q.status === 'queued' && !q.held) ?? []
    for (const q of held) q.held = true
    if (s && held.length) this.queueChanged(s)
    return ok({ ok: true, ids: held.map((q) => q.id) })
  }

  async queueRelease(params: Parameters<Bridge['queueRelease']>[0]): Promise<Result<Results['loopdesk.queue.release']>> {
    this.record('queueRelease', params)
    const s = this.session(params.sessionKey)
    const released = s?.queue.filter((q) => q.status === 'queued' && q.held && (!params.ids || params.ids.includes(q.id))) ?? []
    for (const q of released) delete q.held
    if (s && released.length) {
      this.queueChanged(s)
      if (!s.row.activeRunId) this.drainNext(s)
    }
    return ok({ ok: true, ids: released.map((q) => q.id) })
  }

  async prefsGet(): Promise<Result<Results['loopdesk.prefs.get']>> {
    this.record('prefsGet', {})
    return ok({ ...this.prefs })
  }

  async prefsSet(params: Parameters<Bridge['prefsSet']>[0]): Promise<Result<Results['loopdesk.prefs.set']>> {
    this.record('prefsSet', params)
    this.prefs = { ...this.prefs, ...params }
    this.persist()
    return ok({ ...this.prefs })
  }

  // ------------------------------------------------------------------------------ device pairing (the gateway's)

  subscribePairing(listener: (event: PairingEvent) => void): () => void {
    this.pairingListeners.add(listener)
    return () => void this.pairingListeners.delete(listener)
  }

  private emitPairing(ev: PairingEvent) {
    for (const l of [...this.pairingListeners]) l(ev)
  }

  private livePairingRequests(): DevicePairRequested[] {
    const now = Date.now()
    for (const r of this.pairingRequests.values()) if (now - r.ts > PAIRING_REQUEST_TTL_MS) this.pairingRequests.delete(r.requestId)
    return [...this.pairingRequests.values()].sort((a, b) => b.ts - a.ts)
  }

  async pairingList(params: Parameters<PairingBridge['pairingList']>[0]): ReturnType<PairingBridge['pairingList']> {
    this.calls.push({ name: 'pairingList', params })
    return { ok: true, data: { pending: this.livePairingRequests(), paired: this.pairedDevices.map((d) => ({ ...d })), loopdeskRejected: this.liveRejections() } }
  }

  private liveRejections(): RejectedDeviceInfo[] {
    const now = Date.now()
    for (const r of this.rejectedDevices.values()) if (r.untilMs <= now) this.rejectedDevices.delete(r.deviceId)
    return [...this.rejectedDevices.values()].sort((a, b) => b.rejectedAtMs - a.rejectedAtMs).map((r) => ({ ...r }))
  }

  async pairingLiftRejection(params: Parameters<PairingBridge['pairingLiftRejection']>[0]): ReturnType<PairingBridge['pairingLiftRejection']> {
    this.calls.push({ name: 'pairingLiftRejection', params })
    this.liveRejections()
    if (!this.rejectedDevices.delete(params.deviceId)) {
      const message = `device ${params.deviceId} is not refused (never rejected, already lifted, or its time is up)`
      return { ok: false, error: { code: 'INVALID_REQUEST', message, details: { code: PAIRING_REJECTION_NOT_FOUND } } }
    }
    this.emitPairing({ event: REJECTION_LIFTED_EVENT, payload: { deviceId: params.deviceId, ts: Date.now() } })
    return { ok: true, data: { deviceId: params.deviceId, lifted: true } }
  }

  private takePairing(requestId: string): DevicePairRequested | undefined {
    this.livePairingRequests()
    const r = this.pairingRequests.get(requestId)
    this.pairingRequests.delete(requestId)
    return r
  }

  private static pairingGone(requestId: string) {
    const message = `unknown pairing request: ${requestId} (answered or expired; the device asks again when it reconnects)`
    return { ok: false as const, error: { code: 'INVALID_REQUEST' as const, message, details: { code: PAIRING_REQUEST_NOT_FOUND } } }
  }

  async pairingApprove(params: Parameters<PairingBridge['pairingApprove']>[0]): ReturnType<PairingBridge['pairingApprove']> {
    this.calls.push({ name: 'pairingApprove', params })
    const r = this.takePairing(params.requestId)
    if (!r) return FakeBridge.pairingGone(params.requestId)
    const now = Date.now()
    this.pairedDevices.push({ deviceId: r.deviceId, publicKey: r.publicKey, clientId: r.clientId, createdAtMs: now, approvedAtMs: now, lastSeenAtMs: now, connected: false, roles: [], tokens: [] })
    this.emitPairing({ event: 'device.pair.resolved', payload: { requestId: r.requestId, deviceId: r.deviceId, decision: 'approved', ts: now } })
    const device = { deviceId: r.deviceId, publicKey: r.publicKey, clientId: r.clientId, platform: r.platform, roles: [r.role], scopes: r.scopes, createdAtMs: now, approvedAtMs: now }
    return { ok: true, data: { requestId: r.requestId, device } }
  }

  async pairingReject(params: Parameters<PairingBridge['pairingReject']>[0]): ReturnType<PairingBridge['pairingReject']> {
    this.calls.push({ name: 'pairingReject', params })
    const r = this.takePairing(params.requestId)
    if (!r) return FakeBridge.pairingGone(params.requestId)
    const now = Date.now()
    this.rejectDevice({ deviceId: r.deviceId, clientId: r.clientId, platform: r.platform, remoteIp: r.remoteIp }, now)
    this.emitPairing({ event: 'device.pair.resolved', payload: { requestId: r.requestId, deviceId: r.deviceId, decision: 'rejected', ts: now } })
    return { ok: true, data: { requestId: r.requestId, deviceId: r.deviceId } }
  }

  /** Tests: the gateway refuses this device for PAIRING_REJECTION_MS from `rejectedAtMs` (a rejection made elsewhere). */
  rejectDevice(device: Omit<RejectedDeviceInfo, 'rejectedAtMs' | 'untilMs'>, rejectedAtMs = Date.now()) {
    this.rejectedDevices.set(device.deviceId, { ...device, rejectedAtMs, untilMs: rejectedAtMs + PAIRING_REJECTION_MS })
  }

  /**
   * Tests: a remote device asks to be paired (the gateway refused its connect), as the gateway does it:
   * one request per device (asking again refreshes it quietly), approvers told once.
   */
  requestPairing(device: Partial<DevicePairRequested> & { deviceId: string }, opts: { unannounced?: boolean } = {}): DevicePairRequested {
    const open = [...this.pairingRequests.values()].find((r) => r.deviceId === device.deviceId)
    const request: DevicePairRequested = {
      requestId: open?.requestId ?? `req-${this.nextId++}`,
      publicKey: `key-${device.deviceId}`,
      clientId: 'openclaw-control-ui',
      clientMode: 'ui',
      role: 'operator',
      scopes: [SCOPES.read],
      remoteIp: '192.0.2.10',
      ts: Date.now(),
      ...device,
    }
    this.pairingRequests.set(request.requestId, request)
    // unannounced: the event was lost (the page was disconnected when it went out)
    if (!open && !opts.unannounced) this.emitPairing({ event: 'device.pair.requested', payload: request })
    return request
  }

  /** Tests: a request answered elsewhere (the CLI) — gone, approvers told. */
  resolvePairingElsewhere(requestId: string, decision: 'approved' | 'rejected') {
    const r = this.takePairing(requestId)
    if (r) this.emitPairing({ event: 'device.pair.resolved', payload: { requestId, deviceId: r.deviceId, decision, ts: Date.now() } })
  }

  /** Tests: another window (or the CLI) lifts a device's rejection — the event tells this one. */
  liftRejectionElsewhere(deviceId: string) {
    this.liveRejections()
    if (this.rejectedDevices.delete(deviceId)) this.emitPairing({ event: REJECTION_LIFTED_EVENT, payload: { deviceId, ts: Date.now() } })
  }

  /**
   * Tests: `loopdesk devices remove <id>` (device.pair.remove) as the gateway does it: a waiting request is
   * dropped and answered "rejected" (no rejection kept), a rejection is lifted, a paired device forgotten.
   */
  removeDeviceElsewhere(deviceId: string) {
    const now = Date.now()
    for (const r of this.livePairingRequests()) {
      if (r.deviceId !== deviceId) continue
      this.pairingRequests.delete(r.requestId)
      this.emitPairing({ event: 'device.pair.resolved', payload: { requestId: r.requestId, deviceId, decision: 'rejected', ts: now } })
    }
    this.liftRejectionElsewhere(deviceId)
    this.pairedDevices = this.pairedDevices.filter((d) => d.deviceId !== deviceId)
  }

  /** Tests: a request that lapsed (no event, as on the gateway). */
  expirePairing(requestId: string) {
    this.pairingRequests.delete(requestId)
  }

  // ------------------------------------------------------------------------------ test helpers

  /** Emit an arbitrary event (tests: out-of-order delivery, foreign runs). */
  inject(ev: AnyEvent) {
    this.emit(ev)
  }

  pendingApprovals(): ExecApprovalRequest[] {
    return [...this.approvals.values()].map((a) => a.req)
  }

  isRunning(sessionKey: string): boolean {
    return [...this.runs.values()].some((r) => r.sessionKey === sessionKey)
  }
}

/** A flat copy of a (rope) string. */
function flatten(s: string): string {
  return (' ' + s).slice(1)
}

/** RFC 7396 JSON merge patch. */
/** the dot paths a merge patch sets (its leaves; a list is one leaf) */
function patchedPaths(patch: Record<string, unknown>, at = ''): string[] {
  return Object.entries(patch).flatMap(([k, v]) => {
    const p = at ? `${at}.${k}` : k
    return v && typeof v === 'object' && !Array.isArray(v) ? patchedPaths(v as Record<string, unknown>, p) : [p]
  })
}

export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!patch || typeof patch !== 'object' || Array.isArray(patch)) return patch
  const out: Record<string, unknown> = target && typeof target === 'object' && !Array.isArray(target) ? { ...(target as Record<string, unknown>) } : {}
  for (const [k, v] of Object.entries(patch as Record<string, unknown>)) {
    if (v === null) delete out[k]
    else out[k] = mergePatch(out[k], v)
  }
  return out
}
