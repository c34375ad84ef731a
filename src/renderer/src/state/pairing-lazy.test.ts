import { describe, expect, it, vi } from 'vitest'
import type { PairingRequests } from './pairing'
import { lazyPairing } from './pairing-lazy'

function fakeRequests() {
  return { start: vi.fn(async () => {}), refresh: vi.fn(async () => {}), approve: vi.fn(async () => {}), reject: vi.fn(async () => {}), liftRejection: vi.fn(async () => {}), dispose: vi.fn() }
}

describe('lazyPairing', () => {
  it('loads the requests once, on start, and passes the calls on', async () => {
    const p = fakeRequests()
    const create = vi.fn(async () => p as unknown as PairingRequests)
    const api = lazyPairing(create)
    expect(create).not.toHaveBeenCalled()
    await api.start()
    await api.approve('r1')
    await api.liftRejection('d1')
    expect(create).toHaveBeenCalledTimes(1)
    expect(p.start).toHaveBeenCalledTimes(1)
    expect(p.approve).toHaveBeenCalledWith('r1')
    expect(p.liftRejection).toHaveBeenCalledWith('d1')
  })

  it('a chunk that cannot load does not fail the start; the next call asks for it again', async () => {
    const p = fakeRequests()
    const create = vi.fn<() => Promise<PairingRequests>>().mockRejectedValueOnce(new Error('chunk gone')).mockResolvedValue(p as unknown as PairingRequests)
    const api = lazyPairing(create)
    await expect(api.start()).resolves.toBeUndefined()
    await api.refresh()
    expect(create).toHaveBeenCalledTimes(2)
    expect(p.refresh).toHaveBeenCalledTimes(1)
  })

  it('disposed while the chunk loads: it never subscribes, and is disposed once here', async () => {
    const p = fakeRequests()
    let done!: (v: PairingRequests) => void
    const api = lazyPairing(() => new Promise<PairingRequests>((r) => (done = r)))
    const started = api.start()
    api.dispose()
    done(p as unknown as PairingRequests)
    await started
    await Promise.resolve()
    expect(p.start).not.toHaveBeenCalled()
    expect(p.dispose).toHaveBeenCalledTimes(1)
  })
})
