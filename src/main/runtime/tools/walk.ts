// Depth-first directory walk used by glob and grep. Never follows symlinks (no escapes, no loops),
// skips node_modules/.git, checks the abort signal and stops after a bounded number of entries.
import type { Dirent } from 'node:fs'
import { promises as fsp } from 'node:fs'
import path from 'node:path'
import { ToolAbortedError } from './result'

export const SKIP_DIRS = new Set(['node_modules', '.git'])
export const WALK_MAX_ENTRIES = 200_000

export interface WalkEntry {
  abs: string
  /** relative to the walk start, '/'-separated */
  rel: string
  kind: 'file' | 'dir' | 'symlink' | 'other'
}

export interface WalkState {
  visited: number
  /** true when the walk stopped at WALK_MAX_ENTRIES */
  truncated: boolean
}

function kindOf(d: Dirent): WalkEntry['kind'] {
  if (d.isSymbolicLink()) return 'symlink'
  if (d.isDirectory()) return 'dir'
  if (d.isFile()) return 'file'
  return 'other'
}

export async function* walk(
  start: string,
  signal: AbortSignal | undefined,
  state: WalkState = { visited: 0, truncated: false },
  maxEntries = WALK_MAX_ENTRIES,
  /** entries not to list or enter (the private folders and files a workspace holds: paths.ts fenceSkipper) */
  skip?: (abs: string, name: string) => boolean,
): AsyncGenerator<WalkEntry> {
  const stack: string[] = ['']
  while (stack.length) {
    if (signal?.aborted) throw new ToolAbortedError('walk')
    const relDir = stack.pop()!
    let entries: Dirent[]
    try {
      entries = await fsp.readdir(path.join(start, relDir), { withFileTypes: true })
    } catch {
      continue // unreadable directory: skip it rather than fail the whole search
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    const subdirs: string[] = []
    for (const d of entries) {
      if (++state.visited > maxEntries) {
        state.truncated = true
        return
      }
      const rel = relDir ? `${relDir}/${d.name}` : d.name
      const kind = kindOf(d)
      if (kind === 'dir' && SKIP_DIRS.has(d.name)) continue
      const abs = path.join(start, rel)
      if (skip?.(abs, d.name)) continue
      yield { abs, rel, kind }
      if (kind === 'dir') subdirs.push(rel)
    }
    for (let i = subdirs.length - 1; i >= 0; i--) stack.push(subdirs[i])
  }
}
