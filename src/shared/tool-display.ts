// How tool arguments and results read to a person: a one-line summary of the arguments and the text of a
// result. Shared by the window's tool cards and the CLI's tool lines.

import { codePointLabel, HIDDEN_CHARS } from './hidden-chars'

/** Characters of JSON/result a tool card shows before "Show all". */
export const PREVIEW_CHARS = 2_000
/** Hard cap even after "Show all" (keeps one card from freezing the window). */
export const MAX_SHOWN_CHARS = 200_000

const PREFERRED_KEYS = ['command', 'cmd', 'path', 'file', 'file_path', 'url', 'pattern', 'query', 'glob', 'text']

/**
 * The text with each invisible or direction-changing character (`hidden-chars.ts`: bidi controls, which reorder
 * what is displayed — "Trojan Source" —, zero-width and other invisible format characters, tag characters) shown
 * as ⟨U+XXXX⟩, so what a person approves reads as what runs (the CLI's approval question; the window marks them as
 * elements, components/HiddenChars.tsx). `found` says whether there were any.
 */
export function revealInvisible(s: string): { text: string; found: boolean } {
  let found = false
  const text = s.replace(HIDDEN_CHARS, (c) => {
    found = true
    return `⟨${codePointLabel(c)}⟩`
  })
  return { text, found }
}

/** Whitespace runs folded to one space, cut to `max` characters with an ellipsis. */
export function oneLine(s: string, max = 120): string {
  const line = s.replace(/\s+/g, ' ').trim()
  return line.length > max ? `${line.slice(0, max - 1)}…` : line
}

/** A one-line summary of tool arguments, e.g. `ls -la` for exec or the path for read. */
export function argsSummary(args: unknown): string {
  if (args === undefined || args === null) return ''
  if (typeof args === 'string') return oneLine(args)
  if (typeof args !== 'object') return oneLine(String(args))
  const o = args as Record<string, unknown>
  // grep/glob: the pattern is what the call is about; their path (often ".") only says where it looked
  if (typeof o.pattern === 'string' && o.pattern && typeof o.command !== 'string') {
    const where = typeof o.path === 'string' && o.path && o.path !== '.' ? ` in ${o.path}` : ''
    return oneLine(o.pattern + where)
  }
  for (const k of PREFERRED_KEYS) if (typeof o[k] === 'string' && o[k]) return oneLine(o[k] as string)
  const parts: string[] = []
  for (const [k, v] of Object.entries(o)) {
    if (v === undefined) continue
    const val = typeof v === 'string' ? v : JSON.stringify(v)
    parts.push(`${k}=${val}`)
    if (parts.join(' ').length > 120) break
  }
  return oneLine(parts.join(' '))
}

export function prettyJson(v: unknown): string {
  if (v === undefined) return ''
  if (typeof v === 'string') return v
  try {
    return JSON.stringify(v, null, 2) ?? String(v)
  } catch {
    return String(v)
  }
}

/** Text of a tool result: pi results are `{ content: [{type:'text', text}], details }`. */
export function resultText(v: unknown): string {
  if (v === undefined || v === null) return ''
  if (typeof v === 'string') return v
  if (typeof v === 'object') {
    const content = (v as { content?: unknown }).content
    if (Array.isArray(content)) {
      const texts = content.map((c) => {
        if (c && typeof c === 'object') {
          const part = c as { type?: string; text?: string }
          if (part.type === 'text' && typeof part.text === 'string') return part.text
          if (part.type === 'image') return '[image]'
        }
        return ''
      })
      if (texts.some(Boolean)) return texts.join('\n')
    }
  }
  return prettyJson(v)
}

export function truncate(s: string, max: number): { text: string; truncated: boolean } {
  return s.length > max ? { text: s.slice(0, max), truncated: true } : { text: s, truncated: false }
}

/** Why a failed call never ran, read from the runtime's result text (tools/exec.ts, pi's abort). */
export type NotRun = 'denied' | 'approval-timeout' | 'stopped'

export function notRunFromText(text: string): NotRun | undefined {
  const t = text.trimStart()
  if (/^exec denied by user\b/.test(t)) return 'denied'
  if (/^exec approval timed out\b/.test(t)) return 'approval-timeout'
  // ToolAbortedError ("<tool> aborted") and pi's own "Operation aborted": the run was stopped
  if (/^(Operation aborted|[\w.-]+ aborted)\b/.test(t)) return 'stopped'
  return undefined
}

/** The first line of a text that shows something, trimmed and cut to `max` (a failed call's reason, collapsed). */
export function firstLine(text: string, max = 160): string {
  const line = text.split(/\r?\n|\r/).find((l) => l.trim()) ?? ''
  return oneLine(line, max)
}

/** The last line of a text that shows something, trimmed and cut to `max` (a running command's output so far). */
export function lastLine(text: string, max = 160): string {
  // only the tail is looked at: output so far can be large and this runs on every update
  const lines = text.slice(-4 * max - 2000).split(/\r?\n|\r/)
  for (let i = lines.length - 1; i >= 0; i--) if (lines[i].trim()) return oneLine(lines[i], max)
  return ''
}
