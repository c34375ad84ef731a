// Issue 4 extensions installed into a runtime: plugin hooks (<stateDir>/plugins), internal hooks
// (<stateDir>/hooks and <workspace>/hooks), compaction, block streaming and chat queue modes. Everything
// plugs in through the runtime's mutable hook table and `core.queueModes`, so the runner and the handlers
// stay unaware of the modules behind them.
import path from 'node:path'
import type { AgentMessage } from '@earendil-works/pi-agent-core'
import type { AnyEvent } from '../../../shared/events'
import type { RuntimeHost } from '../../api/host'
import { createCompactionHooks, type CompactionHooks } from '../compaction/runtime-hooks'
import type { RuntimeCore, TrackedRun } from '../handlers-context'
import { ChatQueueModes } from '../queue/chat-queue'
import { FoldMirror } from '../queue/fold-mirror'
import type { RuntimeHooks } from '../runner/hooks'
import { createBlockStreamingHooks } from '../streaming/runtime-hooks'
import { InternalHooks, loadInternalHooks, type LoadInternalHooksResult } from './internal'
import { loadPlugins, type LoadPluginsResult } from './plugins'
import { HookRegistry } from './registry'
import { pluginRuntimeHooks, type PluginRuntimeHooks } from './runtime-hooks'
import { readTimeout } from './timeout'
import { consoleHookLogger, type HookLogger } from './types'
import { agentFinalOf } from '../runner/agent-final'

/** What the installer needs from a runtime (the Runtime facade satisfies it). */
export interface ExtensionHost {
  readonly hooks: RuntimeHooks
  readonly core: RuntimeCore
  subscribe(listener: (ev: AnyEvent) => void): () => void
  /** set by the installer: the gateway reports start/stop here (RuntimeHost.gatewayLifecycle) */
  gatewayLifecycle?: RuntimeHost['gatewayLifecycle']
}

export interface ExtensionsOptions {
  logger?: HookLogger
  /** a registry to use (tests register handlers directly); plugins are loaded into it as well */
  registry?: HookRegistry
  internal?: InternalHooks
  /** load <stateDir>/plugins (default: config `plugins.enabled` !== false) */
  loadPlugins?: boolean
  /** load internal hook folders (default: config `hooks.internal.enabled` !== false) */
  loadInternalHooks?: boolean
}

export interface Extensions {
  registry: HookRegistry
  internal: InternalHooks
  queueModes: ChatQueueModes
  compaction: CompactionHooks
  plugins: LoadPluginsResult
  internalHooks: LoadInternalHooksResult
  /** plugin `gateway_start` (call once the gateway listens) */
  gatewayStarted(port: number): Promise<void>
  /** plugin `gateway_stop` */
  gatewayStopped(reason?: string): Promise<void>
  /** waits for observe-only hooks still running */
  idle(): Promise<void>
  dispose(): void
}

function userTexts(messages: AgentMessage[]): string[] {
  const out: string[] = []
  for (const m of messages as Array<{ role: string; content?: unknown }>) {
    if (m.role !== 'user') continue
    if (typeof m.content === 'string') out.push(m.content)
    else if (Array.isArray(m.content)) {
      out.push(m.content.map((c: { type?: string; text?: string }) => (c?.type === 'text' ? (c.text ?? '') : '')).join(''))
    }
  }
  return out
}

