// Loads plugins from <stateDir>/plugins/<id>/. Each folder holds an ES module (package.json "main",
// else index.mjs, else index.js) exporting `register(api)` (a named export, or a default export that is
// the function or an object with it). A broken plugin is reported in `failed` and skipped; the hooks it
// registered before failing are removed so a half-initialised plugin never runs. Loading is time-limited like a
// hook call (hooks.timeoutMs): the module's top level (load-module.ts) and register(api) — its synchronous part
// stopped by V8's watchdog, its returned promise raced against the limit — so a plugin that loops or never
// settles fails to load instead of hanging the runtime's start.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { isAbsolute, join, relative, resolve } from 'node:path'
import { loadModuleBounded, ModuleLoadTimeoutError } from './load-module'
import type { HookRegistry } from './registry'
import { watchPending } from './stall-watchdog'
import { DEFAULT_HOOK_TIMEOUT_MS, HookTimeoutError, runBounded } from './timeout'
import { isHookName, type HookLogger, type HookName, type PluginHookHandlers, type RegisterOptions } from './types'

export interface PluginApi {
  id: string
  /** opts.timeoutMs: limit per call of this handler (default hooks.timeoutMs, 10 s) */
  register<K extends HookName>(hookName: K, handler: PluginHookHandlers[K], opts?: { priority?: number; timeoutMs?: number }): void
  /** alias of register (OpenClaw plugins call api.on) */
  on<K extends HookName>(hookName: K, handler: PluginHookHandlers[K], opts?: { priority?: number; timeoutMs?: number }): void
  logger: HookLogger
}

export interface LoadPluginsOptions {
  /** usually <stateDir>/plugins */
  dir: string
  disabled?: string[]
  logger: HookLogger
  /**
   * limit (ms) for the module's top level and for register(api) — its synchronous part and the promise it returns;
   * past it the plugin is stopped and counts as failed. Default 10 s (hooks.timeoutMs); 0 = none.
   */
  timeoutMs?: number
}

/** Which part of loading a plugin ran past the time limit. */
export type PluginLoadPhase = 'module' | 'register'

export interface PluginLoadFailure {
  id: string
  error: string
  /** set when the plugin was stopped at the time limit */
  timedOut?: { phase: PluginLoadPhase; timeoutMs: number }
}

export interface LoadPluginsResult {
  loaded: string[]
  failed: PluginLoadFailure[]
  skipped: string[]
}

/** A plugin's top level or register(api) ran past the load time limit (stopped, or its promise not settled). */
export class PluginLoadTimeoutError extends Error {
  constructor(
    readonly pluginId: string,
    readonly phase: PluginLoadPhase,
    readonly timeoutMs: number,
    how: 'stopped' | 'unsettled',
  ) {
    super(
      phase === 'module'
        ? `its module's top level ran past the time limit (${timeoutMs} ms) and was stopped`
        : how === 'stopped'
          ? `register(api) ran past the time limit (${timeoutMs} ms) and was stopped`
          : `register(api) did not finish within the time limit (${timeoutMs} ms)`,
    )
    this.name = 'PluginLoadTimeoutError'
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err)
}

function isInside(parent: string, child: string): boolean {
  const rel = relative(parent, child)
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel))
}

/** The plugin's entry module, or an error explaining why none was found. */
export function resolvePluginEntry(pluginDir: string): { entry: string } | { error: string } {
  const pkgPath = join(pluginDir, 'package.json')
  if (existsSync(pkgPath)) {
    let pkg: { main?: unknown }
    try {
      pkg = JSON.parse(readFileSync(pkgPath, 'utf8'))
    } catch (err) {
      return { error: `package.json is not valid JSON: ${errorText(err)}` }
    }
    if (typeof pkg.main === 'string' && pkg.main.trim()) {
      const entry = resolve(pluginDir, pkg.main)
      if (!isInside(pluginDir, entry)) return { error: `package.json main "${pkg.main}" points outside the plugin folder` }
      if (!existsSync(entry)) return { error: `package.json main "${pkg.main}" does not exist` }
      return { entry }
    }
  }
  for (const name of ['index.mjs', 'index.js']) {
    const entry = join(pluginDir, name)
    if (existsSync(entry)) return { entry }
  }
  return { error: 'no entry module (package.json "main", index.mjs or index.js)' }
}

type RegisterFn = (api: PluginApi) => unknown

function findRegister(mod: Record<string, unknown>): RegisterFn | undefined {
  if (typeof mod.register === 'function') return mod.register as RegisterFn
  const def = mod.default as unknown
  if (typeof def === 'function') return def as RegisterFn
  if (def && typeof def === 'object' && typeof (def as { register?: unknown }).register === 'function') {
    return (def as { register: RegisterFn }).register.bind(def)
  }
  return undefined
}

function prefixedLogger(id: string, logger: HookLogger): HookLogger {
  return {
    info: (m) => (logger.info ?? logger.warn).call(logger, `[plugin ${id}] ${m}`),
    warn: (m) => logger.warn(`[plugin ${id}] ${m}`),
    error: (m) => logger.error(`[plugin ${id}] ${m}`),
  }
}

