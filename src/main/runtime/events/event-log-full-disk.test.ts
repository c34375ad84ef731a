// An append the disk refuses part-way (ENOSPC after some bytes) is cut back off the file: no torn line is left
// for the next append to be glued onto — which would lose that append's first event as well.
import fs from 'node:fs'
import path from 'node:path'
import { afterEach, expect, it, vi } from 'vitest'
import type { AgentEvent } from '../../../shared/events'
import { tempDir } from '../../../../test/fixtures/temp-dir'
import { readPartialReply } from '../runner/partial-reply'
import { EventLog } from './event-log'

const ev = (seq: number, delta: string): AgentEvent => ({ runId: 'r', seq, stream: 'assistant', ts: seq, data: { text: delta, delta }, sessionKey: 'agent:main:a' })

afterEach(() => vi.restoreAllMocks())

it('a part-way failed append leaves the file as it was; the next one follows whole', async () => {
  const file = path.join(tempDir('ld-evfull-'), 's.jsonl')
  const errors: unknown[] = []
  const log = new EventLog({ fileFor: () => file, flushMs: 10_000, onError: (e) => errors.push(e) })
  log.add(ev(1, 'first'))
  await log.flush()
  const before = fs.readFileSync(file, 'utf8')
  let room = 40
  const real = fs.write
  vi.spyOn(fs, 'write').mockImplementation(((fd: number, buf: Buffer, off: number, len: number, pos: null, cb: (err: Error | null, n: number) => void) => {
    if (room <= 0) return cb(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }), 0)
    const n = Math.min(len, room)
    room -= n
    return (real as (...a: unknown[]) => void)(fd, buf, off, n, pos, cb)
  }) as unknown as typeof fs.write)
  log.add(ev(2, 'x'.repeat(500)))
  await log.flush()
  vi.restoreAllMocks()
  expect(errors).toHaveLength(1)
  expect(fs.readFileSync(file, 'utf8')).toBe(before)
  log.add(ev(3, 'after'))
  await log.close()
  const lines = fs.readFileSync(file, 'utf8').trim().split('\n')
  // the refused line was held (ENOSPC) and goes in first once there is room
  expect(lines.map((l) => (JSON.parse(l) as AgentEvent).seq)).toEqual([1, 2, 3])
})

/** fs.write refuses whole writes with `code` for the next `times` calls, then writes again. */
function refuseWrites(times: number, code = 'ENOSPC'): void {
  const real = fs.write
  vi.spyOn(fs, 'write').mockImplementation(((fd: number, buf: Buffer, off: number, len: number, pos: null, cb: (err: Error | null, n: number) => void) => {
    if (times-- > 0) return cb(Object.assign(new Error(`${code}: no space left on device, write`), { code }), 0)
    return (real as (...a: unknown[]) => void)(fd, buf, off, len, pos, cb)
  }) as unknown as typeof fs.write)
}

const seqs = (file: string) => fs.readFileSync(file, 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as AgentEvent).seq)

it('lines a full disk refused are held and written first, in order, once there is room: no gap', async () => {
  const file = path.join(tempDir('ld-evfull-'), 's.jsonl')
  const errors: unknown[] = []
  const log = new EventLog({ fileFor: () => file, flushMs: 10_000, retryMs: 10_000, onError: (e) => errors.push(e) })
  log.add(ev(1, 'a'))
  await log.flush()
  refuseWrites(3)
  for (let seq = 2; seq <= 4; seq++) {
    log.add(ev(seq, 'x'.repeat(100)))
    await log.flush() // refused: ENOSPC
  }
  expect(errors).toHaveLength(3)
  expect(log.heldSize()).toBeGreaterThan(300)
  log.add(ev(5, 'b'))
  await log.flush() // room again
  expect(log.heldSize()).toBe(0)
  await log.close()
  expect(seqs(file)).toEqual([1, 2, 3, 4, 5])
})

it('held lines are retried without new events (EDQUOT too); a removed file takes its held lines with it', async () => {
  const dir = tempDir('ld-evfull-')
  const files: Record<string, string> = { 'agent:main:a': path.join(dir, 'a.jsonl'), 'agent:main:b': path.join(dir, 'b.jsonl') }
  const log = new EventLog({ fileFor: (k) => files[k], flushMs: 10_000, retryMs: 20, onError: () => {} })
  refuseWrites(2, 'EDQUOT')
  log.add(ev(1, 'one'))
  log.add({ ...ev(1, 'gone'), sessionKey: 'agent:main:b' })
  await log.flush() // both refused
  await log.remove(files['agent:main:b'])
  await vi.waitFor(() => expect(log.heldSize()).toBe(0), { timeout: 2_000, interval: 20 })
  await log.close()
  expect(seqs(files['agent:main:a'])).toEqual([1])
  expect(fs.existsSync(files['agent:main:b'])).toBe(false)
})

