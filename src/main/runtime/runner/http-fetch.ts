// The `fetch` model requests go through: node:http(s) with keep-alive agents instead of the global
// (undici) fetch, for the requests it can serve exactly; anything else is handed to the global fetch.
//
// Why: per model request, undici's fetch cost more than the SDK on top of it — the JSON body copied to
// a USV string and again to bytes, a Request, web streams (a transferable ReadableStream per body,
// promise pairs per chunk), AbortSignal chains and per-request dispatcher state. ~60 KB allocated and
// ~0.5 ms of main-thread CPU per request, much of it alive until the response ends: with 20 runs in
// flight it survived young-generation GCs and was copied by them, which made the scavenge pauses that
// delayed `agent` acks (bench:gateway). Here the body string is written as it is, and a streamed
// response is read as the socket's own chunks.
//
// Served here: an http:/https: URL given as a string or URL, no body or a string / byte body, no
// `redirect: 'manual' | 'error'`, not to go through a proxy (net/proxy.ts: those go to fetch, whose
// dispatcher knows the proxy). The result follows fetch:
//  - network errors reject with TypeError('fetch failed', { cause }); an abort rejects with the
//    signal's reason (an AbortError), before and after the headers (then the body read throws it);
//  - a body cut off mid-stream throws TypeError('terminated', { cause }) on read;
//  - a redirect (3xx with Location) is re-sent through the global fetch, which follows it;
//  - gzip / deflate / br bodies are decoded (we ask for none, a proxy may still send them).
// A 2xx `text/event-stream` response streams (StreamResponse: `body` is async-iterable and has
// getReader(), what the openai and anthropic SDKs and pi-ai's reader use). Every other response is read
// whole and returned as a real `Response`: errors and JSON are small, and the SDKs' error paths then see
// exactly what fetch gives.
import http from 'node:http'
import https from 'node:https'
import type { Readable } from 'node:stream'
import { activeProxy, proxyFor } from '../net/proxy'
import { decodedBody } from '../tools/decoded-body'

// `timeout` only makes Node apply the server's `Keep-Alive: timeout=N` hint (an idle socket is closed 1 s
// before the server would close it); a socket in use is never timed out by the agent
const agents = {
  'http:': new http.Agent({ keepAlive: true, timeout: 60_000 }),
  'https:': new https.Agent({ keepAlive: true, timeout: 60_000 }),
}

const REDIRECTS = new Set([301, 302, 303, 307, 308])
const NULL_BODY = new Set([101, 204, 205, 304])

export function httpFetch(input: Parameters<typeof fetch>[0], init?: RequestInit): Promise<Response> {
  const url = typeof input === 'string' ? safeUrl(input) : input instanceof URL ? input : undefined
  const body = init?.body
  const servable =
    url !== undefined &&
    proxyFor(url, activeProxy()) === undefined &&
    (url.protocol === 'http:' || url.protocol === 'https:') &&
    (body === undefined || body === null || typeof body === 'string' || body instanceof Uint8Array) &&
    (init?.redirect === undefined || init.redirect === 'follow')
  if (!servable) return globalThis.fetch(input, init)
  return send(url, init ?? {}, body as string | Uint8Array | null | undefined)
}

function safeUrl(s: string): URL | undefined {
  try {
    return new URL(s)
  } catch {
    return undefined
  }
}

// A request that fails is never sent again here (as with fetch): a POST the server may have received
// would run the model twice. Retries are the SDK's (maxRetries) and the runner's.
function send(url: URL, init: RequestInit, body: string | Uint8Array | null | undefined): Promise<Response> {
  const signal = init.signal ?? undefined
  if (signal?.aborted) return Promise.reject(abortReason(signal))
  const method = (init.method ?? 'GET').toUpperCase()
  const headers = headersOf(init.headers)
  if (!('accept' in headers)) headers.accept = '*/*'
  if (!('user-agent' in headers)) headers['user-agent'] = 'node'
  if (body !== undefined && body !== null) headers['content-length'] = String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength)
  else if (method === 'POST' || method === 'PUT' || method === 'PATCH') headers['content-length'] = '0'
  const protocol = url.protocol as 'http:' | 'https:'
  const request = (protocol === 'https:' ? https : http).request

  // what following a redirect needs, dropped once the response is here: closures below share this scope,
  // and the body (often a 30+ KB string) must not stay alive through a long streamed reply
  let pending: { init: RequestInit; body: string | Uint8Array | null | undefined } | undefined = { init, body }
  return new Promise<Response>((resolve, reject) => {
    let settled = false
    let response: http.IncomingMessage | undefined
    const req = request(url, { method, headers, agent: agents[protocol] })
    const onAbort = () => {
      const reason = abortReason(signal!)
      if (!settled) {
        settled = true
        reject(reason)
      }
      req.destroy(reason)
      response?.destroy(reason)
    }
    const detach = () => signal?.removeEventListener('abort', onAbort)
    signal?.addEventListener('abort', onAbort, { once: true })
    // a failure before the response was handed out (connecting, sending, or reading a body read whole)
    const failed = (err: unknown) => {
      if (settled) return
      settled = true
      detach()
      reject(new TypeError('fetch failed', { cause: err }))
    }

    req.on('error', (err) => {
      pending = undefined
      failed(err)
    })

    req.on('response', (res) => {
      response = res
      if (settled) {
        res.destroy()
        return
      }
      const status = res.statusCode ?? 0
      const sent = pending!
      pending = undefined
      if (REDIRECTS.has(status) && res.headers.location) {
        settled = true
        detach()
        res.resume()
        resolve(globalThis.fetch(url, sent.init))
        return
      }
      const head = new Headers()
      const raw = res.rawHeaders
      for (let i = 0; i + 1 < raw.length; i += 2) head.append(raw[i], raw[i + 1])
      const source = decodedBody(res)
      res.once('close', detach)
      const meta = { status, statusText: res.statusMessage ?? '', headers: head, url: url.href }
      const streamed = status >= 200 && status < 300 && (head.get('content-type') ?? '').includes('text/event-stream')
      if (streamed) {
        settled = true
        resolve(new StreamResponse(meta, new StreamBody(readChunks(source))) as unknown as Response)
        return
      }
      // read whole: settled once the body is in (an abort meanwhile rejects the fetch itself)
      const chunks: Buffer[] = []
      source.on('data', (c: Buffer) => chunks.push(c))
      source.once('end', () => {
        if (settled) return
        settled = true
        detach()
        const bytes = Buffer.concat(chunks)
        resolve(withUrl(new Response(NULL_BODY.has(status) ? null : bytes, { status, statusText: meta.statusText, headers: head }), meta.url))
      })
      source.once('error', failed)
    })

    const out = pending!.body // (set above; nothing ran in between)
    if (out === undefined || out === null) req.end()
    else req.end(out)
  })
}