export async function installExtensions(host: ExtensionHost, opts: ExtensionsOptions = {}): Promise<Extensions> {
  const { core } = host
  const logger = opts.logger ?? consoleHookLogger
  const raw = core.config.current.raw
  // hooks.timeoutMs is read at each call, so a config reload applies to the next hook
  const hookTimeoutMs = () => core.config.current.raw.hooks?.timeoutMs
  const registry = opts.registry ?? new HookRegistry({ logger, timeoutMs: hookTimeoutMs })
  const internal = opts.internal ?? new InternalHooks({ logger, timeoutMs: hookTimeoutMs })
  // loading a plugin or hook module (its top level, a plugin's register(api)) has the same limit as a hook call
  const loadTimeoutMs = readTimeout(hookTimeoutMs)

  const plugins: LoadPluginsResult =
    (opts.loadPlugins ?? raw.plugins?.enabled !== false)
      ? await loadPlugins(registry, { dir: path.join(core.stateDir, 'plugins'), disabled: raw.plugins?.disabled, logger, timeoutMs: loadTimeoutMs })
      : { loaded: [], failed: [], skipped: [] }
  let internalHooks: LoadInternalHooksResult = { loaded: [], failed: [] }
  if (opts.loadInternalHooks ?? raw.hooks?.internal?.enabled !== false) {
    const roots = [{ label: 'state', dir: path.join(core.stateDir, 'hooks') }]
    const seen = new Set(roots.map((r) => path.resolve(r.dir)))
    // Workspace hook scripts are opt-in: the agent can write into its workspace, and loading code from
    // there by default would let a model turn a `write` into code execution without an exec approval.
    const workspaceAgents = raw.hooks?.internal?.workspace === true ? core.config.current.agents : []
    for (const a of workspaceAgents) {
      const dir = path.resolve(a.workspace, 'hooks')
      if (seen.has(dir)) continue
      seen.add(dir)
      roots.push({ label: `workspace:${a.id}`, dir })
    }
    internalHooks = await loadInternalHooks(internal, { roots, logger, timeoutMs: loadTimeoutMs })
  }

  const plugin: PluginRuntimeHooks = pluginRuntimeHooks({
    registry,
    internal,
    logger,
    transcriptPath: (agentId, sessionId) => core.store(agentId).transcriptPath(sessionId),
  })
  const streaming = createBlockStreamingHooks({
    config: () => core.config.current,
    sessionEntry: (agentId, key) => core.store(agentId).get(key),
    logger,
  })
  const compaction = createCompactionHooks({
    config: () => core.config.current,
    models: () => core.models(),
    store: (agentId) => core.store(agentId),
    plugins: registry,
    resetRun: (runId) => streaming.reset(runId),
    logger,
  })
  const folds = new FoldMirror(core.bus)
  /**
   * A folded message's runId is tracked like the batch run it rides in (same controller: chat.abort of it stops
   * the batch; a chat.send retry sees it in flight) and gets the batch run's final for agentFinal().
   */
  const trackFolded = (batch: TrackedRun) => {
    for (const runId of folds.foldedInto(batch.runId)) {
      const done = batch.done.then((o) => {
        core.recordFinal(agentFinalOf(runId, o))
        return o
      })
      const t: TrackedRun = { runId, sessionKey: batch.sessionKey, agentId: batch.agentId, controller: batch.controller, done, source: 'chat', foldedInto: batch.runId }
      core.tracked.set(runId, t)
      const untrack = () => {
        if (core.tracked.get(runId) === t) core.tracked.delete(runId)
      }
      done.then(untrack, untrack)
    }
  }
  const queueModes = new ChatQueueModes({
    tracked: core.tracked,
    activeRunsOf: (key) => core.runner.activeRunsOf(key),
    startRun: (req) => {
      if (core.isShuttingDown()) throw new Error('Loopdesk is shutting down; the queued message was not run')
      const run = core.startRun(req, 'chat')
      trackFolded(run)
      return run
    },
    queueDefaults: () => core.config.current.queue,
    sessionEntry: (key) => {
      const agentId = key.split(':')[1]
      return agentId ? core.store(agentId).get(key) : undefined
    },
    onChange: (sessionKey, items) => {
      core.emit({ event: 'queue.changed', payload: { sessionKey, items } })
      core.sessionChanged(sessionKey, 'queue')
    },
    // like a run cancelled while waiting in its lane: lifecycle end {aborted} so agent.wait / chat settle
    discarded: (sessionKey, runId, reason) => {
      core.bus.emit({ runId, sessionKey, stream: 'lifecycle', data: { phase: 'end', endedAt: Date.now(), aborted: true, stopReason: 'removed', reason } })
      core.bus.clearRun(runId)
    },
    // a steered message requeued while the queue is held: journaled as paused (a restart keeps it held)
    held: (sessionKey, runIds) => {
      const agentId = sessionKey.split(':')[1]
      if (agentId) core.accepted(agentId).hold(runIds)
    },
    fold: (sessionKey, intoRunId, runIds) => folds.fold(sessionKey, intoRunId, runIds),
    unfold: (intoRunId) => folds.unfold(intoRunId),
    logger,
  })

  // ---- plug into the hook table (existing hooks of the same slot keep running first)
  const h = host.hooks as RuntimeHooks
  const prev = { ...h }
  const p = plugin.hooks
  h.bootstrap = p.bootstrap
  h.beforeAgentStart = p.beforeAgentStart
  h.beforeToolCall = p.beforeToolCall
  h.afterToolCall = p.afterToolCall
  h.toolResultPersist = p.toolResultPersist
  h.command = p.command
  h.messageReceived = p.messageReceived
  h.messageSending = p.messageSending
  h.messageSent = p.messageSent
  h.transformContext = compaction.hooks.transformContext
  h.onContextOverflow = compaction.hooks.onContextOverflow
  h.compact = compaction.hooks.compact
  h.agentEvent = async (event, ctx) => {
    await prev.agentEvent?.(event, ctx)
    p.agentEvent!(event, ctx)
    await streaming.hooks.agentEvent!(event, ctx)
  }
  h.agentEnd = async (info, ctx) => {
    await prev.agentEnd?.(info, ctx)
    await p.agentEnd!(info, ctx)
    queueModes.runEnded(ctx.sessionKey, ctx.runId, userTexts(info.messages))
  }
  h.runEnded = (handle) => {
    prev.runEnded?.(handle)
    compaction.runEnded(handle.runId)
    streaming.runEnded(handle.runId)
  }
  core.queueModes = queueModes

  // ---- session_start for sessions created (new/reset come via command hooks); session_end for deleted
  // ones comes from the delete handler, before the transcript moves (sessionDeleted)
  h.sessionDeleted = (e) => {
    prev.sessionDeleted?.(e)
    plugin.sessionEnded({ sessionKey: e.sessionKey, sessionId: e.sessionId, agentId: e.agentId, reason: 'deleted', sessionFile: e.sessionFile })
  }
  let disposed = false
  const unsubscribe = host.subscribe((ev) => {
    if (ev.event === 'shutdown') {
      if (!disposed) dispose()
      return
    }
    if (ev.event !== 'sessions.changed') return
    const { sessionKey, reason, session } = ev.payload
    if (reason === 'create' && session) plugin.sessionStarted({ sessionKey, sessionId: session.sessionId, agentId: sessionKey.split(':')[1] })
  })

  const gatewayHook = async (name: 'gateway_start' | 'gateway_stop', event: { port: number } | { reason?: string }) => {
    await registry.runObserve(name, event as never, {} as never)
  }
  const prevLifecycle = host.gatewayLifecycle
  host.gatewayLifecycle = (e) => {
    prevLifecycle?.(e)
    void (e.phase === 'start' ? gatewayHook('gateway_start', { port: e.port }) : gatewayHook('gateway_stop', e.reason ? { reason: e.reason } : {}))
  }

  return {
    registry,
    internal,
    queueModes,
    compaction,
    plugins,
    internalHooks,
    gatewayStarted: (port) => gatewayHook('gateway_start', { port }),
    gatewayStopped: (reason) => gatewayHook('gateway_stop', reason ? { reason } : {}),
    idle: () => plugin.idle(),
    dispose,
  }

  function dispose(): void {
    if (disposed) return
    disposed = true
    unsubscribe()
    queueModes.dispose()
    folds.dispose()
    if (core.queueModes === queueModes) core.queueModes = undefined
    host.gatewayLifecycle = prevLifecycle
    Object.assign(h, prev)
    for (const k of Object.keys(h) as Array<keyof RuntimeHooks>) if (!(k in prev)) delete h[k]
  }
}
