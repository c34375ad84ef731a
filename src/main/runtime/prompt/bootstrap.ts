// Bootstrap (context) files from the workspace root that are injected into the system prompt.
// Each file is capped at `bootstrapMaxChars`; the head and tail are kept and the cut is recorded.
import type fs from 'node:fs'
import path from 'node:path'
import { looksBinary } from '../tools/result'
import { readTextFileIn } from './read-cache'

export const BOOTSTRAP_FILE_NAMES = ['AGENTS.md', 'SOUL.md', 'TOOLS.md', 'IDENTITY.md', 'USER.md', 'MEMORY.md'] as const

export interface BootstrapFile {
  name: string
  /** absolute path ('' for files added by a hook without a path) */
  path: string
  /** content as injected (after truncation) */
  content: string
  /** length of the original content */
  originalChars: number
  truncated: boolean
  missing: boolean
}

/** `agent:bootstrap` internal hook: may add, remove or edit entries of `files` in place. */
export interface BootstrapHookEvent {
  workspaceDir: string
  sessionKey: string
  sessionId: string
  agentId: string
  files: BootstrapFile[]
}
export type BootstrapHook = (event: BootstrapHookEvent) => void | Promise<void>

/** Keeps ~75 % head and ~25 % tail around a marker, so both the intro and the latest notes survive. */
export function truncateMiddle(text: string, maxChars: number): { text: string; truncated: boolean } {
  if (text.length <= maxChars) return { text, truncated: false }
  const marker = `\n\n[… ${text.length - maxChars} characters truncated …]\n\n`
  const budget = Math.max(0, maxChars - marker.length)
  const head = Math.ceil(budget * 0.75)
  const tail = budget - head
  return { text: text.slice(0, head) + marker + (tail > 0 ? text.slice(text.length - tail) : ''), truncated: true }
}

export async function loadBootstrapFiles(workspaceDir: string, maxChars: number): Promise<BootstrapFile[]> {
  return loadBootstrapFilesSync(workspaceDir, maxChars)
}

/**
 * The bootstrap files (fresh objects each call: the agent:bootstrap hook may edit them). With `dirStat`
 * (a stat of the workspace taken just before), files known to be absent cost no syscall.
 */
export function loadBootstrapFilesSync(workspaceDir: string, maxChars: number, dirStat?: fs.Stats, warnings?: string[]): BootstrapFile[] {
  return BOOTSTRAP_FILE_NAMES.map((name) => {
    const file = path.join(workspaceDir, name)
    // a link out of the workspace is left out, as the read tool refuses it (read-cache.ts realInside)
    const raw = readTextFileIn(workspaceDir, dirStat, name, workspaceDir, () =>
      warnings?.push(`${name}: a symlink leading outside the workspace; left out of the prompt`),
    )
    if (raw === undefined) return { name, path: file, content: '', originalChars: 0, truncated: false, missing: true }
    // a binary file under a context-file name (an image saved as TOOLS.md) would put mojibake into every prompt
    if (looksBinary(raw)) {
      warnings?.push(`${name}: looks like a binary file (NUL bytes); left out of the prompt`)
      return { name, path: file, content: '', originalChars: raw.length, truncated: false, missing: true }
    }
    const { text, truncated } = truncateMiddle(raw, maxChars)
    return { name, path: file, content: text, originalChars: raw.length, truncated, missing: false }
  })
}

/** Re-applies the cap to hook-supplied files (a hook may add large content). */
export function capBootstrapFiles(files: BootstrapFile[], maxChars: number): BootstrapFile[] {
  return files.map((f) => {
    if (f.content.length <= maxChars) return f
    const { text } = truncateMiddle(f.content, maxChars)
    return { ...f, content: text, truncated: true, originalChars: Math.max(f.originalChars, f.content.length) }
  })
}

export function formatBootstrapSection(files: BootstrapFile[]): string {
  const present = files.filter((f) => !f.missing && f.content.trim() !== '')
  if (present.length === 0) return ''
  const parts = present.map((f) => `### ${f.name}${f.truncated ? ' (truncated)' : ''}\n${f.content.trimEnd()}`)
  return ['## Workspace context', 'These files from the workspace describe the project, the user and you:', ...parts].join('\n\n')
}
