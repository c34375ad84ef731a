// The Bridge is the only way the renderer reaches the runtime. Two transports implement it:
// IPC through the preload (desktop window) and WebSocket to the gateway (browser mode).
import type { AnyEvent, EventFilter } from './events'
import type { ChatHistoryCursorResult, ChatHistoryPage, ChatHistoryWindow, MethodName, ParamsOf, Result, ResultOf } from './methods'
import type { PairingBridge, PairingCallName } from './pairing'

/**
 * Bridge call name → method table entry. The preload exposes exactly these names, the pairing calls
 * (`PAIRING_CALLS` in ./pairing.ts: the gateway's own state, not the runtime's), `subscribe` and
 * `subscribePairing`.
 */
export const BRIDGE_METHODS = {
  run: 'agent',
  send: 'chat.send',
  wait: 'agent.wait',
  abort: 'chat.abort',
  history: 'chat.history',
  health: 'health',
  status: 'status',
  sessionsList: 'sessions.list',
  sessionsCreate: 'sessions.create',
  sessionsFork: 'sessions.fork',
  sessionsPatch: 'sessions.patch',
  sessionsReset: 'sessions.reset',
  sessionsDelete: 'sessions.delete',
  sessionsAbort: 'sessions.abort',
  sessionsCompact: 'sessions.compact',
  modelsList: 'models.list',
  agentsList: 'agents.list',
  toolsCatalog: 'tools.catalog',
  settingsGet: 'config.get',
  settingsSet: 'config.patch',
  approvalResolve: 'exec.approval.resolve',
  recentEvents: 'loopdesk.events.recent',
  sessionsSearch: 'loopdesk.sessions.search',
  chatFind: 'loopdesk.chat.find',
  modelsProbe: 'loopdesk.models.probe',
  providerRename: 'loopdesk.config.renameProvider',
  queueList: 'loopdesk.queue.list',
  queueRemove: 'loopdesk.queue.remove',
  queueHold: 'loopdesk.queue.hold',
  queueRelease: 'loopdesk.queue.release',
  queueReorder: 'loopdesk.queue.reorder',
  prefsGet: 'loopdesk.prefs.get',
  prefsSet: 'loopdesk.prefs.set',
} as const satisfies Record<string, MethodName>

export type BridgeCallName = keyof typeof BRIDGE_METHODS
export const BRIDGE_CALL_NAMES = Object.keys(BRIDGE_METHODS) as BridgeCallName[]

/** IPC channel used for one bridge call (fixed allow-list; there is no generic channel). */
export const ipcChannel = (name: BridgeCallName | PairingCallName | 'subscribe' | 'subscribePairing' | 'unsubscribe' | 'event') =>
  `loopdesk:${name}`

type Calls = {
  [K in Exclude<BridgeCallName, 'history'>]: (
    params: ParamsOf<(typeof BRIDGE_METHODS)[K]>,
  ) => Promise<Result<ResultOf<(typeof BRIDGE_METHODS)[K]>>>
} & {
  // A page (older ones with offset), or with `cursor` (a page's `deltaCursor`) only what was appended since:
  // the UI resyncs a loaded session that way. A `messageId` window of the current transcript locates a
  // message (a search hit); earlier transcripts (`sessionId`) stay gateway-only.
  history(params: HistoryCursorParams): Promise<Result<ChatHistoryCursorResult>>
  history(params: HistoryPageParams): Promise<Result<ChatHistoryPage>>
  // The rows around one message (a search hit, a find match): where it is before paging back to it.
  history(params: HistoryWindowParams): Promise<Result<ChatHistoryWindow>>
}

/** chat.history params for a page through the Bridge */
export type HistoryPageParams = Omit<ParamsOf<'chat.history'>, 'cursor' | 'messageId' | 'sessionId'> & { cursor?: undefined }
/** chat.history params for the rows around one message of the current transcript */
export type HistoryWindowParams = Omit<ParamsOf<'chat.history'>, 'cursor' | 'sessionId' | 'offset'> & { messageId: string; cursor?: undefined }
/** chat.history params for a delta through the Bridge (offset cannot go with a cursor) */
export type HistoryCursorParams = Omit<ParamsOf<'chat.history'>, 'cursor' | 'messageId' | 'sessionId' | 'offset'> & { cursor: string }

export interface Bridge extends Calls, PairingBridge {
  /** Receive events matching the filter; returns the unsubscribe function. */
  subscribe(filter: EventFilter, listener: (event: AnyEvent) => void): () => void
  /** Which transport this is ('ipc' in the desktop window, 'ws' in a browser). */
  readonly transport: 'ipc' | 'ws'
}

declare global {
  interface Window {
    /** Set by the preload in the desktop window. */
    loopdesk?: Bridge
  }
}
