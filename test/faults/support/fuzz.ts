// Deterministic generator of hostile gateway frames (seeded), and a raw WebSocket client that counts what
// the gateway answers. Frames cover invalid JSON, wrong types, unknown methods, bad params for every
// method, huge strings, deep nesting, prototype keys, binary frames and a second `connect`.
import WebSocket from 'ws'
import { METHOD_NAMES } from '../../../src/shared/methods'

export class Rng {
  private s: number
  constructor(seed: number) {
    this.s = seed % 2147483647 || 1
  }
  next(): number {
    this.s = (this.s * 48271) % 2147483647
    return this.s / 2147483647
  }
  int(n: number): number {
    return Math.floor(this.next() * n)
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)]
  }
}

export interface FuzzFrame {
  kind: string
  data: string | Buffer
  /** the id a response should echo (undefined: "invalid" or not predictable) */
  id?: string
}

const KEYS = ['a', 'sessionKey', 'message', 'key', 'runId', 'id', 'limit', 'patch', '__proto__', 'constructor', 'prototype', 'toString', '']
const STRINGS = ['', ' ', 'x', 'agent:main:main', 'agent:main:../../etc/passwd', '../../../../etc/passwd', '\u0000', '\ud800', '🤖'.repeat(10), '%s%n', '${x}', '<script>']

/** Methods whose success would change state: their fuzzed params always carry an unknown property (closed schemas refuse it). */
const SIDE_EFFECTS = new Set([
  'agent',
  'chat.send',
  'chat.abort',
  'sessions.create',
  'sessions.patch',
  'sessions.reset',
  'sessions.delete',
  'sessions.abort',
  'sessions.compact',
  'config.patch',
  'exec.approval.resolve',
  'loopdesk.queue.remove',
  'loopdesk.queue.hold',
  'loopdesk.queue.release',
  'loopdesk.queue.reorder',
  'loopdesk.prefs.set',
  'sessions.subscribe',
])

export function randomValue(r: Rng, depth = 0): unknown {
  const k = r.int(depth > 3 ? 5 : 8)
  switch (k) {
    case 0:
      return null
    case 1:
      return r.pick([0, -1, 1.5, 1e308, -0, 2 ** 53, Number.MAX_SAFE_INTEGER + 2])
    case 2:
      return r.pick([true, false])
    case 3:
      return r.pick(STRINGS)
    case 4:
      return 'y'.repeat(r.int(300))
    case 5:
    case 6: {
      const o: Record<string, unknown> = {}
      for (let i = r.int(4); i > 0; i--) o[r.pick(KEYS)] = randomValue(r, depth + 1)
      return o
    }
    default:
      return Array.from({ length: r.int(4) }, () => randomValue(r, depth + 1))
  }
}

const deepArrays = (n: number) => '['.repeat(n) + ']'.repeat(n)
const deepObjects = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n)

export const DEEP = 100_000
export const HUGE = 2 * 1024 * 1024

