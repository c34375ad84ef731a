// Plugin + internal hooks as the runner's/runtime's hook points (runner/hooks.ts RuntimeHooks).
// Observe-only plugin hooks are started without awaiting them (a slow plugin must not stall the tool loop
// or delay a run's end); `idle()` waits for the ones still running (tests, shutdown).
import fs from 'node:fs'
import path from 'node:path'
import type { AgentMessage } from '@earendil-works/pi-agent-core'
import type { ToolResultMessage } from '@earendil-works/pi-ai'
import type { BootstrapFile as PromptBootstrapFile } from '../prompt'
import type { CommandHookEvent, RunHookContext, RuntimeHooks } from '../runner/hooks'
import type { InternalHooks } from './internal'
import type { HookRegistry } from './registry'
import type { AgentHookContext, HookContextOf, HookEventOf, HookLogger, HookMessage, ObserveHookName, SessionEndReason, ToolHookContext } from './types'

export function agentContext(ctx: RunHookContext): AgentHookContext {
  return {
    runId: ctx.runId,
    agentId: ctx.agentId,
    sessionKey: ctx.sessionKey,
    sessionId: ctx.sessionId,
    workspaceDir: ctx.workspaceDir,
    modelProviderId: ctx.model?.provider,
    modelId: ctx.model?.id,
  }
}

function toolContext(ctx: RunHookContext, toolName: string, toolCallId?: string): ToolHookContext {
  return { runId: ctx.runId, agentId: ctx.agentId, sessionKey: ctx.sessionKey, sessionId: ctx.sessionId, toolName, toolCallId }
}

function resultText(result: unknown): string {
  const content = (result as { content?: unknown })?.content
  if (!Array.isArray(content)) return typeof result === 'string' ? result : ''
  return content.map((c: { type?: string; text?: string }) => (c?.type === 'text' ? (c.text ?? '') : '')).join('\n')
}

/** Counts message entries of a (possibly archived) transcript: `<id>.jsonl` or its newest `<id>.jsonl.*`. */
export function countTranscriptMessages(transcriptPath: string): number {
  const dir = path.dirname(transcriptPath)
  const base = path.basename(transcriptPath)
  let file = transcriptPath
  if (!fs.existsSync(file)) {
    let names: string[]
    try {
      names = fs.readdirSync(dir).filter((n) => n.startsWith(`${base}.`))
    } catch {
      return 0
    }
    if (names.length === 0) return 0
    names.sort((a, b) => fs.statSync(path.join(dir, b)).mtimeMs - fs.statSync(path.join(dir, a)).mtimeMs)
    file = path.join(dir, names[0])
  }
  try {
    return fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('{"type":"message"')).length
  } catch {
    return 0
  }
}

export interface PluginRuntimeHooksOptions {
  registry: HookRegistry
  internal?: InternalHooks
  logger: HookLogger
  /** transcript path of a session id (for session_end messageCount) */
  transcriptPath?(agentId: string, sessionId: string): string
}

export interface PluginRuntimeHooks {
  hooks: RuntimeHooks
  /** fire an observe-only hook without awaiting it */
  observe<K extends ObserveHookName>(name: K, event: HookEventOf<K>, ctx: HookContextOf<K>): void
  sessionStarted(e: { sessionKey: string; sessionId: string; agentId?: string; resumedFrom?: string }): void
  sessionEnded(e: { sessionKey: string; sessionId: string; agentId?: string; reason: SessionEndReason; nextSessionId?: string; sessionFile?: string }): void
  /** resolves when every started observe hook finished */
  idle(): Promise<void>
}

