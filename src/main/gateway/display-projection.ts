// The copy of a transcript message OpenClaw v4 (2026.9.6) sends as `session.message`: its display projection
// (`projectChatDisplayMessage`, src/gateway/chat-display-projection*.ts), which `projectSessionMessagePayload`
// applies before broadcasting. April (v3) sends the stored message, so only v4 connections get this copy.
// What it does to one message (the parts that apply to Loopdesk's transcripts):
// - text capped at 8,000 characters per field — text blocks, string content, `text`, `thinking`, tool-call
//   argument strings — with "\n...(truncated)..." after the cut; a tool result's text is cut without the marker;
//   a cut marks `__openclaw: {truncated: true, reason: "display-cap"}`;
// - an assistant's trailing silent token (NO_REPLY, ANNOUNCE_SKIP, REPLY_SKIP) stripped from its text, and
//   text that is only such a token emptied (unless the message has a displayable non-text block);
// - `details` dropped, but a tool result keeps its `changed` / `created` flags and its `diff` (capped);
// - `usage` / `cost` dropped on non-assistant messages, reduced to known numeric fields on assistant ones;
//   `providerReplay`, thinking signatures and `openclawReasoningReplay` dropped;
// - media blocks (image/audio/video) and their `source` record lose their inline data and local paths
//   (`omitted: true`, `bytes` = the decoded size); only an http(s) url (without credentials, query, hash) or a
//   gateway media path stays; an `attachment` block's record likewise;
// - an assistant message with tool calls and visible text keeps plain text blocks (commentary-phase text
//   dropped); one whose text blocks carry phases keeps only the final answer's.
// - a failed assistant turn (stopReason "error") loses its raw error fields; one that showed nothing reads
//   OpenClaw's failure sentence instead (error-copy.ts), one that did keeps its text (reasoning dropped) with
//   that sentence before it when the failure could be classified.
// Left as stored: envelopes and OpenClaw-only metadata Loopdesk never writes.
import { assistantFailureCopy, recordedFailureCopy, STREAM_ERROR_FALLBACK_TEXT } from './error-copy'

export const DISPLAY_TEXT_MAX_CHARS = 8000
const TRUNCATED_MARKER = '\n...(truncated)...'

const TEXT = new Set(['text', 'input_text', 'output_text'])
const REASONING = new Set(['thinking', 'reasoning', 'redacted_thinking'])
const TOOL_CALL = new Set(['toolcall', 'tool_call', 'tooluse', 'tool_use', 'functioncall', 'function_call'])
const TOOL_RESULT = new Set(['toolresult', 'tool_result', 'function_call_output'])
const MEDIA = /^(?:image|audio|video)$/u
const CONTROL_TOKENS = ['NO_REPLY', 'ANNOUNCE_SKIP', 'REPLY_SKIP']
const USAGE_FIELDS = ['input', 'output', 'total', 'totalTokens', 'inputTokens', 'outputTokens', 'promptTokens', 'completionTokens', 'cacheRead', 'cacheWrite',
  'cache_read_input_tokens', 'cache_creation_input_tokens', 'input_tokens', 'output_tokens', 'prompt_tokens', 'completion_tokens', 'total_tokens']
const COST_FIELDS = ['input', 'output', 'cacheRead', 'cacheWrite', 'total']
const MEDIA_PRIVATE = ['data', 'blob', 'path', 'file', 'filePath', 'localPath']
const MEDIA_REFERENCES = ['url', 'openUrl', 'image_url', 'audio_url', 'video_url']

type Rec = Record<string, unknown>
const isRec = (v: unknown): v is Rec => !!v && typeof v === 'object' && !Array.isArray(v)
const lower = (v: unknown) => (typeof v === 'string' ? v.trim().toLowerCase() : '')
const isToolBlock = (type: unknown) => TOOL_CALL.has(lower(type)) || TOOL_RESULT.has(lower(type))