it('past the bound the oldest held lines are dropped: the log has the gap recovery stops at, as before', async () => {
  const file = path.join(tempDir('ld-evfull-'), 's.jsonl')
  const log = new EventLog({ fileFor: () => file, flushMs: 10_000, retryMs: 10_000, maxHeldBytes: 700, onError: () => {} })
  log.add(ev(1, 'a'))
  await log.flush()
  refuseWrites(4)
  for (let seq = 2; seq <= 5; seq++) {
    log.add(ev(seq, 'x'.repeat(200))) // ~300 bytes a line: only the newest two fit
    await log.flush()
  }
  expect(log.heldSize()).toBeLessThanOrEqual(700)
  log.add(ev(6, 'b'))
  await log.close()
  expect(seqs(file)).toEqual([1, 4, 5, 6])
})

it('a write that fails otherwise (not a full disk) drops its lines, as before', async () => {
  const file = path.join(tempDir('ld-evfull-'), 's.jsonl')
  const log = new EventLog({ fileFor: () => file, flushMs: 10_000, retryMs: 10_000, onError: () => {} })
  log.add(ev(1, 'a'))
  await log.flush()
  refuseWrites(1, 'EIO')
  log.add(ev(2, 'lost'))
  await log.flush()
  expect(log.heldSize()).toBe(0)
  log.add(ev(3, 'b'))
  await log.close()
  expect(seqs(file)).toEqual([1, 3])
})

it('a 200 KB reply streamed while the disk was full for a while comes back whole to recovery', async () => {
  const file = path.join(tempDir('ld-evfull-'), 's.jsonl')
  const log = new EventLog({ fileFor: () => file, flushMs: 10_000, retryMs: 10_000, onError: () => {} })
  const chunk = (i: number) => String(i % 10).repeat(2_000)
  let text = ''
  log.add({ runId: 'r', seq: 1, stream: 'lifecycle', ts: 1, data: { phase: 'start' }, sessionKey: 'agent:main:a' })
  for (let i = 0; i < 100; i++) {
    if (i === 25) refuseWrites(50) // full from a quarter of the reply on, for half of it
    text += chunk(i)
    log.add({ runId: 'r', seq: i + 2, stream: 'assistant', ts: i + 2, data: { text, delta: chunk(i) }, sessionKey: 'agent:main:a' })
    await log.flush()
  }
  await log.close()
  const back = readPartialReply(file, 'r')
  expect(back?.text.length).toBe(200_000)
  expect(back?.text).toBe(text)
})

it('while lines are held the timer does not try the disk each tick, events streaming meanwhile: they join them until the retry', async () => {
  const file = path.join(tempDir('ld-evfull-'), 's.jsonl')
  const log = new EventLog({ fileFor: () => file, flushMs: 5, retryMs: 200, onError: () => {} })
  let seq = 1
  let refusals = 0
  let fullUntil = Infinity
  const real = fs.write
  vi.spyOn(fs, 'write').mockImplementation(((fd: number, buf: Buffer, off: number, len: number, pos: null, cb: (err: Error | null, n: number) => void) => {
    if (Date.now() < fullUntil) {
      refusals++
      log.add(ev(++seq, 'streaming')) // the reply goes on while the disk refuses its lines
      return setTimeout(() => cb(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }), 0), 2)
    }
    return (real as (...a: unknown[]) => void)(fd, buf, off, len, pos, cb)
  }) as unknown as typeof fs.write)
  fullUntil = Date.now() + 120
  log.add(ev(1, 'a'))
  await log.flush() // refused
  await new Promise((r) => setTimeout(r, 100)) // twenty ticks' time
  expect(refusals).toBe(1) // not tried again before retryMs
  expect(log.heldSize()).toBeGreaterThan(0)
  await vi.waitFor(() => expect(log.heldSize()).toBe(0), { timeout: 2_000, interval: 10 }) // the retry, with room again
  await log.close()
  expect(seqs(file)).toEqual(Array.from({ length: seq }, (_, i) => i + 1))
})

it('a trim the disk refuses (the file past its bound) does not hold the lines already appended: none is written twice', async () => {
  const file = path.join(tempDir('ld-evfull-'), 's.jsonl')
  const errors: string[] = []
  const log = new EventLog({ fileFor: () => file, flushMs: 10_000, maxFileBytes: 1300, onError: (e) => errors.push((e as NodeJS.ErrnoException).code ?? String(e)) })
  for (let seq = 1; seq <= 6; seq++) log.add(ev(seq, `part ${seq} `.padEnd(100, '.')))
  await log.flush()
  expect(fs.statSync(file).size).toBeLessThanOrEqual(1300) // under the bound: not trimmed yet
  // the next append takes the file past its bound: the trim's new copy (a synchronous temp-file write) is refused
  vi.spyOn(fs, 'writeSync').mockImplementation(() => {
    throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' })
  })
  for (let seq = 7; seq <= 8; seq++) log.add(ev(seq, `part ${seq} `.padEnd(100, '.')))
  await log.flush()
  vi.restoreAllMocks()
  expect(errors).toEqual(['ENOSPC'])
  log.add(ev(9, 'after'))
  await log.close()
  const seqs = fs.readFileSync(file, 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as AgentEvent).seq)
  expect(new Set(seqs).size).toBe(seqs.length)
  expect(seqs).toEqual([...seqs].sort((a, b) => a - b))
  expect(seqs.at(-1)).toBe(9)
  expect(fs.statSync(file).size).toBeLessThanOrEqual(1300) // trimmed once the disk took it
})
