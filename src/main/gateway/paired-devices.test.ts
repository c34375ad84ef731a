import { describe, expect, it, vi } from 'vitest'
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PairedDevices } from './paired-devices'
import { tempDir } from '../../../test/fixtures/temp-dir'

const stateDir = () => {
  const d = tempDir('loopdesk-pair-')
  mkdirSync(join(d, 'gateway'))
  return d
}

describe('PairedDevices', () => {
  it('persists pairings across restarts and binds a device id to its key', () => {
    const dir = stateDir()
    new PairedDevices(dir).pair('dev1', 'keyA', 'cli', 1000)
    const again = new PairedDevices(dir)
    expect(again.isPaired('dev1', 'keyA')).toBe(true)
    expect(again.isPaired('dev1', 'keyB')).toBe(false)
    expect(again.isPaired('dev2', 'keyA')).toBe(false)
  })

  it('survives a corrupt file and keeps at most 500 devices (least recently seen evicted)', () => {
    const dir = stateDir()
    writeFileSync(join(dir, 'gateway', 'devices.json'), '{not json')
    const p = new PairedDevices(dir)
    for (let i = 0; i < 505; i++) p.pair(`d${i}`, `k${i}`, 'x', i)
    const again = new PairedDevices(dir)
    expect(again.isPaired('d0', 'k0')).toBe(false)
    expect(again.isPaired('d4', 'k4')).toBe(false)
    expect(again.isPaired('d5', 'k5')).toBe(true)
    expect(again.isPaired('d504', 'k504')).toBe(true)
  })

  it('a damaged file (NULs, cut short, another shape) is kept as a .corrupt- copy and named before the next pairing replaces it', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    try {
      for (const damaged of ['\0'.repeat(300), '{"devices":[{"deviceId":"d","publicKey"', '[]', '{"devices":{}}']) {
        const dir = stateDir()
        writeFileSync(join(dir, 'gateway', 'devices.json'), damaged)
        warn.mockClear()
        new PairedDevices(dir).pair('new', 'key', 'cli')
        const copies = readdirSync(join(dir, 'gateway')).filter((n) => n.startsWith('devices.json.corrupt-'))
        expect(copies, JSON.stringify(damaged.slice(0, 24))).toHaveLength(1)
        expect(readFileSync(join(dir, 'gateway', copies[0]), 'utf8')).toBe(damaged)
        expect(String(warn.mock.calls[0]?.[0])).toMatch(/devices\.json is damaged; paired devices will have to pair again \(a copy was kept at .*corrupt-/)
      }
      // absent, or a valid empty list: nothing said, no copy
      for (const fine of [undefined, '{}', '{"devices":[]}']) {
        const dir = stateDir()
        if (fine !== undefined) writeFileSync(join(dir, 'gateway', 'devices.json'), fine)
        warn.mockClear()
        new PairedDevices(dir)
        expect(warn).not.toHaveBeenCalled()
        expect(readdirSync(join(dir, 'gateway')).filter((n) => n.includes('corrupt'))).toEqual([])
      }
      // a folder under the name: said, nothing copied
      const dir = stateDir()
      mkdirSync(join(dir, 'gateway', 'devices.json'))
      warn.mockClear()
      new PairedDevices(dir)
      expect(String(warn.mock.calls[0]?.[0])).toMatch(/cannot read .*devices\.json \(not a regular file\)/)
    } finally {
      warn.mockRestore()
    }
  })

  it('reports a failed save instead of throwing', () => {
    const errors: unknown[] = []
    const p = new PairedDevices(join(tmpdir(), 'no-such-dir-loopdesk', 'x'), (e) => errors.push(e))
    p.pair('d', 'k', 'cli')
    expect(errors).toHaveLength(1)
    expect(p.isPaired('d', 'k')).toBe(true)
  })

  it('keeps device tokens hashed, across restarts and re-pairing with the same key; a new key drops them', () => {
    const dir = stateDir()
    const p = new PairedDevices(dir)
    expect(p.issueToken('dev1', 'keyA', 'operator', ['operator.read'])).toBeUndefined() // not paired
    p.pair('dev1', 'keyA', 'cli', 1000)
    const issued = p.issueToken('dev1', 'keyA', 'operator', ['operator.read'], 2000)!
    expect(readFileSync(join(dir, 'gateway', 'devices.json'), 'utf8')).not.toContain(issued.token)
    p.pair('dev1', 'keyA', 'cli', 1000 + 2 * 60 * 60_000) // touch (rewrites the record)
    const again = new PairedDevices(dir)
    expect(again.verifyToken('dev1', 'keyA', 'operator', issued.token)).toMatchObject({ scopes: ['operator.read'], issuedAtMs: 2000 })
    expect(again.verifyToken('dev1', 'keyA', 'node', issued.token)).toBeUndefined()
    expect(again.verifyToken('dev1', 'keyB', 'operator', issued.token)).toBeUndefined()
    expect(again.verifyToken('dev1', 'keyA', 'operator', issued.token + 'x')).toBeUndefined()
    again.pair('dev1', 'keyB', 'cli', 5000) // same id, other key: another device
    expect(again.tokenInfo('dev1', 'operator')).toBeUndefined()
  })
})