export function pluginRuntimeHooks(o: PluginRuntimeHooksOptions): PluginRuntimeHooks {
  const { registry, internal } = o
  const pending = new Set<Promise<void>>()
  // tool start times (the runner's after-tool hook point carries no duration)
  const toolStarts = new Map<string, number>()

  const observe = <K extends ObserveHookName>(name: K, event: HookEventOf<K>, ctx: HookContextOf<K>): void => {
    if (!registry.has(name)) return
    const p = registry.runObserve(name, event, ctx).finally(() => pending.delete(p))
    pending.add(p)
  }

  const sessionStarted: PluginRuntimeHooks['sessionStarted'] = (e) => {
    observe('session_start', { sessionId: e.sessionId, sessionKey: e.sessionKey, ...(e.resumedFrom ? { resumedFrom: e.resumedFrom } : {}) }, {
      agentId: e.agentId,
      sessionId: e.sessionId,
      sessionKey: e.sessionKey,
    })
  }

  const sessionEnded: PluginRuntimeHooks['sessionEnded'] = (e) => {
    if (!registry.has('session_end')) return
    const file = e.sessionFile ?? (e.agentId && o.transcriptPath ? o.transcriptPath(e.agentId, e.sessionId) : undefined)
    const messageCount = file ? countTranscriptMessages(file) : 0
    observe(
      'session_end',
      {
        sessionId: e.sessionId,
        sessionKey: e.sessionKey,
        messageCount,
        reason: e.reason,
        ...(e.nextSessionId ? { nextSessionId: e.nextSessionId } : {}),
        ...(e.sessionFile ? { sessionFile: e.sessionFile } : {}),
      },
      { agentId: e.agentId, sessionId: e.sessionId, sessionKey: e.sessionKey },
    )
  }

  const hooks: RuntimeHooks = {
    async beforeAgentStart(event, ctx) {
      if (!registry.has('before_agent_start')) return undefined
      return registry.runBeforeAgentStart({ prompt: event.prompt, messages: event.messages as unknown as HookMessage[] }, agentContext(ctx))
    },

    async beforeToolCall(event, ctx) {
      if (!registry.has('before_tool_call')) return undefined
      const r = await registry.runBeforeToolCall(
        { toolName: event.toolName, params: event.params, toolCallId: event.toolCallId, runId: ctx.runId },
        toolContext(ctx, event.toolName, event.toolCallId),
      )
      // Only hand back params a handler replaced (the runner rewrites the args object in place).
      return {
        ...(r.params !== event.params ? { params: r.params } : {}),
        ...(r.block ? { block: true, blockReason: r.blockReason } : {}),
      }
    },

    agentEvent(event) {
      if (event.type === 'tool_execution_start') toolStarts.set(event.toolCallId, Date.now())
    },

    afterToolCall(event, ctx) {
      const startedAt = toolStarts.get(event.toolCallId)
      toolStarts.delete(event.toolCallId)
      const durationMs = event.durationMs || (startedAt !== undefined ? Date.now() - startedAt : 0)
      observe(
        'after_tool_call',
        {
          toolName: event.toolName,
          params: event.params,
          toolCallId: event.toolCallId,
          runId: ctx.runId,
          result: event.result,
          ...(event.isError ? { error: resultText(event.result) || 'tool failed' } : {}),
          durationMs,
        },
        toolContext(ctx, event.toolName, event.toolCallId),
      )
    },

    toolResultPersist(message, ctx) {
      if (!registry.has('tool_result_persist')) return message
      const out = registry.runToolResultPersist(
        { toolName: message.toolName, toolCallId: message.toolCallId, message: message as unknown as HookMessage },
        toolContext(ctx, message.toolName, message.toolCallId),
      )
      return out as unknown as ToolResultMessage
    },

    agentEnd(info, ctx) {
      observe(
        'agent_end',
        {
          messages: info.messages as unknown as HookMessage[],
          success: info.success,
          ...(info.error ? { error: info.error } : {}),
          durationMs: info.durationMs,
        },
        agentContext(ctx),
      )
    },

    async bootstrap(ev) {
      if (!internal) return
      const r = await internal.runBootstrap({
        workspaceDir: ev.workspaceDir,
        sessionKey: ev.sessionKey,
        sessionId: ev.sessionId,
        agentId: ev.agentId,
        bootstrapFiles: ev.files,
      })
      // Files a hook added may lack the prompt module's bookkeeping fields.
      const files: PromptBootstrapFile[] = r.files.map((f) => ({
        ...f,
        path: typeof f.path === 'string' ? f.path : '',
        originalChars: typeof f.originalChars === 'number' ? f.originalChars : f.content.length,
        truncated: f.truncated === true,
        missing: f.missing === true,
      }))
      ev.files.splice(0, ev.files.length, ...files)
    },

    async command(event: CommandHookEvent) {
      if (event.command !== 'stop' && event.sessionId) {
        sessionEnded({ sessionKey: event.sessionKey, sessionId: event.sessionId, agentId: event.agentId, reason: event.command, nextSessionId: event.nextSessionId })
      }
      if (event.command !== 'stop' && event.nextSessionId) {
        sessionStarted({ sessionKey: event.sessionKey, sessionId: event.nextSessionId, agentId: event.agentId })
      }
      if (!internal) return []
      return internal.runCommand(event.command, event.sessionKey, { ...event })
    },

    // metadata.kind: "message" (the `message` tool, mid-run) or "reply" (the run's final reply)
    async messageSending(event, ctx) {
      if (!registry.has('message_sending')) return undefined
      const r = await registry.runMessageSending(
        { to: ctx.sessionKey, content: event.content, metadata: { kind: event.kind ?? 'message', runId: ctx.runId } },
        { sessionKey: ctx.sessionKey, runId: ctx.runId, channelId: 'loopdesk' },
      )
      return { ...(r.content !== event.content ? { content: r.content } : {}), ...(r.cancel ? { cancel: true } : {}) }
    },

    messageSent(event, ctx) {
      observe(
        'message_sent',
        {
          to: ctx.sessionKey,
          content: event.content,
          success: event.success,
          ...(event.error ? { error: event.error } : {}),
          metadata: { kind: event.kind ?? 'message', runId: ctx.runId },
        },
        { sessionKey: ctx.sessionKey, runId: ctx.runId, channelId: 'loopdesk' },
      )
    },

    messageReceived(event) {
      observe(
        'message_received',
        { from: 'user', content: event.content, timestamp: Date.now(), ...(event.runId ? { metadata: { runId: event.runId } } : {}) },
        { sessionKey: event.sessionKey, channelId: 'loopdesk', ...(event.runId ? { runId: event.runId } : {}) },
      )
    },
  }

  return {
    hooks,
    observe,
    sessionStarted,
    sessionEnded,
    async idle() {
      while (pending.size) await Promise.all([...pending])
    },
  }
}

export type { AgentMessage }
