// sessions.json that is no regular file: a folder, a FIFO, a device. Before, a FIFO hung the start in open() for
// good, a symlink to /dev/zero read until memory ran out and a folder failed with a bare "EISDIR" naming nothing;
// now each is refused naming the file, and nothing under its name is backed up, replaced or removed.
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { adoptOrphanTranscripts } from './orphan-transcripts'
import { SessionStore } from './session-store'
import { releaseAllLocksSync } from './write-lock'

let stateDir: string
let storePath: string
beforeEach(() => {
  stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ld-store-nf-'))
  storePath = new SessionStore({ stateDir, agentId: 'main' }).path
  fs.mkdirSync(path.dirname(storePath), { recursive: true })
})
afterEach(() => {
  releaseAllLocksSync()
  fs.rmSync(stateDir, { recursive: true, force: true })
})

const here = path.dirname(fileURLToPath(import.meta.url))

/** Loads the store in a child (a hang there must not hang the test run); its output. */
function loadInChild(timeoutMs: number): Promise<{ code: number | null; out: string; timedOut: boolean }> {
  const script = `
    import { SessionStore } from ${JSON.stringify(path.join(here, 'session-store.ts'))}
    const store = new SessionStore({ stateDir: ${JSON.stringify(stateDir)}, agentId: 'main' })
    try { store.list(); console.log('listed') } catch (err) { console.log('list: ' + err.message) }
    process.exit(0)
  `
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  child.stdout.on('data', (d) => (out += String(d)))
  child.stderr.on('data', (d) => (out += String(d)))
  let timedOut = false
  const timer = setTimeout(() => {
    timedOut = true
    child.kill('SIGKILL')
  }, timeoutMs)
  return new Promise((resolve) =>
    child.once('exit', (code) => {
      clearTimeout(timer)
      resolve({ code, out, timedOut })
    }),
  )
}

describe('sessions.json that is not a regular file', () => {
  it('a folder: refused naming the file, left as it is', async () => {
    fs.mkdirSync(storePath)
    fs.writeFileSync(path.join(storePath, 'inside'), 'kept')
    const store = new SessionStore({ stateDir, agentId: 'main' })
    expect(() => store.list()).toThrow(`cannot read the sessions store ${storePath}: not a regular file`)
    await expect(adoptOrphanTranscripts(store)).rejects.toThrow(storePath)
    expect(fs.readFileSync(path.join(storePath, 'inside'), 'utf8')).toBe('kept')
    expect(fs.readdirSync(path.dirname(storePath))).toEqual(['sessions.json'])
  })

  it.skipIf(process.platform === 'win32')('a FIFO or a symlink to /dev/zero: refused at once, not read forever', async () => {
    fs.symlinkSync('/dev/zero', storePath)
    let r = await loadInChild(60_000)
    expect(r.timedOut).toBe(false)
    expect(r.out).toContain(`list: cannot read the sessions store ${storePath}: not a regular file`)
    expect(fs.readlinkSync(storePath)).toBe('/dev/zero')

    fs.rmSync(storePath)
    const { execFileSync } = await import('node:child_process')
    execFileSync('mkfifo', [storePath])
    r = await loadInChild(60_000)
    expect(r.timedOut).toBe(false)
    expect(r.out).toContain(`list: cannot read the sessions store ${storePath}: not a regular file`)
    expect(fs.lstatSync(storePath).isFIFO()).toBe(true)
    expect(fs.readdirSync(path.dirname(storePath))).toEqual(['sessions.json'])
  }, 130_000)
})
