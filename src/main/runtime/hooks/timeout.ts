// Per-handler time limits for plugin and internal hooks. A hook that never settles (a plugin waiting on a
// dead service) must not hold a run, a tool call or a chat command forever: past its limit the caller
// moves on — fail-closed hooks (before_tool_call) block with a reason, the others are skipped and logged.
//
// THE LIMIT: only asynchronous work can be cut off. Hooks are plain functions of plugin / hook modules
// loaded into the main process (they close over their module's state, mutate the event in place —
// agent:bootstrap edits context.bootstrapFiles — and tool_result_persist must answer synchronously), so
// they run on the main thread. A handler that computes synchronously for a long time blocks every
// session, the gateway and the UI for that long, and one that loops forever hangs the app: JavaScript
// cannot interrupt a running function, and no timer fires while it runs. Running hooks in a worker thread
// would need their events, results and module state to cross a thread boundary (structured clone: no
// closures, no in-place edits) and would make tool_result_persist block on the worker anyway — a different
// plugin API, not a drop-in isolation. What we do: a synchronous stretch longer than the limit is logged
// with the handler's name once it returns (its result is kept: it did finish), so a slow plugin is found; and
// one that does not return is named while it runs, by a watchdog thread (stall-watchdog.ts).

import { watchCall } from './stall-watchdog'

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
 * (the handler keeps running in the background; its late result is ignored). Synchronous results and throws
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
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new HookTimeoutError(hook, who, timeoutMs)), timeoutMs)
  })
  // a rejection that comes after the timeout must not surface as an unhandled rejection
  Promise.resolve(value).catch(() => {})
  try {
    return await Promise.race([value, expired])
  } finally {
    clearTimeout(timer)
  }
}

/**
 * Runs `fn` and reports (after it returned or threw) a synchronous stretch longer than `limitMs`; with `label`
 * (the handler, in words) a stretch that goes on past the limit is also named while it runs (stall-watchdog.ts).
 */
export function timeSync<T>(fn: () => T, limitMs: number, onBlocked?: (ms: number) => void, label?: string): T {
  if (!onBlocked || !(limitMs > 0) || !Number.isFinite(limitMs)) return fn()
  const started = performance.now()
  const done = label ? watchCall(label, limitMs) : undefined
  try {
    return fn()
  } finally {
    done?.()
    const ms = performance.now() - started
    if (ms > limitMs) onBlocked(ms)
  }
}

/** The log line for a handler that blocked the main thread past its limit. */
export function blockedText(hook: string, who: string, ms: number, limitMs: number): string {
  return (
    `${hook} ${who} ran synchronously for ${Math.round(ms)} ms (limit ${limitMs} ms) and blocked the app meanwhile; ` +
    'synchronous work cannot be cut off — make the handler asynchronous or move the work out of the hook'
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
