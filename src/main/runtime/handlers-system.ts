// Everything that is not a run, a session or the config: models, agents, tools, approvals, health/status,
// recent events, the queue view and UI prefs.
import fs from 'node:fs'
import path from 'node:path'
import type { CallContext, Handlers } from '../api/dispatch'
import { invalid } from '../api/errors'
import type { QueueItem } from '../../shared/events'
import type { ConfigIssue, Prefs, Results } from '../../shared/methods'
import { MAIN_KEY, SESSION_SCOPE } from '../../shared/session-key'
import { assertAgent, canonicalKey, CHAT_COMMANDS, type PrefsProvider, type RuntimeCore } from './handlers-context'
import { activeProxy, describeProxy } from './net/proxy'
import { healthSummary, statusSummary } from './status-summary'
import { DEFAULT_RING_SIZE } from './events/event-bus'
import { writeFileAtomicSync } from './sessions'
import { readSmallRegularFile } from './read-small-file'
import { toolCatalog } from './tools'

type SystemHandlers = Pick<
  Handlers,
  | 'models.list'
  | 'agents.list'
  | 'commands.list'
  | 'tools.catalog'
  | 'exec.approval.resolve'
  | 'health'
  | 'status'
  | 'loopdesk.events.recent'
  | 'loopdesk.queue.list'
  | 'loopdesk.queue.remove'
  | 'loopdesk.queue.hold'
  | 'loopdesk.queue.release'
  | 'loopdesk.queue.reorder'
  | 'loopdesk.prefs.get'
  | 'loopdesk.prefs.set'
>

/** The configured models a run could not use (the default, each agent's), as status reports them. */
function configExposure(core: RuntimeCore): { configFileExposed?: NonNullable<Results['status']['configFileExposed']> } {
  const exposed = core.config.exposure?.()
  return exposed ? { configFileExposed: exposed } : {}
}

function modelProblems(core: RuntimeCore): { modelProblems?: ConfigIssue[] } {
  const cfg = core.config.current
  const refs: Array<[string, string | undefined]> = [
    ['agents.defaults.model.primary', cfg.defaults.model],
    // an agent without a model of its own runs the default (already checked)
    ...cfg.agents.map((a, i): [string, string | undefined] => [`agents.list[${i}].model (${a.id})`, a.model === cfg.defaults.model ? undefined : a.model]),
  ]
  const out: ConfigIssue[] = []
  for (const [path, ref] of refs) {
    if (!ref) continue
    try {
      core.models().resolve(ref)
    } catch (err) {
      out.push({ path, message: (err as Error).message })
    }
  }
  return out.length ? { modelProblems: out } : {}
}

/** The proxy in use (net/proxy.ts), as status reports it: no credentials. */
function proxyStatus(): { proxy?: Results['status']['proxy'] } {
  const p = activeProxy()
  if (!p) return {}
  return {
    proxy: {
      ...(p.https ? { https: describeProxy(p.https) } : {}),
      ...(p.http ? { http: describeProxy(p.http) } : {}),
      source: p.source,
      ...(p.noProxy ? { noProxy: p.noProxy } : {}),
    },
  }
}

export const DEFAULT_PREFS: Prefs = { theme: 'system', inspectorOpen: false, inspectorWidth: 360, sidebarWidth: 260 }

/** Headless prefs store (`<stateDir>/prefs.json`); the desktop shell passes its electron-store instead. */
export function filePrefs(stateDir: string): PrefsProvider {
  const file = path.join(stateDir, 'prefs.json')
  let cache: Prefs | undefined
  const read = (): Prefs => {
    if (cache) return cache
    try {
      const raw = JSON.parse(readSmallRegularFile(file, 1024 * 1024)) as Partial<Prefs> // a FIFO is not waited on
      cache = { ...DEFAULT_PREFS, ...pickPrefs(raw) }
    } catch {
      cache = { ...DEFAULT_PREFS }
    }
    return cache
  }
  return {
    get: () => ({ ...read() }),
    set(patch) {
      const next = { ...read(), ...pickPrefs(patch) }
      fs.mkdirSync(stateDir, { recursive: true })
      writeFileAtomicSync(file, JSON.stringify(next, null, 2) + '\n', { mode: 0o600 })
      cache = next
      return { ...next }
    },
  }
}

