// Lines a full disk refused are not dropped silently when the process ends: shutdown (close) and an exit without
// one (a second SIGTERM: the 'exit' hook) give them one more synchronous try, and what even that loses is said
// in one line — how many lines and bytes of which sessions, never their content.
import fs from 'node:fs'
import path from 'node:path'
import { afterEach, expect, it, vi } from 'vitest'
import type { AgentEvent } from '../../../shared/events'
import { tempDir } from '../../../../test/fixtures/temp-dir'
import { EventLog } from './event-log'

const ev = (seq: number, delta: string, sessionKey = 'agent:main:a'): AgentEvent => ({ runId: 'r', seq, stream: 'assistant', ts: seq, data: { text: delta, delta }, sessionKey })
const full = () => Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' })
const seqs = (file: string) => fs.readFileSync(file, 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as AgentEvent).seq)

/** every async append refused, as a full disk does (the synchronous last try is left alone unless `sync`) */
function diskFull(sync = false): void {
  vi.spyOn(fs, 'write').mockImplementation(((...a: unknown[]) => (a.at(-1) as (err: Error, n: number) => void)(full(), 0)) as unknown as typeof fs.write)
  if (sync)
    vi.spyOn(fs, 'writeSync').mockImplementation(() => {
      throw full()
    })
}

afterEach(() => vi.restoreAllMocks())

it('shutdown writes the held lines with one more synchronous try once the disk has room', async () => {
  const file = path.join(tempDir('ld-evexit-'), 'sid-a.jsonl')
  const warned: string[] = []
  const log = new EventLog({ fileFor: () => file, flushMs: 10_000, retryMs: 10_000, onError: () => {}, warn: (l) => warned.push(l) })
  log.add(ev(1, 'a'))
  await log.flush()
  diskFull()
  log.add(ev(2, 'held'))
  await log.flush()
  log.add(ev(3, 'pending'))
  expect(log.heldSize()).toBeGreaterThan(0)
  // the close's own flush is refused too; the synchronous try after it gets in (room again)
  await log.close()
  vi.restoreAllMocks()
  expect(seqs(file)).toEqual([1, 2, 3])
  expect(warned).toEqual([])
})

it('what the last try cannot write either is said in one line: lines, bytes, sessions — no content', async () => {
  const dir = tempDir('ld-evexit-')
  const files: Record<string, string> = { 'agent:main:a': path.join(dir, 'sid-a.jsonl'), 'agent:main:b': path.join(dir, 'sid-b.jsonl') }
  const warned: string[] = []
  const log = new EventLog({ fileFor: (k) => files[k], flushMs: 10_000, retryMs: 10_000, onError: () => {}, warn: (l) => warned.push(l) })
  diskFull(true)
  log.add(ev(1, 'SECRET-A'))
  log.add(ev(2, 'SECRET-A2'))
  log.add(ev(1, 'SECRET-B', 'agent:main:b'))
  await log.flush()
  await log.close()
  vi.restoreAllMocks()
  expect(warned).toHaveLength(1)
  expect(warned[0]).toMatch(/lost 3 lines \(\d+ bytes\) at exit.*ENOSPC.*sid-a \(2 lines, \d+ bytes\), sid-b \(1 line, \d+ bytes\)/)
  expect(warned[0]).not.toContain('SECRET')
  expect(fs.existsSync(files['agent:main:a']) ? fs.readFileSync(files['agent:main:a'], 'utf8') : '').toBe('')
})

it('an exit without shutdown (second signal): the exit hook writes pending and held lines synchronously, once', async () => {
  const file = path.join(tempDir('ld-evexit-'), 'sid-a.jsonl')
  const warned: string[] = []
  const log = new EventLog({ fileFor: () => file, flushMs: 10_000, retryMs: 10_000, onError: () => {}, warn: (l) => warned.push(l) })
  log.add(ev(1, 'a'))
  await log.flush()
  diskFull()
  log.add(ev(2, 'held'))
  await log.flush()
  vi.restoreAllMocks()
  log.add(ev(3, 'pending, never flushed'))
  process.emit('exit', 0)
  expect(seqs(file)).toEqual([1, 2, 3])
  log.exitSync() // a second call writes nothing more
  await log.close()
  expect(seqs(file)).toEqual([1, 2, 3])
  expect(warned).toEqual([])
})
