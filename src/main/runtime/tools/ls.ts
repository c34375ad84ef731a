// `ls`: list one workspace directory (dirs end with '/', symlinks with '@', files show their size).
import { promises as fsp } from 'node:fs'
import path from 'node:path'
import Type from 'typebox'
import { privateDirsOf, resolveInWorkspace } from './paths'
import { formatBytes, raceAbort, textResult, throwIfAborted } from './result'
import { defineTool } from './spec'

export const LS_MAX_ENTRIES = 1000

const params = Type.Object({
  path: Type.Optional(Type.String({ description: 'Directory, relative to the workspace (default: the workspace root)' })),
})

export const lsTool = defineTool(
  {
    name: 'ls',
    readOnly: true,
    label: 'List directory',
    description: `List the entries of a workspace directory (up to ${LS_MAX_ENTRIES}). Directories end with "/", symlinks with "@".`,
    parameters: params,
  },
  async (ctx, p, signal) => {
    throwIfAborted(signal, 'ls')
    const rp = await resolveInWorkspace(ctx.workspaceDir, p.path, { privateDirs: privateDirsOf(ctx) })
    const st = await fsp.stat(rp.abs)
    if (!st.isDirectory()) {
      return textResult(`${rp.rel} is a file (${formatBytes(st.size)})`, { path: rp.rel, entries: 0 })
    }
    const dirents = await raceAbort(fsp.readdir(rp.abs, { withFileTypes: true }), signal, 'ls')
    dirents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    const shown = dirents.slice(0, LS_MAX_ENTRIES)
    const lines: string[] = []
    for (const d of shown) {
      if (d.isSymbolicLink()) lines.push(`${d.name}@`)
      else if (d.isDirectory()) lines.push(`${d.name}/`)
      else if (d.isFile()) {
        const size = await fsp.lstat(path.join(rp.abs, d.name)).then((s) => formatBytes(s.size), () => '?')
        lines.push(`${d.name}  (${size})`)
      } else lines.push(d.name)
    }
    if (lines.length === 0) return textResult(`${rp.rel}/ is empty`, { path: rp.rel, entries: 0 })
    let text = lines.join('\n')
    if (dirents.length > shown.length) text += `\n\n[${dirents.length - shown.length} more entries not shown]`
    return textResult(text, { path: rp.rel, entries: dirents.length })
  },
)
