// `glob`: find workspace paths matching a glob pattern (our own matcher; node_modules/.git skipped).
import { promises as fsp } from 'node:fs'
import path from 'node:path'
import Type from 'typebox'
import { compileGlob, literalPrefix } from './glob-match'
import { checkFence, fenceSkipper, isInside, privateDirsOf, resolveInWorkspace } from './paths'
import { textResult, throwIfAborted } from './result'
import { defineTool } from './spec'
import { walk, type WalkState } from './walk'

export const GLOB_MAX_RESULTS = 1000

const params = Type.Object({
  pattern: Type.String({ description: 'Glob pattern, e.g. "**/*.ts", "src/*.{js,jsx}", "docs/?.md"' }),
  path: Type.Optional(Type.String({ description: 'Directory to search from, relative to the workspace (default: root)' })),
})

const toPosix = (p: string) => p.split(path.sep).join('/')

export const globTool = defineTool(
  {
    name: 'glob',
    readOnly: true,
    label: 'Find files',
    description:
      'Find files and directories by glob pattern, relative to path (default: workspace root). Supports ** (any depth), *, ?, [abc] and {a,b}. ' +
      `node_modules and .git are skipped. Returns up to ${GLOB_MAX_RESULTS} workspace-relative paths (directories end with "/").`,
    parameters: params,
  },
  async (ctx, p, signal) => {
    throwIfAborted(signal, 'glob')
    const pattern = p.pattern.trim()
    if (!pattern) throw new Error('pattern must not be empty')
    if (pattern.startsWith('/') || pattern.split('/').includes('..')) {
      throw new Error('pattern must be relative to path and must not contain ".."; pass a directory in path instead')
    }
    const base = await resolveInWorkspace(ctx.workspaceDir, p.path, { privateDirs: privateDirsOf(ctx) })
    if (!(await fsp.stat(base.abs)).isDirectory()) throw new Error(`"${base.rel}" is not a directory`)

    const re = compileGlob(pattern)
    // Start the walk at the literal leading directories of the pattern (e.g. "src/" in "src/**/*.ts").
    const { prefix } = literalPrefix(pattern)
    let start = base.abs
    if (prefix) {
      try {
        start = await fsp.realpath(path.join(base.abs, prefix))
      } catch {
        return textResult(`No paths match "${pattern}" in ${base.rel}`, { count: 0 })
      }
      if (!isInside(base.root, start)) throw new Error(`Access denied: "${prefix}" leads outside the workspace`)
      checkFence(base, start, prefix)
    }
    const startRel = toPosix(path.relative(base.abs, start))

    const hits: string[] = []
    let total = 0
    const state: WalkState = { visited: 0, truncated: false }
    for await (const e of walk(start, signal, state, undefined, fenceSkipper(base.fences))) {
      const relToBase = startRel ? `${startRel}/${e.rel}` : e.rel
      if (!re.test(relToBase)) continue
      total++
      if (hits.length < GLOB_MAX_RESULTS) {
        const relToRoot = toPosix(path.relative(base.root, e.abs))
        hits.push(e.kind === 'dir' ? `${relToRoot}/` : relToRoot)
      }
    }
    if (hits.length === 0) {
      return textResult(`No paths match "${pattern}" in ${base.rel}${state.truncated ? ' (search stopped early: too many entries)' : ''}`, {
        count: 0,
      })
    }
    hits.sort()
    let text = hits.join('\n')
    if (total > hits.length) text += `\n\n[${total - hits.length} more matches not shown; narrow the pattern]`
    if (state.truncated) text += '\n\n[search stopped early: too many entries; narrow path or pattern]'
    return textResult(text, { count: total, truncated: total > hits.length || state.truncated })
  },
)
