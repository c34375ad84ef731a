// An append the disk refuses part-way (ENOSPC after some bytes) is cut back off the file: no torn line is left
// for the next append to be glued onto — which would lose that append's first event as well.
import fs from 'node:fs'
import path from 'node:path'
import { afterEach, expect, it, vi } from 'vitest'
import type { AgentEvent } from '../../../shared/events'
import { tempDir } from '../../../../test/fixtures/temp-dir'
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
  expect(lines.map((l) => (JSON.parse(l) as AgentEvent).seq)).toEqual([1, 3])
})
