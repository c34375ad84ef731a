import { describe, expect, it } from 'vitest'
import { PAIRING_REQUEST_TTL_MS, PendingPairings } from './pending-pairings'

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
    p.forgetDevice('d149')
    expect(p.list(200)[0].deviceId).toBe('d148')
  })
})
