import os from 'node:os'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { blockReason } from './net-guard'
import { isOwnAddress } from './own-addresses'

const iface = (address: string, family: 'IPv4' | 'IPv6') =>
  ({ address, family, netmask: '', mac: '00:00:00:00:00:00', internal: false, cidr: null }) as os.NetworkInterfaceInfo

describe("this machine's own addresses", () => {
  afterEach(() => vi.restoreAllMocks())

  it('matches an interface address in any IPv6 spelling, and nothing else', () => {
    const ifs = () => ({ eth0: [iface('203.0.113.7', 'IPv4'), iface('2001:db8:0:0::7', 'IPv6')] })
    expect(isOwnAddress('203.0.113.7', ifs)).toBe(true)
    expect(isOwnAddress('[2001:db8::7]', ifs)).toBe(true)
    expect(isOwnAddress('2001:DB8:0000::0007', ifs)).toBe(true)
    expect(isOwnAddress('203.0.113.8', ifs)).toBe(false)
  })

  it("web_fetch refuses the machine's public address as it refuses loopback (its 0.0.0.0 services answer there)", () => {
    expect(blockReason('8.8.4.4', {})).toBeUndefined()
    vi.spyOn(os, 'networkInterfaces').mockReturnValue({ eth0: [iface('8.8.4.4', 'IPv4')] })
    expect(blockReason('8.8.4.4', {})).toMatch(/this machine/)
    expect(blockReason('8.8.4.4', { allowLoopback: true })).toBeUndefined()
    expect(blockReason('8.8.8.8', {})).toBeUndefined()
  })
})
