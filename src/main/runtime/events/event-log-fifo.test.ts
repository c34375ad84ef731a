// A FIFO planted under a session's event-log name. The log opened it for appends with a plain open, which waits
// for a reader that never comes: the flush never settled, and every later append, close and removal queued behind
// it on the one disk chain (and at exit the synchronous last try froze the process). It is refused now as any
// file that cannot be written (only that session's Inspector history is lost), and the other sessions go on.
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import type { AgentEvent } from '../../../shared/events'
import { tempDir } from '../../../../test/fixtures/temp-dir'
import { EventLog } from './event-log'

const ev = (seq: number, sessionKey: string): AgentEvent => ({ runId: 'r', seq, stream: 'lifecycle', ts: seq, data: { phase: 'start' }, sessionKey })
const seqs = (file: string) => fs.readFileSync(file, 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as AgentEvent).seq)

/** a FIFO at `file`; `release` lets an open a plain read or append would still be parked in go (the test's cleanup) */
function plantFifo(file: string): { release(): void } {
  fs.mkdirSync(path.dirname(file), { recursive: true })
  execFileSync('mkfifo', [file])
  return {
    release() {
      for (const flags of [fs.constants.O_RDONLY, fs.constants.O_RDWR]) fs.closeSync(fs.openSync(file, flags | fs.constants.O_NONBLOCK))
    },
  }
}

describe.skipIf(process.platform === 'win32')('an event log with a FIFO under a session’s name', () => {
  it('refuses it for appends and reads; the chain and the other sessions go on', async () => {
    const dir = tempDir('ld-evfifo-')
    const files: Record<string, string> = { 'agent:main:a': path.join(dir, 'events', 'a.jsonl'), 'agent:main:b': path.join(dir, 'events', 'b.jsonl') }
    const fifo = plantFifo(files['agent:main:a'])
    const errors: string[] = []
    const log = new EventLog({ fileFor: (k) => files[k], flushMs: 10_000, onError: (e) => errors.push((e as NodeJS.ErrnoException).code ?? String(e)) })
    try {
      log.add(ev(1, 'agent:main:a'))
      log.add(ev(1, 'agent:main:b'))
      await log.flush()
      expect(errors).toEqual([expect.stringMatching(/^(ENXIO|EFTYPE)$/)])
      expect(seqs(files['agent:main:b'])).toEqual([1])
      expect(await log.read('agent:main:a', 10)).toEqual([])
      log.add(ev(2, 'agent:main:b'))
      await log.close()
      expect(seqs(files['agent:main:b'])).toEqual([1, 2])
      expect(fs.lstatSync(files['agent:main:a']).isFIFO()).toBe(true)
    } finally {
      fifo.release()
    }
  })

  it('the synchronous last try at exit refuses it too, and says what it lost, instead of writing into the pipe', () => {
    const file = path.join(tempDir('ld-evfifo-'), 'sid-a.jsonl')
    const fifo = plantFifo(file)
    // a reader holds the FIFO open: a plain append opened at once and the lines vanished into the pipe unsaid
    const reader = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK)
    const warned: string[] = []
    const log = new EventLog({ fileFor: () => file, flushMs: 10_000, onError: () => {}, warn: (l) => warned.push(l) })
    try {
      log.add(ev(1, 'agent:main:a'))
      log.add(ev(2, 'agent:main:a'))
      log.exitSync()
      expect(warned).toHaveLength(1)
      expect(warned[0]).toMatch(/lost 2 lines .*EFTYPE.*sid-a \(2 lines/)
    } finally {
      fs.closeSync(reader)
      fifo.release()
    }
  })
})
