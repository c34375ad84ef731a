// Each hook handler works on its own copy of the event, because the time limit can stop a handler anywhere: V8's
// watchdog ends its synchronous part mid-statement (no `finally` runs), and an async one past its limit keeps
// running in the background. Were it handed the runtime's own objects — the tool call's arguments, the tool result
// about to be persisted, the bootstrap file list, the run's message history — a handler stopped half-way through
// an in-place edit (or editing after its timeout) would leave them half edited, and the runtime would go on with
// them. The runners take a modifying handler's copy back only when it answered in time (in-place edits keep
// working); a stopped, failed or late handler's edits are dropped with its copy.
//
// Plain data (objects with Object.prototype or a null prototype, and arrays) is copied, cycles and shared
// references kept; anything else — class instances, Buffers, Dates, Maps, functions — is passed as is, so an
// edit inside one of those is not undone (the hook events hold JSON-like data).

/** A deep copy of `value`'s plain objects and arrays; other objects are shared. */
export function copyPlain<T>(value: T): T {
  return copy(value, new Map()) as T
}

function copy(value: unknown, seen: Map<object, unknown>): unknown {
  if (value === null || typeof value !== 'object') return value
  const done = seen.get(value)
  if (done !== undefined) return done
  if (Array.isArray(value)) {
    const out: unknown[] = new Array(value.length)
    seen.set(value, out)
    for (let i = 0; i < value.length; i++) out[i] = copy(value[i], seen)
    return out
  }
  const proto: unknown = Object.getPrototypeOf(value)
  if (proto !== Object.prototype && proto !== null) return value
  const out = Object.create(proto as object | null) as Record<string, unknown>
  seen.set(value, out)
  for (const key of Object.keys(value)) {
    const v = copy((value as Record<string, unknown>)[key], seen)
    // an own "__proto__" (JSON.parse makes them) stays a property, never sets the copy's prototype
    if (key === '__proto__') Object.defineProperty(out, key, { value: v, writable: true, enumerable: true, configurable: true })
    else out[key] = v
  }
  return out
}
