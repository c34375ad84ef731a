// Internal ("gateway") hooks: event-driven scripts for commands and lifecycle events (reference §8.4).
// Handlers register for a `type` ("command") or a `type:action` ("command:new"). A trigger runs the
// type handlers, then the specific ones, one at a time in registration order; errors are logged and
// isolated. Handlers may mutate `context` and push strings to `messages`, which go back to the user.
//
// Hook folders (no HOOK.md needed): `<stateDir>/hooks/<name>/handler.mjs` (or handler.js) and
// `<workspace>/hooks/<name>/handler.{mjs,js}`. The module's default export is the handler function and
// `export const events = ['command:new', 'agent:bootstrap']` lists what it handles (a bare type such as
// 'command' subscribes to every action of that type). Without `events` the hook is reported as failed.
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { copyPlain } from './event-copy'
import { loadModuleBounded } from './load-module'
import { blockedText, callWithTimeout, DEFAULT_HOOK_TIMEOUT_MS, HookTimeoutError, readTimeout, type TimeoutSetting } from './timeout'
import type { HookLogger } from './types'

export type InternalHookType = 'command' | 'session' | 'agent' | 'gateway' | 'message'

export interface InternalHookEvent<C extends Record<string, unknown> = Record<string, unknown>> {
  type: InternalHookType
  action: string
  sessionKey: string
  context: C
  timestamp: Date
  /** strings pushed here are returned to the caller and shown to the user */
  messages: string[]
}

export type InternalHookHandler = (event: InternalHookEvent) => void | Promise<void>

export interface BootstrapFile {
  name: string
  path?: string
  content: string
}

export interface BootstrapContext {
  workspaceDir: string
  bootstrapFiles: BootstrapFile[]
  sessionKey: string
  sessionId?: string
  agentId?: string
}

export type CommandAction = 'new' | 'reset' | 'stop'

const TYPES: readonly InternalHookType[] = ['command', 'session', 'agent', 'gateway', 'message']

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err)
}

/** Validates "type" or "type:action" keys. */
export function isInternalHookKey(key: unknown): key is string {
  if (typeof key !== 'string') return false
  const [type, ...rest] = key.split(':')
  return (TYPES as readonly string[]).includes(type) && rest.every((p) => p.length > 0)
}

export class InternalHooks {
  private readonly handlers = new Map<string, Array<{ fn: InternalHookHandler; source?: string }>>()
  private readonly logger: HookLogger
  private readonly timeoutMs: TimeoutSetting | undefined

  /** timeoutMs: limit per handler call (default 10 s); a handler past it is skipped and logged */
  constructor(opts: { logger: HookLogger; timeoutMs?: TimeoutSetting }) {
    this.logger = opts.logger
    this.timeoutMs = opts.timeoutMs
  }

  /** Registers for `type` or `type:action`; returns an unregister function. */
  on(key: string, fn: InternalHookHandler, source?: string): () => void {
    if (!isInternalHookKey(key)) throw new Error(`invalid internal hook event "${key}"`)
    if (typeof fn !== 'function') throw new Error(`internal hook "${key}": handler must be a function`)
    const entry = { fn, source }
    const list = this.handlers.get(key) ?? []
    list.push(entry)
    this.handlers.set(key, list)
    return () => {
      const cur = this.handlers.get(key)
      const i = cur?.indexOf(entry) ?? -1
      if (cur && i >= 0) cur.splice(i, 1)
    }
  }

  has(type: InternalHookType, action?: string): boolean {
    return (this.handlers.get(type)?.length ?? 0) > 0 || (!!action && (this.handlers.get(`${type}:${action}`)?.length ?? 0) > 0)
  }

  /** Runs the handlers for `type` then `type:action` sequentially and returns the (mutated) event. */
  async trigger<C extends Record<string, unknown>>(
    type: InternalHookType,
    action: string,
    sessionKey: string,
    context: C,
  ): Promise<InternalHookEvent<C>> {
    let event: InternalHookEvent<C> = { type, action, sessionKey, context, timestamp: new Date(), messages: [] }
    const list = [...(this.handlers.get(type) ?? []), ...(this.handlers.get(`${type}:${action}`) ?? [])]
    const ms = readTimeout(this.timeoutMs)
    for (const h of list) {
      const who = h.source ? `hook "${h.source}"` : 'handler'
      // its own copy of context and messages, taken back only if it answers in time: one stopped (or failing)
      // half-way through an edit of bootstrapFiles leaves the list as it was (event-copy.ts)
      const working: InternalHookEvent<C> = { ...event, context: copyPlain(event.context), messages: copyPlain(event.messages) }
      try {
        await callWithTimeout(() => h.fn(working as unknown as InternalHookEvent), ms, `${type}:${action}`, who, (took) =>
          this.logger.warn(`[internal-hooks] ${blockedText(`${type}:${action}`, who, took, ms)}`),
        )
        event = working
      } catch (err) {
        const what = err instanceof HookTimeoutError ? `timed out after ${err.timeoutMs} ms; skipped` : `failed: ${errorText(err)}`
        this.logger.error(`[internal-hooks] ${type}:${action} ${who} ${what}`)
      }
    }
    // Only strings reach the user; anything else a handler pushed is dropped (or a non-array put in its place).
    event.messages = (Array.isArray(event.messages) ? event.messages : []).filter((m): m is string => typeof m === 'string' && m.length > 0)
    return event
  }

