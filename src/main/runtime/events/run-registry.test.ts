import { afterEach, describe, expect, it, vi } from 'vitest'
import { EventBus } from './event-bus'
import { RunRegistry } from './run-registry'

function setup(opts?: ConstructorParameters<typeof RunRegistry>[0]) {
  const bus = new EventBus()
  const reg = new RunRegistry(opts)
  reg.attach(bus)
  const start = (runId: string, startedAt = 1000) =>
    bus.emit({ runId, stream: 'lifecycle', data: { phase: 'start', startedAt }, sessionKey: 'agent:main:main' })
  const end = (runId: string, extra: Record<string, unknown> = {}) =>
    bus.emit({ runId, stream: 'lifecycle', data: { phase: 'end', endedAt: 2000, ...extra } })
  const error = (runId: string, error = 'LLM request failed.', extra: Record<string, unknown> = {}) =>
    bus.emit({ runId, stream: 'lifecycle', data: { phase: 'error', endedAt: 3000, error, ...extra } })
  /** an error after which nothing retries the run (the embedded runner marks its errors so) */
  const settledError = (runId: string, msg?: string) => error(runId, msg, { executionSettled: true })
  return { bus, reg, start, end, error, settledError }
}

afterEach(() => {
  vi.useRealTimers()
})

describe('RunRegistry', () => {
  it('a wait started before the end resolves on lifecycle end', async () => {
    const { reg, start, end } = setup()
    start('r1')
    expect(reg.isActive('r1')).toBe(true)
    expect(reg.activeRuns()).toEqual([{ runId: 'r1', sessionKey: 'agent:main:main', startedAt: 1000 }])
    const p = reg.waitForAgentJob('r1', 5000)
    end('r1')
    await expect(p).resolves.toEqual({ runId: 'r1', status: 'ok', startedAt: 1000, endedAt: 2000 })
    expect(reg.isActive('r1')).toBe(false)
    expect(reg.waiterCount()).toBe(0)
  })

  it('a wait after the end resolves from the cache', async () => {
    const { reg, start, end } = setup()
    start('r1')
    end('r1')
    await expect(reg.waitForAgentJob('r1', 0)).resolves.toEqual({ runId: 'r1', status: 'ok', startedAt: 1000, endedAt: 2000 })
    await expect(reg.waitForAgentJob('r1')).resolves.toMatchObject({ status: 'ok' })
  })

  it('lifecycle end with aborted reports timeout; a settled error reports error with its message at once', async () => {
    const { reg, start, end, settledError } = setup()
    start('a')
    end('a', { aborted: true })
    start('e')
    settledError('e', 'rate limited')
    await expect(reg.waitForAgentJob('a')).resolves.toEqual({ runId: 'a', status: 'timeout', startedAt: 1000, endedAt: 2000 })
    await expect(reg.waitForAgentJob('e')).resolves.toEqual({
      runId: 'e',
      status: 'error',
      startedAt: 1000,
      endedAt: 3000,
      error: 'rate limited',
    })
  })

  it('startedAt comes from end data when present, endedAt falls back to the event ts', async () => {
    const { bus, reg } = setup()
    bus.emit({ runId: 'f', stream: 'lifecycle', data: { phase: 'end', startedAt: 42 } })
    const r = await reg.waitForAgentJob('f', 0)
    expect(r.startedAt).toBe(42)
    expect(r.endedAt).toBeGreaterThan(0)
  })

  it('a wait timeout returns {status:timeout} without startedAt, and the run still completes', async () => {
    const { reg, start, end } = setup()
    start('slow')
    const r = await reg.waitForAgentJob('slow', 20)
    expect(r).toEqual({ runId: 'slow', status: 'timeout' })
    expect(reg.isActive('slow')).toBe(true)
    expect(reg.waiterCount()).toBe(0)
    end('slow')
    await expect(reg.waitForAgentJob('slow', 0)).resolves.toMatchObject({ status: 'ok', startedAt: 1000 })
  })

  it('timeoutMs 0 on a running or unknown run answers timeout at once', async () => {
    const { reg, start } = setup()
    start('r')
    await expect(reg.waitForAgentJob('r', 0)).resolves.toEqual({ runId: 'r', status: 'timeout' })
    await expect(reg.waitForAgentJob('unknown', 0)).resolves.toEqual({ runId: 'unknown', status: 'timeout' })
    expect(reg.waiterCount()).toBe(0)
  })

  it('negative or invalid timeouts fall back to the 30 s default', async () => {
    vi.useFakeTimers()
    const { reg } = setup()
    let settled = false
    void reg.waitForAgentJob('r', -5).then(() => (settled = true))
    await vi.advanceTimersByTimeAsync(29_000)
    expect(settled).toBe(false)
    await vi.advanceTimersByTimeAsync(1_000)
    expect(settled).toBe(true)
  })

  it('serves multiple waiters, each with its own timeout', async () => {
    const { reg, start, end } = setup()
    start('m')
    const short = reg.waitForAgentJob('m', 10)
    const w1 = reg.waitForAgentJob('m', 5000)
    const w2 = reg.waitForAgentJob('m', 5000)
    expect(reg.waiterCount()).toBe(3)
    await expect(short).resolves.toEqual({ runId: 'm', status: 'timeout' })
    expect(reg.waiterCount()).toBe(2)
    end('m')
    const [a, b] = await Promise.all([w1, w2])
    expect(a.status).toBe('ok')
    expect(b.status).toBe('ok')
    expect(reg.waiterCount()).toBe(0)
  })

  it('a wait registered before the run starts resolves when it ends', async () => {
    const { reg, start, end } = setup()
    const p = reg.waitForAgentJob('later', 5000)
    start('later')
    end('later')
    await expect(p).resolves.toMatchObject({ status: 'ok' })
  })

  it('finished runs expire after the TTL', async () => {
    let now = 0
    const { reg, start, end } = setup({ ttlMs: 1000, now: () => now })
    start('t')
    end('t')
    expect(reg.snapshot('t')?.status).toBe('ok')
    now = 999
    expect(reg.snapshot('t')).toBeDefined()
    now = 1000
    expect(reg.snapshot('t')).toBeUndefined()
    await expect(reg.waitForAgentJob('t', 0)).resolves.toEqual({ runId: 't', status: 'timeout' })
  })

  it('keeps at most maxFinished snapshots', () => {
    const { reg, start, end } = setup({ maxFinished: 2 })
    for (const id of ['a', 'b', 'c']) {
      start(id)
      end(id)
    }
    expect(reg.snapshot('a')).toBeUndefined()
    expect(reg.snapshot('c')).toBeDefined()
  })

  it('a new start for the same runId evicts the old terminal snapshot', async () => {
    const { reg, start, end, settledError } = setup()
    start('retry')
    settledError('retry')
    expect(reg.snapshot('retry')?.status).toBe('error')
    start('retry', 5000)
    expect(reg.snapshot('retry')).toBeUndefined()
    const p = reg.waitForAgentJob('retry', 5000)
    end('retry')
    await expect(p).resolves.toMatchObject({ status: 'ok', startedAt: 5000 })
  })

  it('ignores non-lifecycle events and detaches', () => {
    const { bus, reg } = setup()
    bus.emit({ runId: 'x', stream: 'assistant', data: { phase: 'start' } })
    expect(reg.isActive('x')).toBe(false)
    const bus2 = new EventBus()
    const reg2 = new RunRegistry()
    const off = reg2.attach(bus2)
    off()
    bus2.emit({ runId: 'y', stream: 'lifecycle', data: { phase: 'start', startedAt: 1 } })
    expect(reg2.isActive('y')).toBe(false)
  })

  it("dispose resolves pending waits with timeout, phase gateway_draining (OpenClaw v4's shutdown-interrupted wait)", async () => {
    const { reg, start } = setup()
    start('d')
    const p = reg.waitForAgentJob('d', 60_000)
    reg.dispose()
    await expect(p).resolves.toEqual({ runId: 'd', status: 'timeout', timeoutPhase: 'gateway_draining' })
    expect(reg.waiterCount()).toBe(0)
  })

  describe('error retry grace (reference §3: AGENT_RUN_ERROR_RETRY_GRACE_MS)', () => {
    it('holds an unsettled error for 15 s by default before waits see it', async () => {
      vi.useFakeTimers()
      const { reg, start, error } = setup()
      start('g')
      const w = reg.waitForAgentJob('g', 60_000)
      let got: unknown
      void w.then((r) => (got = r))
      error('g', 'model failed')
      expect(reg.hasPendingError('g')).toBe(true)
      expect(reg.snapshot('g')).toBeUndefined()
      await expect(reg.waitForAgentJob('g', 0)).resolves.toEqual({ runId: 'g', status: 'timeout' })
      await vi.advanceTimersByTimeAsync(14_999)
      expect(got).toBeUndefined()
      await vi.advanceTimersByTimeAsync(1)
      expect(got).toEqual({ runId: 'g', status: 'error', startedAt: 1000, endedAt: 3000, error: 'model failed' })
      expect(reg.snapshot('g')?.status).toBe('error')
      expect(reg.hasPendingError('g')).toBe(false)
    })

    it('a retry (new start under the same runId) inside the grace cancels the error; the wait gets the retry outcome', async () => {
      const { reg, start, end, error } = setup({ errorGraceMs: 200 })
      start('fb')
      const w = reg.waitForAgentJob('fb', 5000)
      error('fb', 'primary model failed')
      start('fb', 4000) // fallback model, same run
      await new Promise((r) => setTimeout(r, 300)) // past the grace: the cancelled error must not resurface
      expect(reg.snapshot('fb')).toBeUndefined()
      end('fb')
      await expect(w).resolves.toEqual({ runId: 'fb', status: 'ok', startedAt: 4000, endedAt: 2000 })
    })

    it('a later end wins over a held error', async () => {
      const { reg, start, end, error } = setup({ errorGraceMs: 10_000 })
      start('x')
      const w = reg.waitForAgentJob('x', 5000)
      error('x')
      end('x')
      await expect(w).resolves.toMatchObject({ status: 'ok' })
      expect(reg.hasPendingError('x')).toBe(false)
    })

    it('executionSettled errors and settle() are final at once; errorGraceMs 0 disables the grace', async () => {
      const { reg, start, error, settledError } = setup({ errorGraceMs: 60_000 })
      start('s1')
      settledError('s1', 'boom')
      await expect(reg.waitForAgentJob('s1', 0)).resolves.toMatchObject({ status: 'error', error: 'boom' })
      start('s2')
      const w = reg.waitForAgentJob('s2', 5000)
      error('s2', 'held')
      expect(reg.settle('s2')).toBe(true)
      await expect(w).resolves.toMatchObject({ status: 'error', error: 'held' })
      expect(reg.settle('s2')).toBe(false)
      const quick = setup({ errorGraceMs: 0 })
      quick.start('q')
      quick.error('q', 'now')
      await expect(quick.reg.waitForAgentJob('q', 0)).resolves.toMatchObject({ status: 'error', error: 'now' })
    })

    it('dispose drops held errors (no timer left behind)', async () => {
      vi.useFakeTimers()
      const { reg, start, error } = setup()
      start('d')
      error('d')
      reg.dispose()
      expect(reg.hasPendingError('d')).toBe(false)
      expect(vi.getTimerCount()).toBe(0)
    })
  })
})
