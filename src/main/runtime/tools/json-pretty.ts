// JSON.stringify(value, null, 2) for web_fetch's JSON pages, stopped once `limit` characters are out. The
// indentation grows with the depth, so a small document of deeply nested arrays pretty-prints to gigabytes:
// 2 MB of `[[[…]]]` kept the main thread busy for 20 s and took 2.4 GB before V8 gave up with "Invalid string
// length" (and past a few thousand levels JSON.stringify overflows the stack). Only the first `limit`
// characters are ever shown, so no more are made; the walk is iterative, so no depth is too deep.

type Frame = { close: ']' | '}'; depth: number; entries: Array<[string | undefined, unknown]>; next: number }

const indent = (depth: number) => '  '.repeat(depth)

/**
 * The pretty-printed JSON of a value JSON.parse returned (plain objects, arrays, strings, finite numbers,
 * booleans, null), exactly as JSON.stringify(value, null, 2) would write it — cut after at least `limit`
 * characters (the result is then longer than `limit`, so the caller can tell it was cut).
 */
export function prettyJson(value: unknown, limit: number): string {
  const parts: string[] = []
  let length = 0
  const out = (s: string) => {
    parts.push(s)
    length += s.length
  }
  const stack: Frame[] = []
  /** writes a primitive, an empty container, or opens a container (pushing its frame) */
  const start = (v: unknown, depth: number) => {
    if (v === null || typeof v !== 'object') return out(JSON.stringify(v) ?? 'null')
    const isArray = Array.isArray(v)
    const entries: Frame['entries'] = isArray ? v.map((x) => [undefined, x]) : Object.entries(v as Record<string, unknown>)
    if (entries.length === 0) return out(isArray ? '[]' : '{}')
    out(isArray ? '[' : '{')
    stack.push({ close: isArray ? ']' : '}', depth, entries, next: 0 })
  }
  start(value, 0)
  while (stack.length > 0 && length <= limit) {
    const f = stack[stack.length - 1]
    if (f.next === f.entries.length) {
      stack.pop()
      out(`\n${indent(f.depth)}${f.close}`)
      continue
    }
    const [key, v] = f.entries[f.next]
    out(`${f.next > 0 ? ',' : ''}\n${indent(f.depth + 1)}${key === undefined ? '' : `${JSON.stringify(key)}: `}`)
    f.next++
    start(v, f.depth + 1)
  }
  return parts.join('')
}