/** Settles as `p` does, or rejects with `onLate()` once `ms` passed (ms <= 0: no limit). */
function settleWithin<T>(p: PromiseLike<T>, ms: number, onLate: () => Error): Promise<T> {
  // a rejection after the limit must not surface as an unhandled rejection
  Promise.resolve(p).catch(() => {})
  if (!(ms > 0) || !Number.isFinite(ms)) return Promise.resolve(p)
  let timer: ReturnType<typeof setTimeout> | undefined
  const started = performance.now()
  const late = new Promise<never>((_, rej) => (timer = setTimeout(() => rej(onLate()), ms)))
  return Promise.race([Promise.resolve(p), late])
    .then((v) => {
      // settled past the limit before the timer could fire (the thread was held): late all the same
      if (performance.now() - started > ms) throw onLate()
      return v
    })
    .finally(() => clearTimeout(timer))
}

async function loadOne(registry: HookRegistry, id: string, pluginDir: string, opts: LoadPluginsOptions): Promise<void> {
  const found = resolvePluginEntry(pluginDir)
  if ('error' in found) throw new Error(found.error)
  const limit = opts.timeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS
  let mod: Record<string, unknown>
  try {
    mod = await loadModuleBounded(found.entry, {
      timeoutMs: limit,
      label: `loading plugin "${id}"`,
      // said before the import, so a top level that hangs is attributable in the log
      onUnbounded: (why) => opts.logger.warn(`[plugins] loading plugin "${id}" without a time limit on its top level: ${why}`),
    })
  } catch (err) {
    if (err instanceof ModuleLoadTimeoutError) throw new PluginLoadTimeoutError(id, 'module', limit, 'stopped')
    throw new Error(`failed to import ${relative(opts.dir, found.entry)}: ${errorText(err)}`, { cause: err })
  }
  const register = findRegister(mod)
  if (!register) throw new Error('module does not export register(api)')
  const logger = prefixedLogger(id, opts.logger)
  let failed = false
  const add = <K extends HookName>(hookName: K, handler: PluginHookHandlers[K], o?: { priority?: number; timeoutMs?: number }) => {
    // A register() that already failed (e.g. timed out) must not add hooks afterwards.
    if (failed) throw new Error(`plugin "${id}" failed to load; late hook registration refused`)
    if (!isHookName(hookName)) {
      // Unknown names (e.g. OpenClaw hooks Loopdesk does not run) are skipped, not fatal.
      logger.warn(`hook "${String(hookName)}" is not supported; handler ignored`)
      return
    }
    const ro: RegisterOptions = { priority: o?.priority, pluginId: id, timeoutMs: o?.timeoutMs }
    registry.register(hookName, handler, ro)
  }
  const api: PluginApi = { id, register: add, on: add, logger }
  try {
    const ret = runBounded(() => register(api), limit, `plugin "${id}" register(api)`)
    if (ret && typeof (ret as PromiseLike<unknown>).then === 'function') {
      const unwatch = watchPending(`plugin "${id}" register(api)`, limit)
      try {
        await settleWithin(ret as PromiseLike<unknown>, limit, () => new PluginLoadTimeoutError(id, 'register', limit, 'unsettled'))
      } finally {
        unwatch()
      }
    }
  } catch (err) {
    failed = true
    if (err instanceof HookTimeoutError) throw new PluginLoadTimeoutError(id, 'register', limit, 'stopped')
    if (err instanceof PluginLoadTimeoutError) throw err
    throw new Error(`register(api) failed: ${errorText(err)}`, { cause: err })
  }
}

export async function loadPlugins(registry: HookRegistry, opts: LoadPluginsOptions): Promise<LoadPluginsResult> {
  const result: LoadPluginsResult = { loaded: [], failed: [], skipped: [] }
  let names: string[]
  try {
    names = readdirSync(opts.dir, { withFileTypes: true })
      .filter((d) => d.isDirectory() || d.isSymbolicLink())
      .map((d) => d.name)
      .filter((n) => !n.startsWith('.'))
      .sort()
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return result
    opts.logger.error(`[plugins] cannot read ${opts.dir}: ${errorText(err)}`)
    return result
  }
  const disabled = new Set(opts.disabled ?? [])
  for (const id of names) {
    if (disabled.has(id)) {
      result.skipped.push(id)
      continue
    }
    try {
      await loadOne(registry, id, join(opts.dir, id), opts)
      result.loaded.push(id)
    } catch (err) {
      registry.unregisterPlugin(id)
      const error = errorText(err)
      opts.logger.error(`[plugins] plugin "${id}" failed to load and was skipped: ${error}`)
      result.failed.push(
        err instanceof PluginLoadTimeoutError ? { id, error, timedOut: { phase: err.phase, timeoutMs: err.timeoutMs } } : { id, error },
      )
    }
  }
  return result
}
