// `grep`: regex search over workspace files (binary and huge files skipped, results capped).
import { constants as C, promises as fsp } from 'node:fs'
import path from 'node:path'
import Type from 'typebox'
import { globToRegExp } from './glob-match'
import { openConfined, resolveInWorkspace, type ResolvedPath } from './paths'
import { looksBinary, textResult, throwIfAborted } from './result'
import { defineTool } from './spec'
import { walk, type WalkState } from './walk'

export const GREP_MAX_MATCHES = 200
export const GREP_MAX_FILE_BYTES = 5 * 1024 * 1024
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

async function searchFile(rp: ResolvedPath, re: RegExp, out: string[], limit: number): Promise<number> {
  let buf: Buffer
  const fh = await openConfined(rp, C.O_RDONLY)
  try {
    const st = await fh.stat()
    if (!st.isFile() || st.size > GREP_MAX_FILE_BYTES) return 0
    buf = await fh.readFile()
  } finally {
    await fh.close().catch(() => {})
  }
  if (looksBinary(buf)) return 0
  const lines = buf.toString('utf8').split('\n')
  let found = 0
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].endsWith('\r') ? lines[i].slice(0, -1) : lines[i]
    re.lastIndex = 0
    if (!re.test(line)) continue
    found++
    if (out.length < limit) out.push(`${toPosix(rp.rel)}:${i + 1}: ${clip(line)}`)
  }
  return found
}

export const grepTool = defineTool(
  {
    name: 'grep',
    label: 'Search files',
    description:
      'Search file contents with a regular expression. Returns "path:line: text" for each matching line ' +
      `(up to ${GREP_MAX_MATCHES}). Binary files, files over 5 MB, node_modules and .git are skipped.`,
    parameters: params,
  },
  async (ctx, p, signal) => {
    throwIfAborted(signal, 'grep')
    let re: RegExp
    try {
      re = new RegExp(p.pattern, p.ignoreCase ? 'i' : '')
    } catch (err) {
      throw new Error(`Invalid regular expression: ${(err as Error).message}`, { cause: err })
    }
    const base = await resolveInWorkspace(ctx.workspaceDir, p.path)
    const out: string[] = []
    let total = 0
    let files = 0
    const st = await fsp.stat(base.abs)
    const state: WalkState = { visited: 0, truncated: false }
    if (st.isFile()) {
      files = 1
      total = await searchFile(base, re, out, GREP_MAX_MATCHES)
    } else {
      const filter = p.glob?.trim() ? globToRegExp(p.glob.trim()) : undefined
      const byName = !!p.glob && !p.glob.includes('/')
      for await (const e of walk(base.abs, signal, state)) {
        if (e.kind !== 'file') continue // symlinks are not followed
        throwIfAborted(signal, 'grep')
        if (filter && !filter.test(byName ? path.posix.basename(e.rel) : e.rel)) continue
        files++
        const rp: ResolvedPath = { ...base, abs: e.abs, rel: path.relative(base.root, e.abs), exists: true }
        try {
          total += await searchFile(rp, re, out, GREP_MAX_MATCHES)
        } catch (err) {
          if ((err as Error).name === 'WorkspaceEscapeError') throw err
          // unreadable file: skip
        }
      }
    }
    if (total === 0) {
      return textResult(`No matches for /${p.pattern}/ in ${base.rel} (${files} file${files === 1 ? '' : 's'} searched)`, {
        matches: 0,
        files,
      })
    }
    let text = out.join('\n')
    if (total > out.length) text += `\n\n[${total - out.length} more matches not shown; narrow the pattern, path or glob]`
    if (state.truncated) text += '\n\n[search stopped early: too many entries]'
    return textResult(text, { matches: total, files })
  },
)
