// One-line human summaries of tool calls (UI rows, verbose summaries, fallback error replies).
export const META_MAX_CHARS = 120

const MESSAGING_TOOLS = new Set(['message'])

export function isMessagingTool(name: string): boolean {
  return MESSAGING_TOOLS.has(name)
}

function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ').trim()
}

function clip(s: string, max = META_MAX_CHARS): string {
  const chars = [...s]
  return chars.length > max ? chars.slice(0, max - 1).join('') + '…' : s
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v : undefined)

function fallbackMeta(a: Record<string, unknown>): string {
  for (const k of ['path', 'url', 'command', 'pattern', 'query', 'text', 'name', 'id']) {
    const v = str(a[k])
    if (v) return v
  }
  try {
    const json = JSON.stringify(a)
    return json === '{}' ? '' : json
  } catch {
    return ''
  }
}

export function toolMeta(name: string, args: unknown): string {
  const a = args && typeof args === 'object' ? (args as Record<string, unknown>) : {}
  let meta: string
  switch (name) {
    case 'read': {
      const p = str(a.path) ?? ''
      const range = a.offset !== undefined || a.limit !== undefined ? ` (lines ${a.offset ?? 1}${a.limit !== undefined ? `+${a.limit}` : '…'})` : ''
      meta = p + range
      break
    }
    case 'write':
    case 'edit':
      meta = str(a.path) ?? ''
      break
    case 'ls':
      meta = str(a.path) ?? '.'
      break
    case 'glob':
      meta = `${str(a.pattern) ?? ''}${str(a.path) ? ` in ${a.path}` : ''}`
      break
    case 'grep':
      meta = `/${str(a.pattern) ?? ''}/${a.ignoreCase ? 'i' : ''}${str(a.glob) ? ` ${a.glob}` : ''}${str(a.path) ? ` in ${a.path}` : ''}`
      break
    case 'exec':
      meta = str(a.command) ?? ''
      break
    case 'web_fetch':
      meta = str(a.url) ?? ''
      break
    case 'message':
      meta = str(a.text) ? `"${oneLine(a.text as string)}"` : ''
      break
    default:
      meta = fallbackMeta(a)
  }
  return clip(oneLine(meta))
}
