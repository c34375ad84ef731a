import { describe, expect, it } from 'vitest'
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PairedDevices } from './paired-devices'

const stateDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'loopdesk-pair-'))
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

  it('reports a failed save instead of throwing', () => {
    const errors: unknown[] = []
    const p = new PairedDevices(join(tmpdir(), 'no-such-dir-loopdesk', 'x'), (e) => errors.push(e))
    p.pair('d', 'k', 'cli')
    expect(errors).toHaveLength(1)
    expect(p.isPaired('d', 'k')).toBe(true)
  })
})
