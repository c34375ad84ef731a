// The socket thread's listener seen from the main thread: when a socket counts as gone there, and what happens
// when the worker itself dies.
import { createRequire } from 'node:module'
import { createServer, type Server } from 'node:net'
import { Worker } from 'node:worker_threads'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { GatewaySocket } from './gateway-socket'
import { LIMITS } from './protocol'
import { SocketThread } from './socket-thread'
import { RawClient } from './test-support'

const data = {
  port: 0,
  bind: 'loopback' as const,
  fallback: false,
  staticDir: undefined,
  preauthMaxPayload: LIMITS.preauthMaxPayload,
  maxBufferedBytes: LIMITS.maxBufferedBytes,
  dedupeTtlMs: LIMITS.dedupeTtlMs,
  dedupeMax: LIMITS.dedupeMax,
  view: { agentIds: ['main'], defaultAgentId: 'main', archived: [] },
}

let thread: SocketThread | undefined
afterEach(async () => {
  await thread?.close()
  thread = undefined
})

/** a listener whose connections are handed to the test, each greeted so the client knows it is admitted */
async function listen(logged: string[] = [], threadData = data) {
  const sockets: GatewaySocket[] = []
  const waiters: Array<() => void> = []
  thread = await SocketThread.start(threadData, {
    admit: () => undefined,
    onConnection: (ws) => {
      sockets.push(ws)
      ws.send(JSON.stringify({ type: 'event', event: 'connect.challenge', payload: {} }))
      for (const w of waiters.splice(0)) w()
    },
    log: { error: (m) => logged.push(m), warn: (m) => logged.push(m) },
  })
  const next = async (): Promise<{ client: RawClient; socket: GatewaySocket }> => {
    const had = sockets.length
    const client = RawClient.open(`ws://127.0.0.1:${thread!.port}`)
    await client.challenge()
    while (sockets.length === had) await new Promise<void>((r) => waiters.push(r))
    return { client, socket: sockets[had]! }
  }
  return { thread, next, sockets }
}

/**
 * Kills the worker (a malformed batch throws in it), waits for the restart (two log lines), and connects a client
 * past hello to the new one: the frames the main thread gets from it, each with whether the worker acked it.
 */
async function restartedPastHello(t: SocketThread, logged: string[], next: Awaited<ReturnType<typeof listen>>['next']) {
  ;(t as unknown as { worker: { postMessage(m: unknown): void } }).worker.postMessage({ t: 'ops', ops: null })
  while (logged.length < 2) await new Promise((r) => setTimeout(r, 10))
  const { client, socket } = await next()
  const got: Array<{ text: string; acked?: number }> = []
  socket.on('message', (text: unknown, _binary: boolean, acked?: number) => got.push({ text: String(text), acked }))
  socket.passedHello!(LIMITS.maxPayload, ['operator.write'])
  socket.send(JSON.stringify({ type: 'res', id: 'c1', ok: true }))
  socket.flushNow!()
  await client.res('c1')
  return { client, got }
}

describe('socket thread listener', () => {
  it('a socket the main thread terminates is gone there before any report from the worker can arrive', async () => {
    const { thread, next } = await listen()
    const { client, socket } = await next()
    let closed = false
    socket.on('close', () => (closed = true))
    expect(thread.openSockets()).toBe(1)
    socket.terminate()
    // a worker's report is a message, never handled before the ticks queued now
    await new Promise<void>((r) => process.nextTick(r))
    expect(closed).toBe(true)
    expect(thread.openSockets()).toBe(0)
    expect((await client.closed).code).toBe(1006)
  })
})

