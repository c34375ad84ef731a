// Zustand stores, one per concern. They are created per app instance (tests build fresh ones) and
// only hold state; all bridge I/O and event routing lives in the controller.
import type { DetachedView } from './detached-window'
import { createStore, type StoreApi } from 'zustand/vanilla'
import type { DevicePairRequested, QueueItem } from '../../../shared/events'
import type { ModelChoice, Prefs, Results, SessionRow } from '../../../shared/methods'
import type { PairingRefusal } from '../bridge/connection'
import type { RejectedDeviceInfo } from '../../../shared/pairing'
import type { PendingAttachment } from './attachments'
import { savedInputHistory } from './input-history'
import { savedDrafts } from './saved-drafts'
import type { Transcript } from './types'

export interface SessionsState {
  rows: SessionRow[]
  loaded: boolean
  selectedKey?: string
  search: string
  /** keys matching the content search (undefined = no content search active) */
  contentMatches?: string[]
  /** key → the matching message's snippet, for sessions found by their messages */
  contentSnippets?: Record<string, string>
  /** key → the matching message's history row id: opening the session from the search lands on it */
  contentHits?: Record<string, string>
  /** archived sessions are listed too (they are loaded either way) */
  showArchived: boolean
  error?: string
  /** exec approvals waiting for an answer, any session (open or not): sessionKey → approval id → expiresAt */
  pendingApprovals: Record<string, Record<string, number>>
  /** sessions whose run was accepted but waits for a slot (the `lane` stream), open or not: sessionKey → runId */
  waitingRuns?: Record<string, string>
}

export interface RunsState {
  /** transcripts of recently opened sessions (bounded cache) */
  transcripts: Record<string, Transcript>
  /** sessions whose history is being fetched */
  loading: Record<string, boolean>
  loadErrors: Record<string, string | undefined>
  /** a message to scroll to and highlight (a search hit, the find bar's current match); `seq` tells repeats apart */
  focus?: MessageFocus
  /**
   * sessions shown at a detached window of rows around a jump's message instead of their live end
   * (`detached-window.ts`); the live transcript goes on beside it
   */
  detached?: Record<string, DetachedView | undefined>
}

export interface MessageFocus {
  sessionKey: string
  /** history row id */
  messageId: string
  seq: number
  /** the find bar's: stays highlighted while it is open (a search hit's highlight fades) */
  persist?: boolean
  /** the find bar's query: marked inside the row, and picks the part of a long message that has it */
  query?: string
  /** the find bar's: which occurrence of the query in the message (0 = its first) is the current one */
  occurrence?: number
}

export interface QueueEntry extends QueueItem {
  /** when we last saw the item change */
  seenAt: number
}

export interface ComposerState {
  drafts: Record<string, string>
  /** sent messages, newest last (↑ recalls them) */
  history: string[]
  /** per-session queue as reported by the runtime, plus outcomes of items that left it */
  queues: Record<string, QueueEntry[]>
  sending: boolean
  /** per-session attachments waiting to be sent (memory only: never persisted, a reload drops them) */
  attachments: Record<string, PendingAttachment[]>
  /** per-session messages about files that were refused or could not be read */
  attachErrors: Record<string, string[] | undefined>
  /** per-session: the attachments are being read for a send */
  encoding: Record<string, boolean | undefined>
  /** the last write of the drafts to localStorage failed (quota, storage off): they live in memory only */
  draftsUnsaved?: boolean
}

export interface InspectorState {
  open: boolean
  /** streams hidden by the filter */
  hiddenStreams: string[]
  /** show only the events that report a failure (isErrorEvent), whatever their stream */
  errorsOnly?: boolean
  runFilter?: string
  /** bumped when the event ring changed (only while open) */
  version: number
}

export interface SettingsState {
  connection: 'connecting' | 'ready' | 'error'
  connectionError?: string
  /** the gateway no longer accepts this page's token or device token: the user needs a new link */
  tokenChanged?: boolean
  /** the gateway took the token but no longer knows this browser (its pairing was removed): it waits for approval */
  pairingRequired?: PairingRefusal
  config?: Results['config.get']
  models: ModelChoice[]
  modelsLoaded: boolean
  defaultModel?: string
  prefs: Prefs
  status?: Results['status']
  settingsOpen: boolean
  settingsSection?: string
  /** a provider Settings opens at (scrolled to, focused): the one a failed run used */
  settingsProvider?: string
  /** a gateway token generated in this window (shown in the CLI snippet) */
  revealedToken?: string
  /** config saves the gateway refused for now (rate limit): they are sent again at `retryAt` */
  saveRetry?: { retryAt: number; count: number; rateLimited: boolean; what: string }
}

export interface Toast {
  id: number
  kind: 'error' | 'info'
  text: string
}

export interface UiState {
  toasts: Toast[]
  /** expanded tool cards / inspector rows, by key (survives virtualization) */
  expanded: Record<string, boolean>
  /**
   * cards and groups the find bar opened only to show a match (they were closed): folded back when find moves
   * on or closes (`Controller.foldFindOpened`), unless the user took them over (toggled, clicked, typed in them)
   */
  findOpened?: Record<string, true>
  /** a request to open the header's model picker (a failed run's "Choose another model", `/model`); seq tells repeats apart */
  modelPicker?: { sessionKey: string; seq: number }
  /** a tool card to scroll to, open (and its group) and outline briefly: the Inspector's "Show in conversation", a group's "Jump to failed" */
  reveal?: { sessionKey: string; key: string; seq: number }
  /**
   * a new session (New session, Fork) is being created and will open: the message box of the one still shown
   * takes no input meanwhile — a message typed and sent in that moment went to the old session, the new one
   * opening empty right after
   */
  openingSession?: boolean
}