type Cut = { text: string; cut: boolean }
function cap(text: string, exact = false): Cut {
  if (text.length <= DISPLAY_TEXT_MAX_CHARS) return { text, cut: false }
  let end = DISPLAY_TEXT_MAX_CHARS
  // never split a surrogate pair
  const c = text.charCodeAt(end - 1)
  if (c >= 0xd800 && c <= 0xdbff) end -= 1
  const prefix = text.slice(0, end)
  return { text: exact ? prefix : prefix + TRUNCATED_MARKER, cut: true }
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
const trailing = new Map(CONTROL_TOKENS.map((t) => [t, new RegExp(`(?:^|\\s+|\\*+)${escape(t)}(?:\\s+${escape(t)})*\\s*$`, 'i')]))
const exactly = new Map(CONTROL_TOKENS.map((t) => [t, new RegExp(`^\\s*${escape(t)}(?:\\s+${escape(t)})*\\s*$`, 'i')]))
const stripEdgePunctuation = (s: string) => s.replace(/^\p{P}+/u, '').replace(/\p{P}+$/u, '')

/** the whole text is a control token (repeated; edge punctuation aside) */
export function isControlOnly(text: string): boolean {
  const t = text.trim()
  return CONTROL_TOKENS.some((tok) => exactly.get(tok)!.test(t) || exactly.get(tok)!.test(stripEdgePunctuation(t)))
}

/** an assistant's text with a control token at its end taken off (and all of it when it is only that) */
export function stripControlToken(text: string): string {
  if (isControlOnly(text)) return ''
  let out = text
  for (const tok of CONTROL_TOKENS) {
    const m = trailing.get(tok)!.exec(out)
    if (m) out = out.slice(0, m.index).trim()
  }
  return out
}

function numeric(raw: unknown, fields: string[], withCost: boolean): Rec | undefined {
  if (!isRec(raw)) return undefined
  const out: Rec = {}
  for (const k of fields) if (typeof raw[k] === 'number' && Number.isFinite(raw[k])) out[k] = raw[k]
  if (withCost && isRec(raw.cost)) {
    const cost = numeric(raw.cost, COST_FIELDS, false)
    if (cost) out.cost = cost
  }
  return Object.keys(out).length > 0 ? out : undefined
}

function toolResultDetails(details: unknown): { details?: Rec; cut: boolean } {
  if (!isRec(details)) return { cut: false }
  const out: Rec = {}
  for (const k of ['changed', 'created']) if (typeof details[k] === 'boolean') out[k] = details[k]
  let cut = false
  if (typeof details.diff === 'string' && details.diff.trim()) {
    const d = cap(details.diff)
    out.diff = d.text
    cut = d.cut
  }
  return { details: Object.keys(out).length > 0 ? out : undefined, cut }
}

function mediaReference(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined
  const ref = value.trim()
  if (/^\/(?:api\/chat\/media\/outgoing|media|__openclaw__)\//u.test(ref)) return ref.split(/[?#]/u, 1)[0]
  try {
    const url = new URL(ref)
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined
    url.username = url.password = url.search = url.hash = ''
    return url.toString()
  } catch {
    return undefined
  }
}

/** bytes a base64 string decodes to */
function decodedBytes(b64: string): number {
  const s = b64.replace(/\s+/g, '')
  const pad = s.endsWith('==') ? 2 : s.endsWith('=') ? 1 : 0
  return Math.max(0, Math.floor((s.length * 3) / 4) - pad)
}

/**
 * A media block without its inline data or local paths; true when it was one. As OpenClaw's
 * `projectChatHistoryMediaBlock`: the block and its `source` record (Anthropic's `{type: "base64" | "url" |
 * "file", …}`, copied) lose `data`, `blob`, `path`, `file`, `filePath`, `localPath`; their references (`url`,
 * `openUrl`, `image_url`, …, and a `source` string on a block without a record) stay only as an http(s) url
 * without credentials, query or hash, or a gateway media path. `omitted` marks what lost something — the block
 * (an image's source loss marks the block only, an audio's the source only) — and `bytes` the decoded size of
 * the first inline payload found (an audio source's on the source when the block had none of its own).
 */
function projectMedia(block: Rec): boolean {
  if (typeof block.type !== 'string' || !MEDIA.test(block.type)) return false
  const topPayload = typeof block.data === 'string' || typeof block.blob === 'string'
  const source = isRec(block.source) ? { ...block.source } : undefined
  if (source) block.source = source
  let payload: string | undefined
  for (const record of source ? [block, source] : [block]) {
    let omitted = false
    const inline = typeof record.data === 'string' ? record.data : record.blob
    if (payload === undefined && typeof inline === 'string') payload = inline
    for (const k of MEDIA_PRIVATE) {
      if (!Object.hasOwn(record, k)) continue
      delete record[k]
      omitted = true
    }
    const refs = record === block && !source ? [...MEDIA_REFERENCES, 'source'] : MEDIA_REFERENCES
    for (const k of refs) {
      if (!Object.hasOwn(record, k)) continue
      const ref = mediaReference(record[k])
      if (ref === undefined) {
        delete record[k]
        omitted = true
      } else record[k] = ref
    }
    if (omitted) {
      if (record === block || block.type !== 'image') record.omitted = true
      if (record === block || block.type !== 'audio') block.omitted = true
    }
  }
  if (payload !== undefined) (block.type === 'audio' && !topPayload && source ? source : block).bytes = decodedBytes(payload)
  return true
}

/** an `attachment` block's record without inline data or local paths, its url as a media reference */
function projectAttachment(block: Rec): void {
  if (block.type !== 'attachment' || !isRec(block.attachment)) return
  const a: Rec = { ...block.attachment }
  for (const k of MEDIA_PRIVATE) delete a[k]
  const url = mediaReference(a.url)
  if (url === undefined) delete a.url
  else a.url = url
  block.attachment = a
}

function projectBlock(block: unknown, exactTool: boolean): { block: unknown; cut: boolean } {
  if (!isRec(block)) return { block, cut: false }
  const b: Rec = { ...block }
  let cut = false
  const exact = exactTool || isToolBlock(b.type)
  if (TOOL_RESULT.has(lower(b.type)) && 'details' in b) {
    const d = toolResultDetails(b.details)
    if (d.details) b.details = d.details
    else delete b.details
    cut ||= d.cut
  }
  if (exact && Array.isArray(b.content)) {
    const joined = b.content.flatMap((i) => (isRec(i) && typeof i.text === 'string' ? [i.text] : [])).join('\n')
    if (b.text === joined) delete b.text
    const inner = b.content.map((i) => projectBlock(i, true))
    b.content = inner.map((i) => i.block)
    cut ||= inner.some((i) => i.cut)
  }
  for (const k of ['text', 'content']) {
    if (typeof b[k] !== 'string') continue
    const r = cap(b[k] as string, exact)
    b[k] = r.text
    cut ||= r.cut
  }
  for (const k of ['partialJson', 'arguments', 'thinking']) {
    if (typeof b[k] !== 'string' || (exact && k !== 'thinking')) continue
    const r = cap(b[k] as string)
    b[k] = r.text
    cut ||= r.cut
  }
  delete b.thinkingSignature
  delete b.openclawReasoningReplay
  projectMedia(b)
  projectAttachment(b)
  return { block: b, cut }
}

function textPhase(block: Rec): string | undefined {
  const sig = block.textSignature
  if (typeof sig !== 'string' || !sig.startsWith('{')) return undefined
  try {
    const parsed = JSON.parse(sig) as Rec
    return parsed.v === 1 && (parsed.phase === 'commentary' || parsed.phase === 'final_answer') ? parsed.phase : undefined
  } catch {
    return undefined
  }
}

const displayableNonText = (content: unknown[]) => content.some((b) => isRec(b) && !TEXT.has(b.type as string) && !REASONING.has(b.type as string))

/** tool calls next to visible text: plain text blocks (capped), commentary dropped; undefined when no such text */
function mixedToolContent(content: unknown[]): unknown[] | undefined {
  if (!content.some((b) => isRec(b) && isToolBlock(b.type))) return undefined
  let visible = false
  const out: unknown[] = []
  for (const b of content) {
    if (!isRec(b)) continue
    if (!TEXT.has(b.type as string)) {
      out.push(b)
      continue
    }
    if (textPhase(b) === 'commentary' || typeof b.text !== 'string' || !b.text.trim()) continue
    out.push({ type: 'text', text: cap(b.text).text })
    visible = true
  }
  return visible ? out : undefined
}

const ERROR_FIELDS = ['diagnostics', 'errorBody', 'errorCode', 'errorMessage', 'errorType']

/** text a reader would see (a control token, pi's failure placeholder or blank is none) */
function visibleReplyText(m: Rec): boolean {
  const texts = Array.isArray(m.content) ? m.content.flatMap((b) => (isRec(b) && TEXT.has(b.type as string) ? [b.text] : [])) : [m.content]
  return [...texts, m.text].some((t) => {
    if (typeof t !== 'string') return false
    const v = stripControlToken(t).trim()
    return v.length > 0 && v !== STREAM_ERROR_FALLBACK_TEXT
  })
}

const shows = (m: Rec) => m.display !== false && ((Array.isArray(m.content) && displayableNonText(m.content)) || visibleReplyText(m))

/**
 * A failed turn that showed nothing and belongs to a run: OpenClaw 2026.9 holds it back as possibly recovered
 * by a later reply of that run, and a v4 history delta that meets one answers `reset` instead
 * (`isPendingAssistantError`, chat-history-delta.ts).
 */
export function pendingAssistantError(message: unknown): boolean {
  if (!isRec(message) || message.role !== 'assistant' || message.display === false || message.stopReason !== 'error') return false
  const meta = isRec(message.__openclaw) ? message.__openclaw : {}
  return pureFallback(message) || (typeof meta.runId === 'string' && meta.runId.trim() !== '' && !shows(message))
}

/** nothing but pi's placeholder text for a stream that failed before any content */
function pureFallback(m: Rec): boolean {
  const c = m.content
  const text = typeof m.text === 'string' ? m.text : typeof c === 'string' ? c
    : Array.isArray(c) && c.length > 0 && c.every((b) => isRec(b) && TEXT.has(b.type as string)) ? c.map((b) => ((b as Rec).text as string) ?? '').join('\n') : undefined
  return text !== undefined && text.trim() === STREAM_ERROR_FALLBACK_TEXT
}

/** a chat.history row of a failed turn as OpenClaw v4's pages send it (else the row itself) */
export function projectFailedTurn<T>(row: T): T {
  return isRec(row) && row.role === 'assistant' && row.stopReason === 'error' ? (projectErrorTurn(row) as T) : row
}

/** OpenClaw's copy of a failed assistant turn (`projectEmptyAssistantErrorMessages`): no raw provider error */
function projectErrorTurn(message: Rec): Rec {
  const m: Rec = { ...message }
  for (const k of ERROR_FIELDS) delete m[k]
  const copy = assistantFailureCopy(message)
  if (!shows(message)) {
    delete m.phase
    delete m.text
    m.content = [{ type: 'text', text: copy }]
    return m
  }
  let first = true
  const content: unknown[] = []
  const blocks = Array.isArray(m.content) ? m.content : typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : []
  for (const b of blocks) {
    if (isRec(b) && REASONING.has(b.type as string)) continue
    if (first && isRec(b) && TEXT.has(b.type as string)) {
      first = false
      if (typeof b.text === 'string' && b.text.startsWith(STREAM_ERROR_FALLBACK_TEXT)) {
        const rest = b.text.slice(STREAM_ERROR_FALLBACK_TEXT.length)
        if (rest) content.push({ ...b, text: rest })
        continue
      }
    }
    content.push(b)
  }
  if (typeof m.text === 'string' && m.text.startsWith(STREAM_ERROR_FALLBACK_TEXT)) m.text = m.text.slice(STREAM_ERROR_FALLBACK_TEXT.length)
  // the sentence goes first only when the failure was classified, not for the generic one
  if (recordedFailureCopy(message) !== undefined) {
    const prepend = (text: string) => {
      if (!text || content.some((b) => isRec(b) && TEXT.has(b.type as string) && typeof b.text === 'string' && b.text.includes(text))) return
      const i = content.findIndex((b) => isRec(b) && TEXT.has(b.type as string) && typeof b.text === 'string')
      if (i >= 0) content[i] = { ...(content[i] as Rec), text: [text, (content[i] as Rec).text].filter(Boolean).join('\n\n') }
      else content.push({ type: 'text', text })
    }
    if (typeof m.text === 'string') prepend(m.text)
    prepend(copy)
    delete m.text
  }
  if (typeof m.content === 'string' && recordedFailureCopy(message) === undefined) {
    if (m.content.startsWith(STREAM_ERROR_FALLBACK_TEXT)) m.content = m.content.slice(STREAM_ERROR_FALLBACK_TEXT.length)
  } else if (m.content !== undefined || content.length > 0) m.content = content
  return m
}

/** OpenClaw v4's display copy of one transcript message (the stored message is not changed) */
export function projectDisplayMessage<T>(message: T): T {
  if (!isRec(message)) return message
  const m: Rec = message.role === 'assistant' && message.stopReason === 'error' ? projectErrorTurn(message) : { ...message }
  let cut = false
  delete m.providerReplay
  const role = lower(m.role)
  const assistant = m.role === 'assistant'
  const exactTool = ['toolresult', 'tool_result', 'tool', 'function'].includes(role) || typeof m.toolName === 'string' || typeof m.toolCallId === 'string'
  if ('details' in m) {
    const d = exactTool ? toolResultDetails(m.details) : { cut: false }
    if (d.details) m.details = d.details
    else delete m.details
    cut ||= d.cut
  }
  if (assistant) {
    for (const [k, fields] of [['usage', USAGE_FIELDS], ['cost', COST_FIELDS]] as const) {
      if (!(k in m)) continue
      const v = numeric(m[k], fields, k === 'usage')
      if (v) m[k] = v
      else delete m[k]
    }
  } else {
    delete m.usage
    delete m.cost
  }
  // a control token is kept as it is when the message shows something else and its text is only tokens
  const texts = Array.isArray(m.content) ? m.content.filter((b): b is Rec => isRec(b) && TEXT.has(b.type as string) && typeof b.text === 'string').map((b) => b.text as string) : []
  const keepTokens = Array.isArray(m.content) && displayableNonText(m.content) && texts.length > 0 && texts.every(isControlOnly)
  const strip = assistant && !keepTokens ? stripControlToken : (s: string) => s
  if (typeof m.content === 'string') {
    const r = cap(strip(m.content), exactTool)
    m.content = r.text
    cut ||= r.cut
  } else if (Array.isArray(m.content)) {
    m.content = m.content.map((raw) => {
      // the token comes off before the cap
      const stripped = assistant && isRec(raw) && TEXT.has(raw.type as string) && typeof raw.text === 'string' ? { ...raw, text: strip(raw.text) } : raw
      const r = projectBlock(stripped, exactTool)
      cut ||= r.cut
      return r.block
    })
    if (assistant) {
      const mixed = mixedToolContent(m.content as unknown[])
      if (mixed) {
        m.content = mixed
        if (m.phase === 'commentary') delete m.phase
      } else if ((m.content as unknown[]).some((b) => isRec(b) && TEXT.has(b.type as string) && textPhase(b))) {
        m.content = (m.content as unknown[]).filter((b) => !isRec(b) || !TEXT.has(b.type as string) || textPhase(b) === 'final_answer')
      }
    }
  }
  if (typeof m.text === 'string') {
    const r = cap(strip(m.text), exactTool)
    m.text = r.text
    cut ||= r.cut
  }
  if (cut) {
    const meta = isRec(m.__openclaw) ? m.__openclaw : {}
    m.__openclaw = { ...meta, truncated: true, reason: typeof meta.reason === 'string' ? meta.reason : 'display-cap' }
  }
  return m as T
}