function pickPrefs(p: Partial<Prefs>): Partial<Prefs> {
  const out: Partial<Prefs> = {}
  if (p.theme === 'light' || p.theme === 'dark' || p.theme === 'system') out.theme = p.theme
  if (typeof p.inspectorOpen === 'boolean') out.inspectorOpen = p.inspectorOpen
  if (Number.isInteger(p.inspectorWidth)) out.inspectorWidth = p.inspectorWidth
  if (Number.isInteger(p.sidebarWidth)) out.sidebarWidth = p.sidebarWidth
  return out
}

/**
 * The gateway this process listens with, from the gateway.json it records after binding (the real port,
 * which differs from gateway.port when that was taken). A file left by another process is not ours.
 */
export function ownGateway(stateDir: string): { gateway?: { port: number; url: string } } {
  try {
    const v = JSON.parse(readSmallRegularFile(path.join(stateDir, 'gateway', 'gateway.json'), 64 * 1024)) as { port?: unknown; url?: unknown; pid?: unknown }
    if (v.pid !== process.pid || typeof v.port !== 'number' || typeof v.url !== 'string') return {}
    return { gateway: { port: v.port, url: v.url } }
  } catch {
    return {}
  }
}

export function systemHandlers(core: RuntimeCore): SystemHandlers {
  return {
    async 'models.list'(p) {
      const cfg = core.config.current
      // with agentId: the model that agent's runs use by default (its own, else the global default)
      const agentId = p.agentId === undefined ? undefined : assertAgent(core, p.agentId)
      const agent = cfg.agents.find((a) => a.id === agentId)
      const def = agent?.model ?? cfg.defaults.model
      return { models: core.models().list(), ...(def ? { defaultModel: def } : {}) }
    },

    async 'agents.list'() {
      const cfg = core.config.current
      return {
        defaultId: cfg.defaultAgentId,
        mainKey: MAIN_KEY,
        // a main session per agent (agent:<id>:main), not OpenClaw's single `global` key: as hello-ok says
        scope: SESSION_SCOPE,
        agents: cfg.agents.map((a) => ({ id: a.id, workspace: a.workspace, ...(a.model ? { model: { primary: a.model } } : {}) })),
      }
    },

    async 'commands.list'(p) {
      if (p.agentId !== undefined) assertAgent(core, p.agentId)
      if (p.sessionKey !== undefined) canonicalKey(core, p.sessionKey, p.agentId)
      // Loopdesk's commands are typed in a chat; there is no platform command menu (native)
      if (p.scope === 'native') return { commands: [] }
      return { commands: CHAT_COMMANDS.map(({ args, ...c }) => (p.includeArgs && args ? { ...c, args: args.map((a) => ({ ...a })) } : { ...c })) }
    },

    async 'tools.catalog'(p) {
      const agentId = p.agentId === undefined ? core.config.current.defaultAgentId : assertAgent(core, p.agentId)
      const tools = toolCatalog()
      const group = {
        id: 'core',
        label: 'Built-in tools',
        source: 'core' as const,
        tools: tools.map((t) => ({
          id: t.name,
          label: t.label,
          description: t.description,
          source: 'core' as const,
          defaultProfiles: ['full' as const],
          // what can change things outside the reply: commands and file writes need care
          ...(t.needsApproval || t.name === 'exec' ? { risk: 'high' as const } : t.name === 'write' || t.name === 'edit' ? { risk: 'medium' as const } : { risk: 'low' as const }),
        })),
      }
      return { tools, agentId, profiles: [{ id: 'full' as const, label: 'Full' }], groups: [group] }
    },

    async 'exec.approval.resolve'(p) {
      core.approvals.resolve(p.id, p.decision, { reviewer: p.reviewer, grantExpiresInDays: p.grantExpiresInDays })
      return { ok: true, id: p.id, decision: p.decision }
    },

    async health() {
      return healthSummary(core)
    },

    async status() {
      return {
        ...statusSummary(core),
        ok: true,
        version: core.version,
        uptimeMs: Date.now() - core.startedAt,
        stateDir: core.stateDir,
        activeRuns: core.runner.activeRuns().length,
        lanes: core.queue.stats(),
        configIssues: core.config.issues,
        ...modelProblems(core),
        ...configExposure(core),
        ...(core.credentials.location ? { credentials: core.credentials.location } : {}),
        ...proxyStatus(),
        ...ownGateway(core.stateDir),
      }
    },

    async 'loopdesk.events.recent'(p) {
      const { key } = canonicalKey(core, p.sessionKey)
      const limit = p.limit ?? DEFAULT_RING_SIZE
      const live = core.bus.recent(key, limit)
      // runs the in-memory ring does not have (before a restart): from the session's event log
      const liveRuns = new Set(live.map((e) => e.runId))
      const older = live.length >= limit ? [] : (await core.eventLog.read(key, limit)).filter((e) => !liveRuns.has(e.runId))
      return { events: [...older, ...live].slice(-limit), approvals: core.approvals.pending(key) }
    },

    async 'loopdesk.queue.list'(p) {
      const { key } = canonicalKey(core, p.sessionKey)
      return { items: [...core.followups.list(key), ...(core.queueModes?.list(key) ?? [])] }
    },

    async 'loopdesk.queue.remove'(p, ctx) {
      const { key } = canonicalKey(core, p.sessionKey)
      // removing a waiting message stops its run (as chat.abort naming a queued run refuses)
      refuseOthersMessages(ctx, () => [...core.followups.list(key), ...(core.queueModes?.list(key) ?? [])].filter((i) => i.id === p.id))
      return { ok: true, removed: core.followups.remove(key, p.id) || (core.queueModes?.remove(key, p.id) ?? false) }
    },

    // queue modes only: a follow-up waiting as a run in the session lane (no queue modes) cannot be held
    // the journal learns which accepted messages are paused: after a crash they go back into the queue, held,
    // not into the transcript as unanswered (runtime.ts restoreHeld)
    async 'loopdesk.queue.hold'(p, ctx) {
      const { key, agentId } = canonicalKey(core, p.sessionKey)
      refuseOthersMessages(ctx, () => waiting(core, key, (i) => !i.held))
      const ids = core.queueModes?.hold(key) ?? []
      core.accepted(agentId).hold(queuedRunIds(core, key, ids))
      return { ok: true, ids }
    },

    async 'loopdesk.queue.release'(p, ctx) {
      const { key, agentId } = canonicalKey(core, p.sessionKey)
      refuseOthersMessages(ctx, () => waiting(core, key, (i) => !!i.held && (!p.ids || p.ids.includes(i.id))))
      const ids = core.queueModes?.release(key, p.ids) ?? []
      core.accepted(agentId).release(queuedRunIds(core, key, ids))
      return { ok: true, ids }
    },

    // queue modes only, as hold: a follow-up waiting as a run in the session lane keeps its place there
    async 'loopdesk.queue.reorder'(p, ctx) {
      const { key } = canonicalKey(core, p.sessionKey)
      refuseOthersMessages(ctx, () => waiting(core, key, (i) => p.ids.includes(i.id)))
      return { ok: true, ids: core.queueModes?.reorder(key, p.ids) ?? [] }
    },

    async 'loopdesk.prefs.get'() {
      return core.prefs.get()
    },

    async 'loopdesk.prefs.set'(p) {
      return core.prefs.set(p)
    },
  }
}

/**
 * Removing a waiting message stops its run; holding, releasing or reordering changes when it starts. A caller that
 * may stop only its own runs (CallContext.mayAbort, a gateway connection without admin) may do so only to its own:
 * "unauthorized" when `affected` (read only for such a caller) holds another's.
 */
function refuseOthersMessages(ctx: CallContext, affected: () => QueueItem[]) {
  const mayAbort = ctx.mayAbort
  if (mayAbort && affected().some((i) => i.runId && !mayAbort(i.runId))) throw invalid('unauthorized')
}

/** The queue-mode messages of the session still waiting that `pick` selects. */
function waiting(core: RuntimeCore, sessionKey: string, pick: (i: QueueItem) => boolean): QueueItem[] {
  return (core.queueModes?.list(sessionKey) ?? []).filter((i) => i.status === 'queued' && pick(i))
}

/** The run ids (= accepted message ids) of these queue items. */
function queuedRunIds(core: RuntimeCore, sessionKey: string, itemIds: string[]): string[] {
  if (itemIds.length === 0) return []
  const want = new Set(itemIds)
  return (core.queueModes?.list(sessionKey) ?? []).flatMap((i) => (want.has(i.id) && i.runId ? [i.runId] : []))
}