/** Remote devices asking to be paired with the gateway (state/pairing.ts keeps it). */
export interface PairingState {
  /** pending requests, newest first */
  requests: DevicePairRequested[]
  /** an answer on its way, per request id */
  busy: Record<string, 'approve' | 'reject' | undefined>
  /** why the last answer to a request failed (it is still pending) */
  errors: Record<string, string | undefined>
  /** devices refused after a rejection (device.pair.list's loopdeskRejected), latest first */
  rejected: RejectedDeviceInfo[]
  /** "Allow to ask again" on its way, per device id */
  lifting: Record<string, boolean | undefined>
}

export interface AppStores {
  sessions: StoreApi<SessionsState>
  runs: StoreApi<RunsState>
  composer: StoreApi<ComposerState>
  inspector: StoreApi<InspectorState>
  settings: StoreApi<SettingsState>
  ui: StoreApi<UiState>
  pairing: StoreApi<PairingState>
}

const DRAFTS_KEY = 'loopdesk.drafts'
const HISTORY_KEY = 'loopdesk.inputHistory'

function readJson<T>(key: string, fallback: T): T {
  try {
    const raw = localStorage.getItem(key)
    return raw ? (JSON.parse(raw) as T) : fallback
  } catch {
    return fallback
  }
}

let warned = false
/** false when the value could not be stored (quota exceeded, storage disabled): logged once, never fatal */
function writeJson(key: string, value: unknown): boolean {
  try {
    localStorage.setItem(key, JSON.stringify(value))
    return true
  } catch (err) {
    if (!warned) console.warn(`loopdesk: could not save ${key} to localStorage (${String(err)}); kept in memory until the window closes`)
    warned = true
    return false
  }
}

/** The saved input history, bounded (a history saved before it was bounded is rewritten smaller). */
function readHistory(): string[] {
  const raw = readJson<unknown>(HISTORY_KEY, [])
  const list = Array.isArray(raw) ? raw.filter((h): h is string => typeof h === 'string') : []
  const kept = savedInputHistory(list)
  if (kept.length !== list.length) writeJson(HISTORY_KEY, kept)
  return kept
}

/** The saved drafts, bounded (drafts saved before they were bounded are rewritten smaller, "" ones dropped). */
function readDrafts(): Record<string, string> {
  const raw = readJson<unknown>(DRAFTS_KEY, {})
  const all = raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {}
  const kept = savedDrafts(all)
  if (Object.keys(kept).length !== Object.keys(all).length) writeJson(DRAFTS_KEY, kept)
  return kept
}

function writeDrafts(composer: StoreApi<ComposerState>, openKey: string | undefined) {
  const ok = writeJson(DRAFTS_KEY, savedDrafts(composer.getState().drafts, openKey))
  if (!!composer.getState().draftsUnsaved === !ok) return
  composer.setState({ draftsUnsaved: !ok || undefined })
}

export const DEFAULT_PREFS: Prefs = { theme: 'system', inspectorOpen: false, inspectorWidth: 420, sidebarWidth: 280 }

export function createAppStores(): AppStores {
  const composer = createStore<ComposerState>(() => ({
    drafts: readDrafts(),
    history: readHistory(),
    queues: {},
    sending: false,
    attachments: {},
    attachErrors: {},
    encoding: {},
  }))
  const sessions = createStore<SessionsState>(() => ({ rows: [], loaded: false, search: '', showArchived: false, pendingApprovals: {} }))
  // Drafts and input history survive reloads (they are UI state, not transcript). Only their text:
  // pending attachments are not written anywhere, so a reload drops them.
  let lastDrafts = composer.getState().drafts
  let lastHistory = composer.getState().history
  let draftTimer: ReturnType<typeof setTimeout> | undefined
  composer.subscribe((s) => {
    if (s.history !== lastHistory) {
      lastHistory = s.history
      writeJson(HISTORY_KEY, savedInputHistory(s.history))
    }
    if (s.drafts !== lastDrafts) {
      lastDrafts = s.drafts
      clearTimeout(draftTimer)
      draftTimer = setTimeout(() => writeDrafts(composer, sessions.getState().selectedKey), 150)
    }
  })
  return {
    sessions,
    runs: createStore<RunsState>(() => ({ transcripts: {}, loading: {}, loadErrors: {} })),
    composer,
    inspector: createStore<InspectorState>(() => ({ open: false, hiddenStreams: [], version: 0 })),
    settings: createStore<SettingsState>(() => ({
      connection: 'connecting',
      models: [],
      modelsLoaded: false,
      prefs: DEFAULT_PREFS,
      settingsOpen: false,
    })),
    ui: createStore<UiState>(() => ({ toasts: [], expanded: {} })),
    pairing: createStore<PairingState>(() => ({ requests: [], busy: {}, errors: {}, rejected: [], lifting: {} })),
  }
}

/** The session's run waits for a slot (its lifecycle start or end has not come yet). */
export const isWaiting = (s: SessionsState, key: string) => s.waitingRuns?.[key] !== undefined

/** Pending approvals of one session, and of all sessions. */
export const approvalsOf = (s: SessionsState, key: string) => Object.keys(s.pendingApprovals[key] ?? {}).length
export const approvalsTotal = (s: SessionsState) => Object.values(s.pendingApprovals).reduce((n, m) => n + Object.keys(m).length, 0)

/** Flushes drafts synchronously (tests and page unload). */
export function saveDraftsNow(stores: AppStores) {
  writeDrafts(stores.composer, stores.sessions.getState().selectedKey)
}
