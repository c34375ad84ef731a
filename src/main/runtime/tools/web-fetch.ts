// `web_fetch`: GET an http(s) URL and return readable text. Redirects are followed by hand (≤5) so each
// hop's scheme and address are re-checked; every host is resolved once, checked against the network policy
// (no loopback / private / link-local targets unless configured) and the socket is pinned to that address.
// The body is streamed, decompressed and cut at the byte cap; timeout and abort are honoured.
import http from 'node:http'
import https from 'node:https'
import type { Readable } from 'node:stream'
import Type from 'typebox'
import { decodedBody, readCapped } from './decoded-body'
import { extractTitle, htmlToText } from './html-text'
import { prettyJson } from './json-pretty'
import { activeProxy, describeProxy, proxyFor } from '../net/proxy'
import { canRequestThrough, ProxyRefusedError, requestThroughProxy } from '../net/proxy-request'
import { BlockedAddressError, pinnedLookup, resolvePinned, UnresolvedHostError, type NetPolicy, type PinnedAddress } from './net-guard'
import { formatBytes, looksBinary, raceAbort, textResult, ToolAbortedError, throwIfAborted } from './result'
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

interface FetchResponse {
  status: number
  statusText: string
  headers: http.IncomingHttpHeaders
  /** the decoded (decompressed) body */
  body: Readable
  /** stops reading and closes the connection */
  close(): void
}

const header = (h: http.IncomingHttpHeaders, name: string): string => {
  const v = h[name]
  return Array.isArray(v) ? v.join(', ') : (v ?? '')
}

/**
 * One GET to the address `resolvePinned` checked (no redirects followed here). Through the environment's
 * proxy (net/proxy.ts) when it applies: the address check still runs here first (a name this machine
 * resolves to a blocked address is refused), but the proxy connects by name, and a name only the proxy
 * can resolve goes through unchecked — behind a proxy the machine itself often resolves no public names.
 */