describe('a socket thread that dies', () => {
  it('ends its connections, says why, and listens again on the same port', async () => {
    const logged: string[] = []
    const { thread, next } = await listen(logged)
    const { client, socket } = await next()
    let closed = false
    socket.on('close', () => (closed = true))
    const port = thread.port
    // an exception in the worker: a batch it cannot read
    ;(thread as unknown as { worker: { postMessage(m: unknown): void } }).worker.postMessage({ t: 'ops', ops: null })
    await client.closed
    while (!closed || logged.length < 2) await new Promise((r) => setTimeout(r, 10))
    expect(thread.openSockets()).toBe(0)
    expect(logged[0]).toMatch(/socket thread died \(ops is not iterable\); its 1 connection\(s\) closed — restarting it on port/)
    expect(logged[1]).toBe(`gateway: the socket thread listens again on port ${port}`)
    const again = await next()
    expect(thread.port).toBe(port)
    again.client.ws.close()
  })

  it('a restarted worker knows the runtime\'s run ids: a retried key is handed over, not acked as new', async () => {
    const logged: string[] = []
    const { thread, next } = await listen(logged)
    thread.noteRun('told-before')
    thread.flush()
    const { client, got } = await restartedPastHello(thread, logged, next)
    // a new key is the worker's to ack; the told one is not
    for (const key of ['told-before', 'new-key']) client.send({ type: 'req', id: key, method: 'agent', params: { message: 'hi', sessionKey: 'main', idempotencyKey: key } })
    while (got.length < 2) await new Promise((r) => setTimeout(r, 10))
    expect(got.map((g) => [JSON.parse(g.text).id, g.acked !== undefined])).toEqual([['told-before', false], ['new-key', true]])
    // the worker's acks leave in request order: one for the told key would be here before this one
    await client.res('new-key')
    expect(client.frames.filter((f) => f.type === 'res' && f.id !== 'c1').map((f) => f.id)).toEqual(['new-key'])
    client.ws.close()
    await client.closed
  })

  it('a worker that cannot listen again (its port taken meanwhile) is left dead, said so, and the gateway still stops', async () => {
    const logged: string[] = []
    const { thread } = await listen(logged)
    let blocker: Server | undefined
    // another process takes the port in the instant between the death and the restart (the death's log line
    // comes before the new worker exists)
    const push = logged.push.bind(logged)
    logged.push = (...lines: string[]) => {
      blocker ??= createServer().listen({ port: thread.port, host: '127.0.0.1' })
      return push(...lines)
    }
    try {
      ;(thread as unknown as { worker: { postMessage(m: unknown): void } }).worker.postMessage({ t: 'ops', ops: null })
      while (logged.length < 2) await new Promise((r) => setTimeout(r, 10))
      expect(logged[1]).toMatch(/could not be restarted .*the gateway takes no connections/)
      // its stop answers (it waited for a `stopped` from a worker that was never there)
      await thread.close()
    } finally {
      await new Promise((r) => blocker?.close(r))
    }
  })

  it("a restarted worker knows a long run's key for the TTL from the run's end, not from its start", async () => {
    const logged: string[] = []
    // a TTL of 1 s: the run below lasts 1.5 of them, and the worker dies 0.6 after its end
    const { thread, next } = await listen(logged, { ...data, dedupeTtlMs: 1000 })
    vi.useFakeTimers({ toFake: ['Date'] })
    try {
      const start = Date.now()
      thread.noteRun('long-run', 'live')
      vi.setSystemTime(start + 1500)
      thread.noteRun('long-run', 'ended')
      vi.setSystemTime(start + 2100)
      thread.noteRun('later-run')
      thread.flush()
    } finally {
      vi.useRealTimers()
    }
    const { client, got } = await restartedPastHello(thread, logged, next)
    for (const key of ['long-run', 'new-key']) client.send({ type: 'req', id: key, method: 'agent', params: { message: 'hi', sessionKey: 'main', idempotencyKey: key } })
    while (got.length < 2) await new Promise((r) => setTimeout(r, 10))
    expect(got.map((g) => [JSON.parse(g.text).id, g.acked !== undefined])).toEqual([['long-run', false], ['new-key', true]])
    client.ws.close()
    await client.closed
  })

  it('is left dead after dying again and again, said so, and the gateway still stops', async () => {
    const logged: string[] = []
    const { thread } = await listen(logged)
    for (let i = 1; i <= 4; i++) {
      ;(thread as unknown as { worker: { postMessage(m: unknown): void } }).worker.postMessage({ t: 'ops', ops: null })
      // each death is logged once; each restart (the first three) once more
      const want = i < 4 ? 2 * i : 2 * i - 1
      while (logged.length < want) await new Promise((r) => setTimeout(r, 10))
    }
    expect(logged.at(-1)).toMatch(/died .*the 4th time within 60 s: not restarted/)
    // nothing listens: the connection is refused before any upgrade
    const refused = RawClient.open(`ws://127.0.0.1:${thread.port}`)
    let opened = false
    void refused.opened.then(() => (opened = true))
    expect((await refused.closed).code).toBe(1006)
    expect(opened).toBe(false)
    await thread.close()
  })
})

// A peer on a thread of its own that, on `go`, writes FRAMES frames of 60 KB as fast as it can, and flags in shared
// memory whether its socket drained (the gateway read all of it) and how much it still buffers, in MB.
const FRAMES = 2200
const WRITER = `
const { parentPort, workerData } = require('node:worker_threads')
const WebSocket = require(workerData.ws)
const flag = new Int32Array(workerData.flag)
const ws = new WebSocket(workerData.url, { perMessageDeflate: false })
ws.on('message', () => parentPort.postMessage('greeted'))
parentPort.on('message', () => {
  const frame = 'x'.repeat(60 * 1024)
  for (let i = 0; i < ${FRAMES}; i++) ws.send(frame)
  const poll = setInterval(() => {
    Atomics.store(flag, 1, Math.floor(ws.bufferedAmount / 1e6))
    if (ws.bufferedAmount === 0) {
      Atomics.store(flag, 0, 1)
      clearInterval(poll)
    }
    Atomics.notify(flag, 0)
  }, 10)
})
`

describe('socket thread flow control', () => {
  it('stops reading a peer while the main thread has not taken its frames, and reads on once it does', async () => {
    const { thread, sockets } = await listen()
    const flag = new SharedArrayBuffer(8)
    const seen = new Int32Array(flag)
    const writer = new Worker(WRITER, { eval: true, workerData: { url: `ws://127.0.0.1:${thread.port}`, ws: createRequire(import.meta.url).resolve('ws'), flag } })
    try {
      await new Promise((r) => writer.once('message', r))
      const socket = sockets[0]!
      let frames = 0
      socket.on('message', () => frames++)
      writer.postMessage('go')
      // this thread takes nothing meanwhile: the worker may read ~1 MB past what this thread took, the kernel
      // holds a few tens of MB, the rest (of ~135 MB) stays with the peer — it drained: the worker read it all
      const bound = Date.now() + 3000
      while (Atomics.load(seen, 0) === 0 && Date.now() < bound) Atomics.wait(seen, 0, 0, 10)
      expect(Atomics.load(seen, 0)).toBe(0)
      expect(Atomics.load(seen, 1)).toBeGreaterThan(60)
      // taken now: the worker reads on, to the last frame
      while (frames < FRAMES) await new Promise((r) => setTimeout(r, 10))
      expect(frames).toBe(FRAMES)
    } finally {
      await writer.terminate()
    }
  })
})
