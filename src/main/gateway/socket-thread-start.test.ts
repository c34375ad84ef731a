// How the socket thread starts from the sources (socket-thread-entry.ts): its worker bundled once per source state
// into the cache and run as plain JavaScript (tsx only when no bundle can be made); and the switch —
// LOOPDESK_SOCKET_THREAD unset or =1 on, =0 off.
import { mkdirSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { SocketThread } from './socket-thread'
import type { SocketThreadData } from './socket-thread-protocol'
import { startTestGateway } from './test-support'

const ROOT = fileURLToPath(new URL('../../..', import.meta.url))
// under node_modules, as the real cache is: the bundle's package imports resolve from there
const cache = join(ROOT, 'node_modules', '.cache', `loopdesk-test-worker-${process.pid}`)
afterAll(() => rmSync(cache, { recursive: true, force: true }))

const data: SocketThreadData = {
  port: 0,
  bind: 'loopback',
  fallback: false,
  staticDir: undefined,
  preauthMaxPayload: 64 * 1024,
  maxBufferedBytes: 1 << 20,
  dedupeTtlMs: 60_000,
  dedupeMax: 100,
  view: undefined,
}
const hooks = { admit: () => undefined, onConnection: () => {} }

/** A thread started with the worker from `cacheDir`: where its worker came from, once it served an HTTP request. */
async function startOnce(cacheDir: string) {
  const t = await SocketThread.start(data, hooks, cacheDir)
  try {
    expect((await fetch(`http://127.0.0.1:${t.port}/`)).status).toBe(404) // no static dir: it answers, nothing to serve
    return t.entry
  } finally {
    await t.close()
  }
}

describe('socket thread from the sources', () => {
  it('runs its worker from a bundle cached per source state, rebuilt only when missing; stale ones go once unused for an hour', async () => {
    const entry = await startOnce(cache)
    expect(entry.viaTsx).toBeUndefined()
    const file = fileURLToPath(entry.url)
    expect(file).toMatch(/socket-thread-[0-9a-f]{16}[/\\]socket-thread-worker\.mjs$/)
    expect(dirname(dirname(file))).toBe(cache)
    const built = statSync(file).mtimeMs
    expect((await startOnce(cache)).url.href).toBe(entry.url.href)
    expect(statSync(file).mtimeMs).toBe(built)

    // other source states' bundles: one unused for two hours is dropped when the current one is built, a recent one stays
    const stale = join(cache, 'socket-thread-0123456789abcdef')
    const recent = join(cache, 'socket-thread-fedcba9876543210')
    for (const d of [stale, recent]) mkdirSync(d)
    const twoHoursAgo = new Date(Date.now() - 2 * 3600_000)
    utimesSync(stale, twoHoursAgo, twoHoursAgo)
    rmSync(dirname(file), { recursive: true })
    expect((await startOnce(cache)).url.href).toBe(entry.url.href)
    expect(readdirSync(cache).sort()).toEqual([recent, dirname(file)].map((d) => d.slice(cache.length + 1)).sort())
  }, 60_000)

  it('two threads started at once in one process, the bundle not built yet: both run it', async () => {
    const dir = join(cache, 'together')
    const [a, b] = await Promise.all([startOnce(dir), startOnce(dir)])
    expect([a.viaTsx, b.viaTsx]).toEqual([undefined, undefined])
    expect(a.url.href).toBe(b.url.href)
    expect(readdirSync(dir)).toEqual([basename(dirname(fileURLToPath(a.url)))])
  }, 60_000)

  it('runs the sources through tsx when no bundle can be made', async () => {
    mkdirSync(cache, { recursive: true })
    const blocked = join(cache, 'a-file')
    writeFileSync(blocked, '')
    const entry = await startOnce(join(blocked, 'cache'))
    expect(entry.viaTsx).toBeDefined()
    expect(fileURLToPath(entry.url)).toBe(fileURLToPath(new URL('./socket-thread-worker.ts', import.meta.url)))
  }, 60_000)
})

describe('LOOPDESK_SOCKET_THREAD', () => {
  /** TCP servers this thread holds: the gateway's listener is one of them unless it is on the socket thread */
  const servers = () => process.getActiveResourcesInfo().filter((r) => r === 'TCPServerWrap').length

  it('unset (the default) and =1 put the listener on the socket thread, =0 keeps it on the main thread', async () => {
    const saved = process.env.LOOPDESK_SOCKET_THREAD
    try {
      for (const [value, onThisThread] of [[undefined, 0], ['1', 0], ['0', 1]] as const) {
        if (value === undefined) delete process.env.LOOPDESK_SOCKET_THREAD
        else process.env.LOOPDESK_SOCKET_THREAD = value
        const before = servers()
        const t = await startTestGateway()
        try {
          expect(servers() - before).toBe(onThisThread)
          await t.connect() // and it serves
        } finally {
          await t.stop()
        }
      }
    } finally {
      if (saved === undefined) delete process.env.LOOPDESK_SOCKET_THREAD
      else process.env.LOOPDESK_SOCKET_THREAD = saved
    }
  }, 60_000)
})