  /**
   * agent:bootstrap — handlers may add, remove or edit `context.bootstrapFiles` before the system prompt
   * is built. Returns the resulting list (malformed entries dropped with a warning).
   */
  async runBootstrap<F extends BootstrapFile>(
    ctx: Omit<BootstrapContext, 'bootstrapFiles'> & { bootstrapFiles: F[]; [k: string]: unknown },
  ): Promise<{ files: F[]; messages: string[] }> {
    const context: Record<string, unknown> = { ...ctx, bootstrapFiles: [...ctx.bootstrapFiles] }
    if (!this.has('agent', 'bootstrap')) return { files: [...ctx.bootstrapFiles], messages: [] }
    const ev = await this.trigger('agent', 'bootstrap', ctx.sessionKey, context)
    const raw: unknown = ev.context.bootstrapFiles
    if (!Array.isArray(raw)) {
      this.logger.warn('[internal-hooks] agent:bootstrap replaced bootstrapFiles with a non-array; keeping the original list')
      return { files: [...ctx.bootstrapFiles], messages: ev.messages }
    }
    // Entries keep any extra fields the caller uses (truncation flags etc.); malformed ones are dropped.
    const files: F[] = []
    for (const f of raw) {
      if (f && typeof f === 'object' && typeof f.name === 'string' && f.name && typeof f.content === 'string') {
        files.push(f as F)
      } else {
        this.logger.warn('[internal-hooks] agent:bootstrap produced a malformed bootstrap file (needs name and content); dropped')
      }
    }
    return { files, messages: ev.messages }
  }

  /** command:new | command:reset | command:stop — returns the messages handlers pushed for the user. */
  async runCommand(action: CommandAction, sessionKey: string, context: Record<string, unknown> = {}): Promise<string[]> {
    if (!this.has('command', action)) return []
    const ev = await this.trigger('command', action, sessionKey, context)
    return ev.messages
  }
}

export interface LoadInternalHooksResult {
  loaded: string[]
  failed: Array<{ id: string; error: string }>
}

/**
 * Loads hook folders from each root (e.g. [<stateDir>/hooks, <workspace>/hooks]). Ids are
 * "<root label>/<folder>" so two roots may hold hooks with the same folder name.
 */
export async function loadInternalHooks(
  hooks: InternalHooks,
  /** timeoutMs: limit for each module's top level (default 10 s, hooks.timeoutMs; 0 = none) — see load-module.ts */
  opts: { roots: Array<{ label: string; dir: string }>; logger: HookLogger; timeoutMs?: number },
): Promise<LoadInternalHooksResult> {
  const limit = opts.timeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS
  const result: LoadInternalHooksResult = { loaded: [], failed: [] }
  for (const root of opts.roots) {
    let names: string[]
    try {
      names = readdirSync(root.dir, { withFileTypes: true })
        .filter((d) => d.isDirectory() || d.isSymbolicLink())
        .map((d) => d.name)
        .filter((n) => !n.startsWith('.'))
        .sort()
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
        opts.logger.error(`[internal-hooks] cannot read ${root.dir}: ${errorText(err)}`)
      }
      continue
    }
    for (const name of names) {
      const id = `${root.label}/${name}`
      try {
        const dir = join(root.dir, name)
        const entry = ['handler.mjs', 'handler.js'].map((f) => join(dir, f)).find((p) => existsSync(p))
        if (!entry) throw new Error('no handler.mjs or handler.js')
        let mod: Record<string, unknown>
        try {
          mod = await loadModuleBounded(entry, {
            timeoutMs: limit,
            label: `loading hook "${id}"`,
            onUnbounded: (why) => opts.logger.warn(`[internal-hooks] loading hook "${id}" without a time limit on its top level: ${why}`),
          })
        } catch (err) {
          throw new Error(`failed to import: ${errorText(err)}`, { cause: err })
        }
        const fn = (typeof mod.default === 'function' ? mod.default : mod.handler) as InternalHookHandler | undefined
        if (typeof fn !== 'function') throw new Error('module has no default export handler function')
        const events = mod.events
        if (!Array.isArray(events) || events.length === 0) {
          throw new Error('module must export `events` (e.g. ["command:new"])')
        }
        const bad = events.filter((e) => !isInternalHookKey(e))
        if (bad.length) throw new Error(`invalid events: ${bad.map((b) => JSON.stringify(b)).join(', ')}`)
        for (const e of events as string[]) hooks.on(e, fn, id)
        result.loaded.push(id)
      } catch (err) {
        const error = errorText(err)
        opts.logger.error(`[internal-hooks] hook "${id}" failed to load and was skipped: ${error}`)
        result.failed.push({ id, error })
      }
    }
  }
  return result
}
