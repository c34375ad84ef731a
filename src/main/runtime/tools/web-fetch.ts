// `web_fetch`: GET an http(s) URL and return readable text. Redirects are followed by hand (≤5) so each
// hop's scheme is re-checked; the body is streamed and cut at the byte cap; timeout and abort are honoured.
import Type from 'typebox'
import { extractTitle, htmlToText } from './html-text'
import { formatBytes, looksBinary, textResult, ToolAbortedError, throwIfAborted } from './result'
import { defineTool } from './spec'

export const WEB_FETCH_MAX_REDIRECTS = 5
export const WEB_FETCH_DEFAULT_MAX_CHARS = 50_000
export const WEB_FETCH_MAX_CHARS = 500_000

const params = Type.Object({
  url: Type.String({ description: 'http:// or https:// URL' }),
  maxChars: Type.Optional(
    Type.Integer({ minimum: 100, maximum: WEB_FETCH_MAX_CHARS, description: `Maximum characters of text to return (default ${WEB_FETCH_DEFAULT_MAX_CHARS})` }),
  ),
})

function checkScheme(u: URL, what: string): void {
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new Error(`${what} ${u.protocol} URL refused: web_fetch only allows http:// and https://`)
  }
}

function parseUrl(raw: string): URL {
  try {
    return new URL(raw.trim())
  } catch {
    throw new Error(`Invalid URL "${raw}": give an absolute http:// or https:// URL`)
  }
}

async function readCapped(res: Response, maxBytes: number): Promise<{ bytes: Uint8Array; truncated: boolean }> {
  if (!res.body) return { bytes: new Uint8Array(0), truncated: false }
  const reader = res.body.getReader()
  const chunks: Uint8Array[] = []
  let total = 0
  let truncated = false
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    if (total + value.length > maxBytes) {
      chunks.push(value.subarray(0, maxBytes - total))
      total = maxBytes
      truncated = true
      await reader.cancel().catch(() => {})
      break
    }
    chunks.push(value)
    total += value.length
  }
  const bytes = new Uint8Array(total)
  let off = 0
  for (const c of chunks) {
    bytes.set(c, off)
    off += c.length
  }
  return { bytes, truncated }
}

function charsetOf(contentType: string, head: Uint8Array): string {
  const m = /charset\s*=\s*"?([\w.:-]+)/i.exec(contentType)
  if (m) return m[1]
  const meta = /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(new TextDecoder('latin1').decode(head.subarray(0, 2048)))
  return meta ? meta[1] : 'utf-8'
}

function decode(bytes: Uint8Array, charset: string): string {
  try {
    return new TextDecoder(charset).decode(bytes)
  } catch {
    return new TextDecoder('utf-8').decode(bytes)
  }
}

type Kind = 'html' | 'json' | 'text' | 'binary'

function kindOf(contentType: string, bytes: Uint8Array): Kind {
  const ct = contentType.split(';')[0].trim().toLowerCase()
  if (ct === 'text/html' || ct === 'application/xhtml+xml') return 'html'
  if (ct === 'application/json' || ct.endsWith('+json')) return 'json'
  if (
    ct.startsWith('text/') ||
    ct.endsWith('+xml') ||
    ['application/xml', 'application/javascript', 'application/x-javascript', 'application/ecmascript', 'application/x-yaml', 'application/yaml', 'application/toml'].includes(ct)
  ) {
    return 'text'
  }
  if (!ct || ct === 'application/octet-stream') {
    if (looksBinary(bytes)) return 'binary'
    const head = new TextDecoder('latin1').decode(bytes.subarray(0, 512)).trimStart().toLowerCase()
    return head.startsWith('<!doctype html') || head.startsWith('<html') ? 'html' : 'text'
  }
  return 'binary'
}