/** One post-handshake frame; `i` makes ids unique. */
export function postAuthFrame(r: Rng, i: number, opts: { heavy?: boolean } = {}): FuzzFrame {
  const id = `f${i}`
  const req = (method: string, params?: unknown) => JSON.stringify(params === undefined ? { type: 'req', id, method } : { type: 'req', id, method, params })
  // heavy frames (megabytes, 100k-deep nesting) are rarer: they are what a leak or a crash would need
  const roll = r.int(opts.heavy === false ? 990 : 1000)
  if (roll < 150) {
    const junk = r.pick([`{"type":"req","id":"${id}"`, '{', '[', '}', 'nul', 'undefined', '{"type":"req",,}', `{"type":'req'}`, '\u0000\u0001', '', ' '])
    return { kind: 'bad-json', data: junk + (r.int(2) ? 'x'.repeat(r.int(100)) : '') }
  }
  if (roll < 300) {
    const shapes: unknown[] = [
      null,
      42,
      'str',
      [],
      [1, 2],
      { type: 5 },
      { type: 'req', id: 5, method: 'health' },
      { type: 'req', id, method: 7 },
      { type: 'req', id: '', method: 'health' },
      { type: 'req', id, method: 'health', extra: true },
      { type: 'res', id, ok: true },
      { type: 'event', event: 'agent', payload: {} },
      { type: 'req', id, method: 'health', traceparent: 'x'.repeat(200) },
      { type: 'req', id: 'x'.repeat(300), method: 'health', bogus: 1 },
    ]
    const v = r.pick(shapes)
    const echoes = v !== null && typeof v === 'object' && !Array.isArray(v) && (v as { id?: unknown }).id === id
    return { kind: 'wrong-type', data: JSON.stringify(v), id: echoes ? id : undefined }
  }
  if (roll < 420) {
    const m = r.pick(['nope', '__proto__', 'constructor', 'toString', 'hasOwnProperty', 'health ', 'HEALTH', 'agent.', '../agent', 'é'.repeat(50), 'm'.repeat(5000)])
    return { kind: 'unknown-method', data: req(m), id }
  }
  if (roll < 800) {
    const method = r.pick(METHOD_NAMES)
    let params = randomValue(r)
    if (SIDE_EFFECTS.has(method)) params = { ...(params && typeof params === 'object' && !Array.isArray(params) ? params : {}), zzzUnknown: 1 }
    return { kind: 'bad-params', data: req(method, params), id }
  }
  if (roll < 830) return { kind: 'pollution', data: `{"type":"req","id":"${id}","method":"${r.pick(['health', 'sessions.list', 'config.patch'])}","params":{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}}`, id }
  if (roll < 860) return { kind: 'connect-again', data: req('connect', { minProtocol: 3, maxProtocol: 4 }), id }
  if (roll < 990) {
    const bytes = Buffer.alloc(1 + r.int(64))
    for (let b = 0; b < bytes.length; b++) bytes[b] = r.int(256)
    return { kind: 'binary', data: bytes }
  }
  if (roll < 995) {
    const method = r.pick(['chat.history', 'sessions.patch', 'agent', 'config.patch', 'm'])
    const big = 'h'.repeat(HUGE + r.int(1024))
    const data =
      method === 'm'
        ? req(big)
        : method === 'config.patch'
          ? req(method, { patch: { agents: { defaults: { workspace: big } } }, zzzUnknown: 1 })
          : req(method, { sessionKey: big, key: big, message: big, idempotencyKey: 'k', zzzUnknown: 1 })
    return { kind: 'huge', data, id }
  }
  const where = r.pick(['health', 'config.patch', 'loopdesk.prefs.set', 'sessions.patch', 'chat.history'])
  const nest = r.int(2) ? deepArrays(DEEP) : deepObjects(DEEP)
  // config.patch gets a well-formed request: `x` is no config key, so it can never be written, but the
  // handler (secret split, merge patch, validation) walks the 100k-deep value
  const params = where === 'config.patch' ? `{"patch":{"x":${nest}}}` : `{"a":${nest}}`
  return { kind: 'deep', data: `{"type":"req","id":"${id}","method":"${where}","params":${params}}`, id }
}

export interface Counted {
  responses: number
  bad: string[]
  ids: Set<string>
  /** largest error response (an error never echoes the input back) */
  maxResponseBytes: number
}

/** Collects the `res` frames of a socket and checks each is structured. */
export function countResponses(ws: WebSocket): Counted {
  const c: Counted = { responses: 0, bad: [], ids: new Set(), maxResponseBytes: 0 }
  ws.on('message', (data: WebSocket.RawData) => {
    const text = data.toString()
    let f: any
    try {
      f = JSON.parse(text)
    } catch {
      c.bad.push(`unparseable frame from the gateway: ${text.slice(0, 100)}`)
      return
    }
    if (f.type !== 'res') return
    c.responses++
    if (f.ok === false) c.maxResponseBytes = Math.max(c.maxResponseBytes, text.length)
    if (typeof f.id !== 'string') c.bad.push(`res without id: ${text.slice(0, 200)}`)
    else c.ids.add(f.id)
    if (f.ok === false) {
      if (typeof f.error?.code !== 'string' || typeof f.error?.message !== 'string' || !f.error.message.trim()) {
        c.bad.push(`unstructured error: ${text.slice(0, 200)}`)
      }
    } else if (f.ok !== true) c.bad.push(`res without ok: ${text.slice(0, 200)}`)
  })
  return c
}