async function request(url: URL, policy: NetPolicy, signal: AbortSignal): Promise<FetchResponse> {
  const proxy = proxyFor(url, activeProxy())
  const through = proxy && canRequestThrough(proxy) ? proxy : undefined
  let pin: PinnedAddress | undefined
  try {
    pin = await raceAbort(resolvePinned(url, policy), signal, 'web_fetch')
  } catch (err) {
    if (!through || !(err instanceof UnresolvedHostError)) throw err
  }
  const headers = {
    'user-agent': 'Loopdesk/0.1 (web_fetch)',
    accept: 'text/html,application/xhtml+xml,application/json;q=0.9,text/plain;q=0.8,*/*;q=0.5',
    'accept-encoding': 'gzip, deflate, br',
  }
  return new Promise<FetchResponse>((resolve, reject) => {
    const onResponse = (res: http.IncomingMessage) => {
      const body = decodedBody(res)
      resolve({
        status: res.statusCode ?? 0,
        statusText: res.statusMessage ?? '',
        headers: res.headers,
        body,
        close: () => {
          body.destroy()
          res.destroy()
          req.destroy()
        },
      })
    }
    let req: http.ClientRequest
    if (through) {
      req = requestThroughProxy(url, through, { method: 'GET', headers, signal }, onResponse)
      req.on('error', (err: NodeJS.ErrnoException) => {
        if (err instanceof ProxyRefusedError) reject(new Error(`web_fetch could not fetch ${url.href}: ${err.message}`, { cause: err }))
        else if (err.code) reject(new Error(`web_fetch could not reach ${url.href} through the proxy ${describeProxy(through)}: ${err.message}`, { cause: err }))
        else reject(err)
      })
    } else {
      const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname
      const mod = url.protocol === 'https:' ? https : http
      req = mod.request(
        {
          protocol: url.protocol,
          hostname,
          port: url.port || undefined,
          path: `${url.pathname}${url.search}`,
          method: 'GET',
          // connect only to the checked address (DNS rebinding); no pooled socket from another request
          lookup: pinnedLookup(pin!),
          family: pin!.family,
          agent: false,
          signal,
          headers,
        },
        onResponse,
      )
      req.on('error', reject)
    }
    req.end()
  })
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
    readOnly: true,
    label: 'Fetch URL',
    description:
      'Fetch an http(s) URL (GET) and return its readable text: HTML is converted to plain text, JSON and text are returned as is. ' +
      `Follows up to ${WEB_FETCH_MAX_REDIRECTS} redirects. Large pages are truncated. Binary content is refused. ` +
      'Only public internet hosts: localhost, private-network and link-local addresses are refused.',
    parameters: params,
  },
  async (ctx, p, signal) => {
    throwIfAborted(signal, 'web_fetch')
    let url = parseUrl(p.url)
    checkScheme(url, 'Non-http')
    const maxChars = p.maxChars ?? WEB_FETCH_DEFAULT_MAX_CHARS
    const { maxBytes, timeoutMs } = ctx.webFetch
    const policy: NetPolicy = { allowLoopback: ctx.webFetch.allowLoopback === true, allowPrivateNetwork: ctx.webFetch.allowPrivateNetwork === true }

    const timeout = new AbortController()
    const timer = setTimeout(() => timeout.abort(), timeoutMs)
    const combined = signal ? AbortSignal.any([signal, timeout.signal]) : timeout.signal
    const fail = (err: unknown): never => {
      if (signal?.aborted) throw new ToolAbortedError('web_fetch')
      if (timeout.signal.aborted) throw new Error(`web_fetch timed out after ${timeoutMs} ms fetching ${url.href}`)
      if (err instanceof BlockedAddressError) throw err
      const e = err as NodeJS.ErrnoException
      throw e?.code && e.syscall ? new Error(`web_fetch could not reach ${url.href}: ${e.message}`, { cause: err }) : err
    }

    let res: FetchResponse | undefined
    try {
      for (let hop = 0; ; hop++) {
        try {
          res = await request(url, policy, combined)
        } catch (err) {
          fail(err)
        }
        const r = res!
        const loc = header(r.headers, 'location')
        if (r.status >= 300 && r.status < 400 && loc) {
          r.close()
          if (hop >= WEB_FETCH_MAX_REDIRECTS) throw new Error(`Too many redirects (more than ${WEB_FETCH_MAX_REDIRECTS}) starting at ${p.url}`)
          const next = parseUrl(new URL(loc, url).href)
          checkScheme(next, 'Redirect to')
          url = next // its address is checked by the next request() before anything connects
          continue
        }
        break
      }
      const r = res!
      let body: { bytes: Uint8Array; truncated: boolean }
      try {
        body = await readCapped(r.body as AsyncIterable<Buffer>, maxBytes, () => r.close())
      } catch (err) {
        return fail(err)
      }
      const contentType = header(r.headers, 'content-type')
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
          // never more than is shown: deep nesting pretty-prints to gigabytes (json-pretty.ts)
          text = prettyJson(JSON.parse(raw), maxChars)
        } catch {
          text = raw
        }
      } else {
        text = raw
      }

      if (r.status < 200 || r.status > 299) {
        const snippet = text.replace(/\s+/g, ' ').trim().slice(0, 300)
        throw new Error(`HTTP ${r.status}${r.statusText ? ' ' + r.statusText : ''} from ${url.href}${snippet ? `: ${snippet}` : ''}`)
      }

      const charsTruncated = text.length > maxChars
      if (charsTruncated) text = text.slice(0, maxChars)
      const head = [`URL: ${url.href}`, `Status: ${r.status}`, `Content-Type: ${contentType || 'unknown'}`]
      if (title) head.push(`Title: ${title}`)
      const notes: string[] = []
      if (body.truncated) notes.push(`[download stopped at the ${formatBytes(maxBytes)} size limit]`)
      if (charsTruncated) notes.push(`[text truncated to ${maxChars} characters]`)
      const out = `${head.join('\n')}\n\n${text || '(empty body)'}${notes.length ? '\n\n' + notes.join('\n') : ''}`
      return textResult(out, {
        url: url.href,
        status: r.status,
        contentType,
        bytes: body.bytes.length,
        truncated: body.truncated || charsTruncated,
      })
    } finally {
      clearTimeout(timer)
      res?.close()
    }
  },
)
