// `grep`: regex search over workspace files (binary and huge files skipped, results capped). The pattern
// comes from the model, so it runs in a worker thread with a time budget per file (regex-worker.ts): a
// catastrophically backtracking pattern ends the call with a clear error instead of freezing the app.
import { constants as C, promises as fsp } from 'node:fs'
import path from 'node:path'
import Type from 'typebox'
import { compileGlob } from './glob-match'
import { fenceSkipper, openConfined, privateDirsOf, resolveInWorkspace, type ResolvedPath } from './paths'
import { RegexSearcher } from './regex-worker'
import { looksBinary, textResult, throwIfAborted } from './result'
import { defineTool } from './spec'
import { walk, type WalkState } from './walk'

export const GREP_MAX_MATCHES = 200
export const GREP_MAX_FILE_BYTES = 5 * 1024 * 1024
/** longer lines are searched in their first this-many characters only (minified bundles, data dumps) */
export const GREP_MAX_SCAN_LINE_CHARS = 10_000
/** time one file's search may take before the pattern is judged runaway */
export const GREP_REGEX_BUDGET_MS = 5_000
export const GREP_MAX_PATTERN_CHARS = 1_000
const MAX_LINE_CHARS = 300

const params = Type.Object({
  pattern: Type.String({ description: 'JavaScript regular expression, e.g. "function\\s+\\w+"' }),
  path: Type.Optional(Type.String({ description: 'File or directory to search, relative to the workspace (default: root)' })),
  glob: Type.Optional(Type.String({ description: 'Only search files matching this glob (e.g. "*.ts" by file name, or "src/**/*.ts")' })),
  ignoreCase: Type.Optional(Type.Boolean({ description: 'Case-insensitive match' })),
})

const toPosix = (p: string) => p.split(path.sep).join('/')

function clip(line: string): string {
  return line.length > MAX_LINE_CHARS ? line.slice(0, MAX_LINE_CHARS) + '…' : line
}

interface SearchStats {
  /** lines searched only up to GREP_MAX_SCAN_LINE_CHARS */
  cutLines: number
  /** files skipped for their size */
  bigFiles: number
}

async function searchFile(
  rp: ResolvedPath,
  searcher: RegexSearcher,
  out: string[],
  limit: number,
  stats: SearchStats,
  signal: AbortSignal | undefined,
): Promise<number> {
  let buf: Buffer
  const fh = await openConfined(rp, C.O_RDONLY)
  try {
    const st = await fh.stat()
    if (!st.isFile()) return 0
    if (st.size > GREP_MAX_FILE_BYTES) {
      stats.bigFiles++
      return 0
    }
    buf = await fh.readFile()
  } finally {
    await fh.close().catch(() => {})
  }
  if (looksBinary(buf)) return 0
  const text = buf.toString('utf8')
  const { hits, cut } = await searcher.search(text, toPosix(rp.rel), signal)
  stats.cutLines += cut
  if (hits.length > 0 && out.length < limit) {
    const lines = text.split('\n')
    for (const i of hits) {
      if (out.length >= limit) break
      const line = lines[i].endsWith('\r') ? lines[i].slice(0, -1) : lines[i]
      out.push(`${toPosix(rp.rel)}:${i + 1}: ${clip(line)}`)
    }
  }
  return hits.length
}

export const grepTool = defineTool(
  {
    name: 'grep',
    readOnly: true,
    label: 'Search files',
    description:
      'Search file contents with a regular expression. Returns "path:line: text" for each matching line ' +
      `(up to ${GREP_MAX_MATCHES}). Binary files, files over 5 MB, node_modules and .git are skipped; lines are searched in their first ` +
      `${GREP_MAX_SCAN_LINE_CHARS} characters. A pattern that runs too long on one file (catastrophic backtracking) stops the search.`,
    parameters: params,
  },
  async (ctx, p, signal) => {
    throwIfAborted(signal, 'grep')
    if (p.pattern.length > GREP_MAX_PATTERN_CHARS) throw new Error(`pattern too long (${p.pattern.length} characters; at most ${GREP_MAX_PATTERN_CHARS})`)
    const flags = p.ignoreCase ? 'i' : ''
    try {
      new RegExp(p.pattern, flags) // syntax errors are reported here, not from the worker
    } catch (err) {
      throw new Error(`Invalid regular expression: ${(err as Error).message}`, { cause: err })
    }
    const base = await resolveInWorkspace(ctx.workspaceDir, p.path, { privateDirs: privateDirsOf(ctx) })
    const out: string[] = []
    let total = 0
    let files = 0
    const st = await fsp.stat(base.abs)
    const state: WalkState = { visited: 0, truncated: false }
    const stats: SearchStats = { cutLines: 0, bigFiles: 0 }
    const searcher = new RegexSearcher(p.pattern, flags, {
      budgetMs: ctx.grep?.regexTimeoutMs ?? GREP_REGEX_BUDGET_MS,
      maxLineChars: GREP_MAX_SCAN_LINE_CHARS,
    })
    try {
      if (st.isFile()) {
        files = 1
        total = await searchFile(base, searcher, out, GREP_MAX_MATCHES, stats, signal)
      } else {
        const filter = p.glob?.trim() ? compileGlob(p.glob.trim()) : undefined
        const byName = !!p.glob && !p.glob.includes('/')
        for await (const e of walk(base.abs, signal, state, undefined, fenceSkipper(base.fences))) {
          if (e.kind !== 'file') continue // symlinks are not followed
          throwIfAborted(signal, 'grep')
          if (filter && !filter.test(byName ? path.posix.basename(e.rel) : e.rel)) continue
          files++
          const rp: ResolvedPath = { ...base, abs: e.abs, rel: path.relative(base.root, e.abs), exists: true }
          try {
            total += await searchFile(rp, searcher, out, GREP_MAX_MATCHES, stats, signal)
          } catch (err) {
            const name = (err as Error).name
            if (name === 'WorkspaceEscapeError' || name === 'RegexTimeoutError' || name === 'ToolAbortedError') throw err
            // unreadable file: skip
          }
        }
      }
    } finally {
      searcher.close()
    }
    const notes: string[] = []
    if (stats.cutLines > 0) {
      notes.push(`[${stats.cutLines} line${stats.cutLines === 1 ? '' : 's'} longer than ${GREP_MAX_SCAN_LINE_CHARS} characters searched in their first ${GREP_MAX_SCAN_LINE_CHARS} only]`)
    }
    if (stats.bigFiles > 0) notes.push(`[${stats.bigFiles} file${stats.bigFiles === 1 ? '' : 's'} over 5 MB skipped]`)
    if (state.truncated) notes.push('[search stopped early: too many entries]')
    const tail = notes.length ? `\n\n${notes.join('\n')}` : ''
    if (total === 0) {
      return textResult(`No matches for /${p.pattern}/ in ${base.rel} (${files} file${files === 1 ? '' : 's'} searched)${tail}`, {
        matches: 0,
        files,
      })
    }
    let text = out.join('\n')
    if (total > out.length) text += `\n\n[${total - out.length} more matches not shown; narrow the pattern, path or glob]`
    return textResult(text + tail, { matches: total, files })
  },
)
