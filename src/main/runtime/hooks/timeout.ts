// Per-handler time limits for plugin and internal hooks. A hook that never settles (a plugin waiting on a
// dead service) must not hold a run, a tool call or a chat command forever: past its limit the caller
// moves on — fail-closed hooks (before_tool_call) block with a reason, the others are skipped and logged.
//
// Synchronous work too: hooks are plain functions of plugin / hook modules loaded into the main process (they
// close over their module's state, mutate the event in place — agent:bootstrap edits context.bootstrapFiles —
// and tool_result_persist must answer synchronously), so they run on the main thread, where a handler that
// loops blocks every session, the gateway and the UI, and no timer fires to stop it. Each call's synchronous
// part (up to its return or first await) is therefore entered through a one-line `vm` script run with
// `timeout`: V8's watchdog terminates the execution at the limit — the handler itself stays an ordinary
// function of the main realm, same objects, same in-place edits, so the hook API is unchanged. A stopped
// handler counts as timed out (HookTimeoutError). The same watchdog bounds loading: a module's top level
// (load-module.ts) and a plugin's `register(api)` (plugins.ts). A stopped handler's `finally` blocks do not run;
// it works on its own copy of the event (event-copy.ts), so what it was editing is dropped, not left half done.
// What this cannot bound: code after a handler's first await. It runs later, as a microtask of the main
// realm's queue, started by the event loop and not inside any call of ours — the `vm` timeout covers only the
// script it runs, and a context with `microtaskMode: 'afterEvaluate'` drains only microtasks queued for that
// context's own functions, not the continuation of a main-realm handler. The handler's promise is still raced
// against the limit (a handler that never settles counts as timed out), but a continuation that loops
// synchronously holds the thread, and that timer with it, until it returns; a watchdog thread then names the
// calls still pending on stderr (stall-watchdog.ts). Worker threads would bound it too but need events, results
// and module state to cross a thread boundary — a different plugin API.
import { createContext, Script, type Context } from 'node:vm'
import { enterBounded, watchPending } from './stall-watchdog'

export const DEFAULT_HOOK_TIMEOUT_MS = 10_000

export class HookTimeoutError extends Error {
  constructor(
    readonly hook: string,
    readonly who: string,
    readonly timeoutMs: number,
  ) {
    super(`${hook} ${who} did not answer within ${timeoutMs} ms`)
    this.name = 'HookTimeoutError'
  }
}

/**
 * Calls `fn`; if it returns a promise that does not settle within `timeoutMs`, rejects with HookTimeoutError
 * (the handler keeps running in the background; its late result is ignored — also one that settles past the limit
 * before the timer could fire, the thread held meanwhile). Synchronous results and throws
 * pass straight through. timeoutMs <= 0 or non-finite = no limit. `onBlocked(ms)`: the synchronous part of
 * the call (up to its return or first await) took longer than the limit — it could not be cut off.
 */
export async function callWithTimeout<T>(
  fn: () => T | Promise<T>,
  timeoutMs: number,
  hook: string,
  who: string,
  onBlocked?: (ms: number) => void,
): Promise<T> {
  const value = timeSync(fn, timeoutMs, onBlocked, `${hook} ${who}`)
  if (!isThenable(value)) return value
  if (!(timeoutMs > 0) || !Number.isFinite(timeoutMs)) return await value
  let timer: ReturnType<typeof setTimeout> | undefined
  const started = performance.now()
  // until it settles or times out, a stall of the whole thread meanwhile is named on stderr (once timed out it is
  // let go: one that never settles must not be named for every later stall)
  const unwatch = watchPending(`${hook} ${who}`, timeoutMs)
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new HookTimeoutError(hook, who, timeoutMs)), timeoutMs)
  })
  // a rejection that comes after the timeout must not surface as an unhandled rejection
  Promise.resolve(value).catch(() => {})
  try {
    const result = await Promise.race([value, expired])
    // settled past the limit all the same: code after an await that ran synchronously past it kept the timer from
    // firing, and its answer came first — too late counts as timed out, whoever held the thread
    if (performance.now() - started > timeoutMs) throw new HookTimeoutError(hook, who, timeoutMs)
    return result
  } finally {
    clearTimeout(timer)
    unwatch()
  }
}

/**
 * Runs `fn` with its synchronous part stopped at `limitMs` (HookTimeoutError, `label` naming it), and reports
 * a synchronous stretch longer than the limit — one stopped, or one that returned just past it — to `onBlocked`.
 */
export function timeSync<T>(fn: () => T, limitMs: number, onBlocked?: (ms: number) => void, label?: string): T {
  if (!onBlocked || !(limitMs > 0) || !Number.isFinite(limitMs)) return fn()
  const started = performance.now()
  let stopped = false
  try {
    return callBounded(fn, limitMs, label ?? 'a hook handler')
  } catch (err) {
    stopped = err instanceof HookTimeoutError
    throw err
  } finally {
    // (V8's watchdog may stop it a hair before this clock says the limit passed)
    const ms = performance.now() - started
    if (stopped || ms > limitMs) onBlocked(Math.max(ms, limitMs))
  }
}

// one context and script for every call: `fn` is handed over through the context's global (saved and put back,
// so a hook that runs another hook nests), and the script only calls it
let trampoline: { ctx: Context & { __hookCall?: () => unknown }; script: Script } | undefined

/**
 * Runs `fn` with its synchronous part stopped by V8's watchdog at `limitMs` (HookTimeoutError naming `label`);
 * limitMs <= 0 or non-finite = no limit. What it was doing when stopped stays half done (no `finally` runs).
 */
export function runBounded<T>(fn: () => T, limitMs: number, label: string): T {
  if (!(limitMs > 0) || !Number.isFinite(limitMs)) return fn()
  return callBounded(fn, limitMs, label)
}

function callBounded<T>(fn: () => T, limitMs: number, label: string): T {
  const t = (trampoline ??= { ctx: createContext({}), script: new Script('__hookCall()') })
  const outer = t.ctx.__hookCall
  t.ctx.__hookCall = fn
  // a stall inside it is V8's watchdog's to end: the stall watchdog does not name pending calls for it
  const leave = enterBounded()
  try {
    return t.script.runInContext(t.ctx, { timeout: Math.max(1, Math.ceil(limitMs)) }) as T
  } catch (err) {
    if ((err as { code?: unknown } | null)?.code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') throw new HookTimeoutError(label, '(synchronous part)', limitMs)
    throw err
  } finally {
    leave()
    t.ctx.__hookCall = outer
  }
}

/** The log line for a handler that blocked the main thread past its limit. */
export function blockedText(hook: string, who: string, ms: number, limitMs: number): string {
  return (
    `${hook} ${who} ran synchronously for ${Math.round(ms)} ms (limit ${limitMs} ms) and blocked the app meanwhile; ` +
    'one still running at its limit is stopped — make the handler asynchronous or move the work out of the hook'
  )
}

function isThenable(v: unknown): v is PromiseLike<unknown> {
  return typeof v === 'object' && v !== null && typeof (v as { then?: unknown }).then === 'function'
}

/** A number, or a getter read at each call (so a config reload applies to the next hook call). */
export type TimeoutSetting = number | (() => number | undefined)

export function readTimeout(setting: TimeoutSetting | undefined): number {
  const v = typeof setting === 'function' ? setting() : setting
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : DEFAULT_HOOK_TIMEOUT_MS
}
