// Loads a plugin's or hook folder's entry module with its top level under the hook time limit. `import()`
// evaluates a module later, in the event loop, where nothing can stop a top level that loops (the runtime's start
// would hang). `require()` of an ES module (Node ≥ 20.19 / 22.12, unflagged) loads and evaluates the whole module
// graph synchronously, inside the call — so it is entered through the same `vm` watchdog as a hook handler
// (timeout.ts runBounded), and a top level still running at the limit is stopped: the plugin fails to load, the
// runtime starts without it. The module is evaluated once: require and import share Node's module cache, and a
// graph with top-level await is refused by require before any of it runs (ERR_REQUIRE_ASYNC_MODULE).
//
// Unbounded, and logged by name before the import starts so a hang is attributable: a module graph with top-level
// await (import() only), and a file changed since this process loaded it (require's cache is keyed by path, so a
// reload goes through import() with a fresh URL). A module stopped part-way stays half-evaluated in Node's module
// cache: it is not loaded again in this process (a restart tries again), and another module importing a file that
// was stopped gets an error rather than its half-made exports. (A timer cannot say "still loading" while a top level
// blocks the event loop; the stall watchdog's thread can, on stderr.)
import { statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { pathToFileURL } from 'node:url'
import { watchPending } from './stall-watchdog'
import { HookTimeoutError, runBounded } from './timeout'

/** The module's top level ran past its time limit and was stopped. */
export class ModuleLoadTimeoutError extends Error {
  constructor(
    readonly entry: string,
    readonly timeoutMs: number,
  ) {
    super(`its top level ran past the time limit (${timeoutMs} ms) and was stopped`)
    this.name = 'ModuleLoadTimeoutError'
  }
}

// entry path -> mtime it was loaded with through require (this process); entries whose top level was stopped
const required = new Map<string, number>()
const stopped = new Set<string>()

export interface LoadModuleOptions {
  /** limit for the module's top level (ms); <= 0 = none */
  timeoutMs: number
  /** said before an import whose top level cannot be bounded (why: a short reason) */
  onUnbounded?(why: string): void
  /** what is loading, in words: named on stderr should the thread stall during an unbounded import */
  label?: string
}

/** Imports a module by path, bypassing the module cache when the file changed (reloads). */
export async function importFresh(entry: string): Promise<Record<string, unknown>> {
  const url = pathToFileURL(entry)
  url.searchParams.set('mtime', String(statSync(entry).mtimeMs))
  return (await import(/* @vite-ignore */ url.href)) as Record<string, unknown>
}

/** The entry module's exports (an ES module's namespace; a CommonJS module's as import() would show them). */
export async function loadModuleBounded(entry: string, opts: LoadModuleOptions): Promise<Record<string, unknown>> {
  if (stopped.has(entry)) {
    throw new Error('its top level was stopped at its time limit earlier in this process; restart Loopdesk to load it again')
  }
  const mtime = statSync(entry).mtimeMs
  const before = required.get(entry)
  if (before !== undefined && before !== mtime) {
    opts.onUnbounded?.('the file changed since this process first loaded it')
    return watchedImport(entry, opts)
  }
  let exported: unknown
  try {
    exported = runBounded(() => createRequire(entry)(entry), opts.timeoutMs, 'module top level')
  } catch (err) {
    if (err instanceof HookTimeoutError) {
      stopped.add(entry)
      throw new ModuleLoadTimeoutError(entry, opts.timeoutMs)
    }
    // V8 rethrows a termination as `null` to a module that imports one stopped earlier
    if (err === null) throw new Error('a module it imports was stopped part-way earlier in this process; restart Loopdesk to load it again', { cause: err })
    const code = (err as { code?: unknown } | undefined)?.code
    // not evaluated at all: top-level await in the graph, or a Node without require(esm)
    if (code !== 'ERR_REQUIRE_ASYNC_MODULE' && code !== 'ERR_REQUIRE_ESM') throw err
    opts.onUnbounded?.(code === 'ERR_REQUIRE_ASYNC_MODULE' ? 'it uses top-level await' : 'this Node cannot require() ES modules')
    return watchedImport(entry, opts)
  }
  required.set(entry, mtime)
  return asNamespace(exported)
}

// the top level runs unbounded: a stall of the thread meanwhile is named on stderr (stall-watchdog.ts)
async function watchedImport(entry: string, opts: LoadModuleOptions): Promise<Record<string, unknown>> {
  const unwatch = watchPending(opts.label ?? `loading ${entry}`, opts.timeoutMs)
  try {
    return await importFresh(entry)
  } finally {
    unwatch()
  }
}

// import() of CommonJS shows module.exports as `default` next to its named exports; keep that shape
function asNamespace(exported: unknown): Record<string, unknown> {
  if (exported && typeof exported === 'object' && (exported as { [Symbol.toStringTag]?: unknown })[Symbol.toStringTag] === 'Module') {
    return exported as Record<string, unknown>
  }
  const named = exported && (typeof exported === 'object' || typeof exported === 'function') ? { ...(exported as object) } : {}
  return { ...named, default: exported }
}
