// Renderer modules that import each other: a lazy chunk's module importing back from the entry's (config-writes ↔
// controller did) ties their load order together and makes what belongs to first paint hard to tell.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = resolve(__dirname, '../src/renderer/src')

/** Each module's relative imports (type-only ones included: they still tie the two files together). */
function importGraph(files: Map<string, string>): Map<string, string[]> {
  const graph = new Map<string, string[]>()
  for (const [file, src] of files) {
    const deps: string[] = []
    for (const m of src.matchAll(/^(?:import|export)\s[^'";]*?from\s+['"](\.[^'"]+)['"]/gm)) {
      const base = resolve(dirname(file), m[1])
      const target = [base, `${base}.ts`, `${base}.tsx`].find((p) => files.has(p))
      if (target) deps.push(target)
    }
    graph.set(file, deps)
  }
  return graph
}

/** The cycles, each as its modules' paths from its first module found (depth-first over the graph). */
function cycles(graph: Map<string, string[]>): string[][] {
  const out: string[][] = []
  const state = new Map<string, 'open' | 'done'>()
  const stack: string[] = []
  const visit = (f: string) => {
    state.set(f, 'open')
    stack.push(f)
    for (const d of graph.get(f) ?? []) {
      if (state.get(d) === 'open') out.push(stack.slice(stack.indexOf(d)))
      else if (!state.has(d)) visit(d)
    }
    stack.pop()
    state.set(f, 'done')
  }
  for (const f of [...graph.keys()].sort()) if (!state.has(f)) visit(f)
  return out
}

function sources(dir: string, out = new Map<string, string>()): Map<string, string> {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name)
    if (statSync(p).isDirectory()) sources(p, out)
    else if (/\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) && existsSync(p)) out.set(p, readFileSync(p, 'utf8'))
  }
  return out
}

describe('renderer imports', () => {
  it('no modules import each other, directly or round a longer loop', () => {
    const found = cycles(importGraph(sources(ROOT))).map((c) => c.map((f) => relative(ROOT, f)).join(' → '))
    expect(found).toEqual([])
  })

  it('the check sees a cycle, type-only imports included', () => {
    const files = new Map([
      ['/r/a.ts', "import { b } from './b'\n"],
      ['/r/b.ts', "import type { A } from './a'\n"],
      ['/r/c.ts', "import { a } from './a'\n"],
    ])
    expect(cycles(importGraph(files))).toEqual([['/r/a.ts', '/r/b.ts']])
  })
})