export const webFetchTool = defineTool(
  {
    name: 'web_fetch',
    label: 'Fetch URL',
    description:
      'Fetch an http(s) URL (GET) and return its readable text: HTML is converted to plain text, JSON and text are returned as is. ' +
      `Follows up to ${WEB_FETCH_MAX_REDIRECTS} redirects. Large pages are truncated. Binary content is refused.`,
    parameters: params,
  },
  async (ctx, p, signal) => {
    throwIfAborted(signal, 'web_fetch')
    let url = parseUrl(p.url)
    checkScheme(url, 'Non-http')
    const maxChars = p.maxChars ?? WEB_FETCH_DEFAULT_MAX_CHARS
    const { maxBytes, timeoutMs } = ctx.webFetch

    const timeout = new AbortController()
    const timer = setTimeout(() => timeout.abort(), timeoutMs)
    const combined = signal ? AbortSignal.any([signal, timeout.signal]) : timeout.signal
    const fail = (err: unknown): never => {
      if (signal?.aborted) throw new ToolAbortedError('web_fetch')
      if (timeout.signal.aborted) throw new Error(`web_fetch timed out after ${timeoutMs} ms fetching ${url.href}`)
      throw err instanceof Error && err.message.startsWith('fetch failed')
        ? new Error(`web_fetch could not reach ${url.href}: ${(err as Error & { cause?: Error }).cause?.message ?? err.message}`)
        : err
    }

    try {
      let res: Response | undefined
      for (let hop = 0; ; hop++) {
        try {
          res = await fetch(url, {
            method: 'GET',
            redirect: 'manual',
            signal: combined,
            headers: {
              'user-agent': 'Loopdesk/0.1 (web_fetch)',
              accept: 'text/html,application/xhtml+xml,application/json;q=0.9,text/plain;q=0.8,*/*;q=0.5',
            },
          })
        } catch (err) {
          fail(err)
        }
        const r = res!
        const loc = r.headers.get('location')
        if (r.status >= 300 && r.status < 400 && loc) {
          await r.body?.cancel().catch(() => {})
          if (hop >= WEB_FETCH_MAX_REDIRECTS) throw new Error(`Too many redirects (more than ${WEB_FETCH_MAX_REDIRECTS}) starting at ${p.url}`)
          const next = parseUrl(new URL(loc, url).href)
          checkScheme(next, 'Redirect to')
          url = next
          continue
        }
        break
      }
      const r = res!
      let body: { bytes: Uint8Array; truncated: boolean }
      try {
        body = await readCapped(r, maxBytes)
      } catch (err) {
        return fail(err)
      }
      const contentType = r.headers.get('content-type') ?? ''
      const kind = kindOf(contentType, body.bytes)
      if (kind === 'binary') {
        throw new Error(`Unsupported content type "${contentType || 'unknown'}" at ${url.href}: web_fetch returns text, HTML and JSON only`)
      }
      const raw = decode(body.bytes, charsetOf(contentType, body.bytes))
      let text: string
      let title: string | undefined
      if (kind === 'html') {
        title = extractTitle(raw)
        text = htmlToText(raw)
      } else if (kind === 'json' && !body.truncated) {
        try {
          text = JSON.stringify(JSON.parse(raw), null, 2)
        } catch {
          text = raw
        }
      } else {
        text = raw
      }

      if (!r.ok) {
        const snippet = text.replace(/\s+/g, ' ').trim().slice(0, 300)
        throw new Error(`HTTP ${r.status}${r.statusText ? ' ' + r.statusText : ''} from ${url.href}${snippet ? `: ${snippet}` : ''}`)
      }

      const charsTruncated = text.length > maxChars
      if (charsTruncated) text = text.slice(0, maxChars)
      const header = [`URL: ${url.href}`, `Status: ${r.status}`, `Content-Type: ${contentType || 'unknown'}`]
      if (title) header.push(`Title: ${title}`)
      const notes: string[] = []
      if (body.truncated) notes.push(`[download stopped at the ${formatBytes(maxBytes)} size limit]`)
      if (charsTruncated) notes.push(`[text truncated to ${maxChars} characters]`)
      const out = `${header.join('\n')}\n\n${text || '(empty body)'}${notes.length ? '\n\n' + notes.join('\n') : ''}`
      return textResult(out, {
        url: url.href,
        status: r.status,
        contentType,
        bytes: body.bytes.length,
        truncated: body.truncated || charsTruncated,
      })
    } finally {
      clearTimeout(timer)
    }
  },
)