// a Response made here has no url of its own (a read-only getter): the SDKs log and report it
function withUrl(res: Response, url: string): Response {
  Object.defineProperty(res, 'url', { value: url })
  return res
}

function headersOf(init: RequestInit['headers']): Record<string, string> {
  const out: Record<string, string> = {}
  if (!init) return out
  // Headers (what the SDKs pass) and plain objects without a copy; anything else normalized by Headers
  const h = init instanceof Headers ? init : Array.isArray(init) ? new Headers(init) : undefined
  if (h) h.forEach((v, k) => (out[k] = v))
  else for (const [k, v] of Object.entries(init as Record<string, string>)) if (v !== undefined) out[k.toLowerCase()] = String(v)
  return out
}

function abortReason(signal: AbortSignal): Error {
  return (signal.reason as Error | undefined) ?? new DOMException('This operation was aborted', 'AbortError')
}

/** The body's chunks; a failure that is not the abort reason reads as fetch's TypeError('terminated'). */
function readChunks(source: Readable): AsyncIterator<Uint8Array> {
  const it: AsyncIterator<Uint8Array> = source[Symbol.asyncIterator]()
  return {
    next: () =>
      it.next().catch((err: unknown) => {
        throw isAbort(err) ? err : new TypeError('terminated', { cause: err })
      }),
    return: async () => {
      await it.return?.()
      return { done: true, value: undefined }
    },
  }
}

function isAbort(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { name?: unknown }).name === 'AbortError'
}

/**
 * A streamed body: async-iterable (the openai SDK's path) and with getReader() (pi-ai's Anthropic reader,
 * the SDKs' cancel) — the parts of ReadableStream those use. One consumer, as with a real body.
 */
export class StreamBody implements AsyncIterable<Uint8Array> {
  private taken = false
  constructor(private readonly source: AsyncIterator<Uint8Array>) {}

  get locked(): boolean {
    return this.taken
  }

  [Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    this.take()
    return { next: () => this.source.next(), return: () => this.close() }
  }

  getReader(): { read(): Promise<IteratorResult<Uint8Array>>; cancel(reason?: unknown): Promise<void>; releaseLock(): void; closed: Promise<void> } {
    this.take()
    return {
      read: () => this.source.next(),
      cancel: () => this.close().then(() => undefined),
      releaseLock: () => {},
      closed: new Promise<void>(() => {}),
    }
  }

  async cancel(): Promise<void> {
    await this.close()
  }

  /** reads the rest (text() and friends) */
  async bytes(): Promise<Uint8Array> {
    const parts: Uint8Array[] = []
    for await (const c of this) parts.push(c)
    return Buffer.concat(parts)
  }

  private async close(): Promise<IteratorResult<Uint8Array>> {
    await this.source.return?.()
    return { done: true, value: undefined }
  }

  private take(): void {
    if (this.taken) throw new TypeError('Body is unusable: Body has already been read')
    this.taken = true
  }
}

interface ResponseMeta {
  status: number
  statusText: string
  headers: Headers
  url: string
}

/** A streaming response: what fetch's Response offers that the model SDKs and pi-ai read. */
export class StreamResponse {
  readonly ok: boolean
  readonly status: number
  readonly statusText: string
  readonly headers: Headers
  readonly url: string
  readonly redirected = false
  readonly type = 'basic'
  constructor(
    meta: ResponseMeta,
    readonly body: StreamBody,
  ) {
    this.status = meta.status
    this.ok = meta.status >= 200 && meta.status < 300
    this.statusText = meta.statusText
    this.headers = meta.headers
    this.url = meta.url
  }

  get bodyUsed(): boolean {
    return this.body.locked
  }

  async text(): Promise<string> {
    return new TextDecoder().decode(await this.body.bytes())
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text())
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const b = await this.body.bytes()
    return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer
  }

  bytes(): Promise<Uint8Array> {
    return this.body.bytes()
  }
}
