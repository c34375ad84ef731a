// Per-handler time limits for plugin and internal hooks. A hook that never settles (a plugin waiting on a
// dead service) must not hold a run, a tool call or a chat command forever: past its limit the caller
// moves on — fail-closed hooks (before_tool_call) block with a reason, the others are skipped and logged.
// Only asynchronous work can be cut off: a handler that spins synchronously blocks the thread it runs on.

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
 * pass straight through. timeoutMs <= 0 or non-finite = no limit.
 */
export async function callWithTimeout<T>(fn: () => T | Promise<T>, timeoutMs: number, hook: string, who: string): Promise<T> {
  const value = fn()
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

function isThenable(v: unknown): v is PromiseLike<unknown> {
  return typeof v === 'object' && v !== null && typeof (v as { then?: unknown }).then === 'function'
}

/** A number, or a getter read at each call (so a config reload applies to the next hook call). */
export type TimeoutSetting = number | (() => number | undefined)

export function readTimeout(setting: TimeoutSetting | undefined): number {
  const v = typeof setting === 'function' ? setting() : setting
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : DEFAULT_HOOK_TIMEOUT_MS
}
