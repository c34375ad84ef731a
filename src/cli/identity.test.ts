// The CLI's device identity: a damaged file is replaced (the CLI must connect), but copied aside first and
// said — its private key may still be in it, and with it the pairings a new key loses. Once it was replaced
// without a word or a copy.
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { expect, it } from 'vitest'
import { tempDir } from '../../test/fixtures/temp-dir'
import { identityPath, loadOrCreateDeviceIdentity } from './identity'

it('a damaged identity is copied aside and said before a new one replaces it; a whole one loads as it is', () => {
  const stateDir = tempDir('ld-identity-')
  const warned: string[] = []
  const first = loadOrCreateDeviceIdentity(stateDir, (l) => warned.push(l))
  expect(loadOrCreateDeviceIdentity(stateDir, (l) => warned.push(l))).toEqual(first)
  expect(warned).toEqual([])
  const file = identityPath(stateDir)
  const whole = fs.readFileSync(file, 'utf8')
  const damaged = whole.slice(0, Math.floor(whole.length * 0.8)) // cut off: the private key is still readable
  fs.writeFileSync(file, damaged)
  const next = loadOrCreateDeviceIdentity(stateDir, (l) => warned.push(l))
  expect(next.deviceId).not.toBe(first.deviceId)
  expect(warned).toHaveLength(1)
  const copies = fs.readdirSync(path.dirname(file)).filter((n) => n.startsWith('device.json.corrupt-'))
  expect(copies).toHaveLength(1)
  const copy = path.join(path.dirname(file), copies[0])
  expect(warned[0]).toBe(`loopdesk: the device identity ${file} is damaged; a new one replaces it, so this CLI pairs anew (a copy was kept at ${copy})`)
  expect(fs.readFileSync(copy, 'utf8')).toBe(damaged)
  expect(fs.statSync(copy).mode & 0o777).toBe(0o600)
  expect(loadOrCreateDeviceIdentity(stateDir, (l) => warned.push(l))).toEqual(next)
  expect(warned).toHaveLength(1)
})

it.skipIf(process.platform === 'win32')('one that is no regular file (a FIFO) is replaced without a copy (copying it would wait for a writer)', () => {
  const stateDir = tempDir('ld-identity-')
  const file = identityPath(stateDir)
  fs.mkdirSync(path.dirname(file), { recursive: true })
  execFileSync('mkfifo', [file])
  const warned: string[] = []
  const id = loadOrCreateDeviceIdentity(stateDir, (l) => warned.push(l))
  expect(fs.statSync(file).isFile()).toBe(true)
  expect(loadOrCreateDeviceIdentity(stateDir)).toEqual(id)
  expect(warned).toEqual([])
  expect(fs.readdirSync(path.dirname(file)).filter((n) => n.includes('.corrupt-'))).toEqual([])
})
