// Bounds on how deep and how large a value from outside may be before anything walks it. Merging, validating,
// cloning and redacting a config patch (and most other code) recurse once per level: a patch nested ~100k deep
// ran the stack out ("Maximum call stack size exceeded", answered as UNAVAILABLE). These walks are iterative, so
// checking is safe at any depth, and they stop at the first excess.

/** levels of objects/arrays a request's params (a config patch included) may nest */
export const MAX_NESTING_DEPTH = 64
/** objects, arrays and values a request's params may hold in all */
export const MAX_VALUE_NODES = 100_000

/** What is wrong with `value`'s shape ("nested deeper than 64 levels at /a/a/…"), or undefined when it fits. */
export function nestingProblem(value: unknown, maxDepth = MAX_NESTING_DEPTH, maxNodes = MAX_VALUE_NODES): string | undefined {
  const stack: Array<{ v: unknown; depth: number; path: string }> = [{ v: value, depth: 0, path: '' }]
  let nodes = 0
  while (stack.length > 0) {
    const { v, depth, path } = stack.pop()!
    if (++nodes > maxNodes) return `more than ${maxNodes.toLocaleString('en-US')} values (the limit)`
    if (!v || typeof v !== 'object') continue
    if (depth >= maxDepth) return `nested deeper than ${maxDepth} levels (the limit) at ${shortPath(path)}`
    if (Array.isArray(v)) for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], depth: depth + 1, path: `${path}/${i}` })
    else for (const [k, x] of Object.entries(v)) stack.push({ v: x, depth: depth + 1, path: `${path}/${k}` })
  }
  return undefined
}

/** a path 64 levels deep is long: its start says where */
function shortPath(path: string): string {
  return path.length > 120 ? `${path.slice(0, 120)}…` : path || '/'
}

/**
 * How deep JSON / JSON5 text nests, checked before it is parsed (a recursive parser runs out of stack first):
 * the problem, or undefined when it stays within `maxDepth`. Brackets inside strings and comments do not count.
 */
export function textNestingProblem(text: string, maxDepth = MAX_NESTING_DEPTH): string | undefined {
  let depth = 0
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (c === '"' || c === "'") {
      for (i++; i < text.length && text[i] !== c; i++) if (text[i] === '\\') i++
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2)
      i = end < 0 ? text.length : end + 1
    } else if (c === '{' || c === '[') {
      if (++depth > maxDepth) return `nested deeper than ${maxDepth} levels (the limit)`
    } else if (c === '}' || c === ']') depth--
  }
  return undefined
}
