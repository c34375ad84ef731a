// Reading what the runtime left on disk: sessions.json rows, transcript JSONL files (snapshots for the
// crash checks) and transcript consistency (every tool call has a result).
import fs from 'node:fs'
import path from 'node:path'

export const sessionsDirOf = (stateDir: string, agentId = 'main') => path.join(stateDir, 'agents', agentId, 'sessions')

export function readSessions(stateDir: string, agentId = 'main'): Record<string, any> {
  try {
    return JSON.parse(fs.readFileSync(path.join(sessionsDirOf(stateDir, agentId), 'sessions.json'), 'utf8'))
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {}
    throw err
  }
}

/** Every `*.jsonl` transcript (current ones; archived files have a suffix after .jsonl) → its bytes. */
export function snapshotTranscripts(stateDir: string, agentId = 'main'): Map<string, Buffer> {
  const dir = sessionsDirOf(stateDir, agentId)
  const out = new Map<string, Buffer>()
  let names: string[]
  try {
    names = fs.readdirSync(dir)
  } catch {
    return out
  }
  for (const n of names) {
    if (!n.endsWith('.jsonl') || n.startsWith('accepted.')) continue
    try {
      out.set(path.join(dir, n), fs.readFileSync(path.join(dir, n)))
    } catch {
      // removed meanwhile
    }
  }
  return out
}

export interface ParsedTranscript {
  entries: any[]
  /** lines that did not parse, with their index */
  bad: Array<{ index: number; line: string }>
  lines: string[]
}

export function parseJsonl(text: string): ParsedTranscript {
  const lines = text.split('\n')
  if (lines.at(-1) === '') lines.pop()
  const entries: any[] = []
  const bad: ParsedTranscript['bad'] = []
  lines.forEach((line, index) => {
    try {
      entries.push(JSON.parse(line))
    } catch {
      bad.push({ index, line: line.slice(0, 200) })
    }
  })
  return { entries, bad, lines }
}

export function readTranscript(file: string): ParsedTranscript {
  return parseJsonl(fs.readFileSync(file, 'utf8'))
}

export function transcriptOf(stateDir: string, sessionKey: string, agentId = 'main'): string | undefined {
  const row = readSessions(stateDir, agentId)[sessionKey]
  return row ? path.join(sessionsDirOf(stateDir, agentId), `${row.sessionId}.jsonl`) : undefined
}

const textOf = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content.map((c: { type?: string; text?: string }) => (c?.type === 'text' ? (c.text ?? '') : '')).join('')
      : ''

export const userTexts = (entries: any[]): string[] =>
  entries.filter((e) => e?.type === 'message' && e.message?.role === 'user').map((e) => textOf(e.message.content))

export const assistantTexts = (entries: any[]): string[] =>
  entries.filter((e) => e?.type === 'message' && e.message?.role === 'assistant').map((e) => textOf(e.message.content))

/** Tool call ids in assistant messages that have no toolResult entry. */
export function orphanToolCalls(entries: any[]): string[] {
  const calls: string[] = []
  const results = new Set<string>()
  for (const e of entries) {
    if (e?.type !== 'message') continue
    const m = e.message
    if (m?.role === 'assistant' && Array.isArray(m.content)) {
      for (const c of m.content) if (c?.type === 'toolCall' && typeof c.id === 'string') calls.push(c.id)
    } else if (m?.role === 'toolResult' && typeof m.toolCallId === 'string') results.add(m.toolCallId)
  }
  return calls.filter((id) => !results.has(id))
}
