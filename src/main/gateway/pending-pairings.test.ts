import { describe, expect, it } from 'vitest'
import { MAX_REJECTED, PAIRING_REJECTION_MS, PAIRING_REQUEST_TTL_MS, PendingPairings } from './pending-pairings'

const ask = (deviceId: string, publicKey = `key-${deviceId}`) => ({
  deviceId,
  publicKey,
  clientId: 'cli',
  clientMode: 'cli',
  role: 'operator',
  scopes: ['operator.read'],
  remoteIp: '192.0.2.1',
})

describe('PendingPairings', () => {
  it('one request per device: asking again refreshes it; another key replaces it', () => {
    const p = new PendingPairings()
    const a = p.request(ask('d1'), 1000)
    expect(a.created).toBe(true)
    const again = p.request(ask('d1'), 2000)
    expect(again).toMatchObject({ created: false, request: { requestId: a.request.requestId, ts: 2000 } })
    const other = p.request(ask('d1', 'another-key'), 3000)
    expect(other.created).toBe(true)
    expect(other.request.requestId).not.toBe(a.request.requestId)
    expect(p.list(3000).map((r) => r.publicKey)).toEqual(['another-key'])
  })

  it('a request nobody answered expires; take removes what it returns', () => {
    const p = new PendingPairings()
    const a = p.request(ask('d1'), 0)
    const b = p.request(ask('d2'), 1000)
    expect(p.take(a.request.requestId, PAIRING_REQUEST_TTL_MS + 1)).toBeUndefined()
    expect(p.take(b.request.requestId, PAIRING_REQUEST_TTL_MS)).toMatchObject({ deviceId: 'd2' })
    expect(p.take(b.request.requestId, PAIRING_REQUEST_TTL_MS)).toBeUndefined()
  })

  it('a flood of identities keeps at most 100 requests, the newest', () => {
    const p = new PendingPairings()
    for (let i = 0; i < 150; i++) p.request(ask(`d${i}`), i)
    const kept = p.list(200)
    expect(kept).toHaveLength(100)
    expect(kept.at(-1)!.deviceId).toBe('d50')
    p.forgetDevice('d149', 200)
    expect(p.list(200)[0].deviceId).toBe('d148')
  })

  it('a rejected request is gone and its device is refused for PAIRING_REJECTION_MS, then may ask again', () => {
    const p = new PendingPairings()
    const a = p.request(ask('d1'), 1000)
    const other = p.request(ask('d2'), 1000)
    expect(p.reject('no-such-request', 2000)).toBeUndefined()
    expect(p.rejectedFor('d1', 2000)).toBe(0)
    expect(p.reject(a.request.requestId, 2000)).toMatchObject({ deviceId: 'd1' })
    expect(p.list(2000).map((r) => r.deviceId)).toEqual(['d2'])
    expect(p.reject(a.request.requestId, 2000)).toBeUndefined()
    expect(p.rejectedFor('d1', 2000)).toBe(PAIRING_REJECTION_MS)
    expect(p.rejectedFor('d1', 2000 + PAIRING_REJECTION_MS - 1)).toBe(1)
    expect(p.rejectedFor('d2', 2000)).toBe(0)
    expect(p.rejectedFor('d1', 2000 + PAIRING_REJECTION_MS)).toBe(0)
    // an approval or lapse is no rejection
    expect(p.take(other.request.requestId, 3000)).toMatchObject({ deviceId: 'd2' })
    expect(p.rejectedFor('d2', 3000)).toBe(0)
  })

  it('forgetDevice lifts a rejection; at most MAX_REJECTED rejections are kept, the newest', () => {
    const p = new PendingPairings(PAIRING_REQUEST_TTL_MS * 100, PAIRING_REJECTION_MS * 100)
    const rejectAt = (id: string, now: number) => p.reject(p.request(ask(id), now).request.requestId, now)
    rejectAt('d0', 0)
    expect(p.forgetDevice('d0', 1)).toEqual({ lifted: true })
    expect(p.rejectedFor('d0', 1)).toBe(0)
    expect(p.forgetDevice('d0', 1)).toEqual({ lifted: false })
    for (let i = 0; i < MAX_REJECTED + 10; i++) rejectAt(`d${i}`, i)
    expect(p.rejectedFor('d9', MAX_REJECTED + 10)).toBe(0)
    expect(p.rejectedFor('d10', MAX_REJECTED + 10)).toBeGreaterThan(0)
    expect(p.rejectedFor(`d${MAX_REJECTED + 9}`, MAX_REJECTED + 10)).toBeGreaterThan(0)
  })

  it('rejections lists the devices still refused, latest first, with what their request said and until when', () => {
    const p = new PendingPairings()
    const rejectAt = (id: string, now: number) => p.reject(p.request(ask(id), now).request.requestId, now)
    rejectAt('d1', 1000)
    rejectAt('d2', 2000)
    expect(p.rejections(2000)).toEqual([
      expect.objectContaining({ deviceId: 'd2', rejectedAtMs: 2000, untilMs: 2000 + PAIRING_REJECTION_MS, clientId: ask('d2').clientId, remoteIp: ask('d2').remoteIp }),
      expect.objectContaining({ deviceId: 'd1', rejectedAtMs: 1000, untilMs: 1000 + PAIRING_REJECTION_MS }),
    ])
    expect(p.forgetDevice('d2', 3000)).toEqual({ lifted: true })
    expect(p.rejections(3000).map((r) => r.deviceId)).toEqual(['d1'])
    rejectAt('d3', 4000)
    expect(p.rejections(1000 + PAIRING_REJECTION_MS).map((r) => r.deviceId)).toEqual(['d3'])
    // a lapsed rejection is no lift
    expect(p.forgetDevice('d1', 1000 + PAIRING_REJECTION_MS)).toEqual({ lifted: false })
  })

  it('forgetDevice drops the live request of the device and returns it (device.pair.remove answers it); a lapsed one is not returned', () => {
    const p = new PendingPairings()
    const a = p.request(ask('d1'), 1000).request
    p.request(ask('d2'), 1000)
    expect(p.forgetDevice('d1', 2000)).toEqual({ dropped: a, lifted: false })
    expect(p.list(2000).map((r) => r.deviceId)).toEqual(['d2'])
    expect(p.take(a.requestId, 2000)).toBeUndefined()
    expect(p.rejectedFor('d1', 2000)).toBe(0) // dropped, not rejected: it may ask again
    expect(p.forgetDevice('d1', 2000)).toEqual({ lifted: false })
    expect(p.forgetDevice('d2', 1000 + PAIRING_REQUEST_TTL_MS + 1)).toEqual({ lifted: false }) // lapsed: nobody is waiting on it
  })
})
