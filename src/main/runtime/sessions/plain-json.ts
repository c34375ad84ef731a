// A copy of plain JSON data that equals `JSON.parse(JSON.stringify(v))`, made without building and
// parsing the text (several times cheaper for session entries, which are copied on every store update).
// Anything a JSON round trip would change rather than copy — non-finite numbers, undefined or functions in
// arrays, sparse arrays, toJSON, Dates, Maps, class instances, bigint, cycles — is not handled here:
// the copy gives up (returns NOT_PLAIN) and the caller does the real round trip.

export const NOT_PLAIN: unique symbol = Symbol('not plain JSON')

/** deeper than any session entry; also where a cycle stops */
const MAX_DEPTH = 64

/**
 * Deep copy of `v` as a JSON round trip would return it, or NOT_PLAIN. With `freeze`, every copied
 * object and array is frozen as it is made (no second pass). `frozenPlain`: objects known to be frozen
 * plain JSON (made by an earlier frozen copy) are taken as they are instead of copied, and every object
 * this copy freezes is added to it.
 */
export function copyPlainJson(v: unknown, freeze = false, frozenPlain?: WeakSet<object>): unknown {
  return copy(v, freeze, 0, freeze ? frozenPlain : undefined)
}

function copy(v: unknown, freeze: boolean, depth: number, known: WeakSet<object> | undefined): unknown {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return v
    case 'number':
      if (!Number.isFinite(v)) return NOT_PLAIN // JSON turns it into null
      return v === 0 ? 0 : v // -0 → 0
    case 'object':
      break
    default:
      return NOT_PLAIN // undefined / function / symbol / bigint (handled by the caller for object members)
  }
  if (v === null) return null
  if (known?.has(v)) return v
  if (depth >= MAX_DEPTH) return NOT_PLAIN
  if (Array.isArray(v)) {
    if (Object.getPrototypeOf(v) !== Array.prototype || typeof (v as { toJSON?: unknown }).toJSON === 'function') return NOT_PLAIN
    const out = new Array(v.length)
    for (let i = 0; i < v.length; i++) {
      if (!(i in v)) return NOT_PLAIN // a hole becomes null
      const c = copy(v[i], freeze, depth + 1, known)
      if (c === NOT_PLAIN) return NOT_PLAIN
      out[i] = c
    }
    return freeze ? done(out, known) : out
  }
  const proto = Object.getPrototypeOf(v)
  if (proto !== Object.prototype && proto !== null) return NOT_PLAIN
  const obj = v as Record<string, unknown>
  if (typeof obj.toJSON === 'function') return NOT_PLAIN
  const out: Record<string, unknown> = {}
  for (const k of Object.keys(obj)) {
    if (k === '__proto__') return NOT_PLAIN // assigning it would set the prototype, not a member
    const m = obj[k]
    const t = typeof m
    if (t === 'undefined' || t === 'function' || t === 'symbol') continue // JSON drops the member
    const c = copy(m, freeze, depth + 1, known)
    if (c === NOT_PLAIN) return NOT_PLAIN
    out[k] = c
  }
  return freeze ? done(out, known) : out
}

function done<T extends object>(out: T, known: WeakSet<object> | undefined): T {
  Object.freeze(out)
  known?.add(out)
  return out
}
