import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import type { AgentEvent } from '../../../shared/events'
import { startModelServer, type ModelServer } from '../../../../test/fixtures/model-server'
import { tempDir } from '../../../../test/fixtures/temp-dir'
import { startTestRuntime } from '../../../../test/fixtures/test-runtime'
import { EventLog } from './event-log'

const ev = (runId: string, seq: number, stream: AgentEvent['stream'], data: Record<string, unknown>): AgentEvent => ({ runId, seq, stream, ts: seq, data, sessionKey: 'agent:main:a' })

describe('EventLog', () => {
  it('keeps a session’s events on disk, without repeating cumulative text, and gives them back whole', async () => {
    const dir = tempDir('ld-evlog-')
    const file = path.join(dir, 'events', 's1.jsonl')
    const log = new EventLog({ fileFor: (k) => (k === 'agent:main:a' ? file : undefined), flushMs: 10_000 })
    log.add(ev('r1', 1, 'lifecycle', { phase: 'start', startedAt: 1 }))
    log.add(ev('r1', 2, 'assistant', { text: 'Hel', delta: 'Hel' }))
    log.add(ev('r1', 3, 'assistant', { text: 'Hello', delta: 'lo' }))
    log.add(ev('r1', 4, 'thinking', { text: 'hm', delta: 'hm' }))
    log.add({ ...ev('r9', 1, 'lifecycle', { phase: 'start' }), sessionKey: 'agent:main:unknown' }) // no file: not kept
    expect(fs.existsSync(file)).toBe(false) // written by the timer (or flush)
    log.add(ev('r1', 5, 'lifecycle', { phase: 'end', endedAt: 5 }))
    await log.flush()
    const raw = fs.readFileSync(file, 'utf8')
    expect(raw).not.toContain('"text":"Hello"')
    expect(raw.trim().split('\n')).toHaveLength(5)
    expect((fs.statSync(file).mode & 0o777).toString(8)).toBe('600')
    const back = await log.read('agent:main:a', 100)
    expect(back.map((e) => [e.seq, e.stream, e.data.text])).toEqual([
      [1, 'lifecycle', undefined],
      [2, 'assistant', 'Hel'],
      [3, 'assistant', 'Hello'],
      [4, 'thinking', 'hm'],
      [5, 'lifecycle', undefined],
    ])
    expect((await log.read('agent:main:a', 2)).map((e) => e.seq)).toEqual([4, 5])
    // a torn last line (a crash mid-append) is skipped
    fs.appendFileSync(file, '{"runId":"r2","seq":1,"str')
    expect(await log.read('agent:main:a', 100)).toHaveLength(5)
    await log.remove(file)
    expect(fs.existsSync(file)).toBe(false)
    expect(await log.read('agent:main:a', 100)).toEqual([])
  })

  it('a taken-back text (assistant `replace`, think-tag-text.ts) reads back as taken back, not as the text before it', async () => {
    const dir = tempDir('ld-evlog-')
    const file = path.join(dir, 'events', 's1.jsonl')
    const log = new EventLog({ fileFor: () => file, flushMs: 10_000 })
    log.add(ev('r1', 1, 'assistant', { text: 'plan', delta: 'plan' }))
    log.add(ev('r1', 2, 'assistant', { text: '', delta: '', replace: true }))
    log.add(ev('r1', 3, 'assistant', { text: '42', delta: '42' }))
    await log.flush()
    expect((await log.read('agent:main:a', 100)).map((e) => e.data.text)).toEqual(['plan', '', '42'])
  })

  it('a run’s second message (after a tool) reads back with its own text, as the ring has it, not the first one’s + its own', async () => {
    const dir = tempDir('ld-evlog-')
    const file = path.join(dir, 'events', 's1.jsonl')
    const log = new EventLog({ fileFor: () => file, flushMs: 10_000 })
    const emitted = [
      ev('r1', 1, 'assistant', { text: 'Let me look', delta: 'Let me look' }),
      ev('r1', 2, 'tool', { phase: 'start', name: 'read', toolCallId: 't1' }),
      ev('r1', 3, 'tool', { phase: 'result', name: 'read', toolCallId: 't1' }),
      ev('r1', 4, 'thinking', { text: 'so', delta: 'so' }),
      ev('r1', 5, 'assistant', { text: 'Fo', delta: 'Fo' }),
      ev('r1', 6, 'assistant', { text: 'Found', delta: 'und' }),
      ev('r1', 7, 'thinking', { text: 'next', delta: 'next' }), // a new reasoning block: no tool in between
    ]
    for (const e of emitted) log.add(e)
    await log.flush()
    expect((await log.read('agent:main:a', 100)).map((e) => e.data)).toEqual(emitted.map((e) => e.data))
  })

  it('a disk slower than the interval gets one append at a time, each with everything pending, not a backlog of ticks', async () => {
    const dir = tempDir('ld-evlog-')
    const file = path.join(dir, 's.jsonl')
    const log = new EventLog({ fileFor: () => file, flushMs: 5 })
    const real = fs.write
    let appends = 0
    const spy = vi.spyOn(fs, 'write').mockImplementation(((...args: unknown[]) => {
      appends++
      setTimeout(() => (real as (...a: unknown[]) => void)(...args), 100)
    }) as typeof fs.write)
    try {
      // ~200 ms of events, one every 5 ms: 40 ticks' worth
      for (let i = 1; i <= 40; i++) {
        log.add(ev('r1', i, 'assistant', { text: '', delta: `${i} ` }))
        await new Promise((r) => setTimeout(r, 5))
      }
      await log.close()
    } finally {
      spy.mockRestore()
    }
    expect(appends).toBeGreaterThan(0)
    expect(appends).toBeLessThanOrEqual(5)
    expect((await log.read('agent:main:a', 100)).map((e) => e.seq)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1))
  })

  it('a file past its bound keeps its newest half', async () => {
    const dir = tempDir('ld-evlog-')
    const file = path.join(dir, 's.jsonl')
    const log = new EventLog({ fileFor: () => file, maxFileBytes: 20_000 })
    for (let run = 0; run < 60; run++) {
      log.add(ev(`r${run}`, 1, 'lifecycle', { phase: 'start', note: 'x'.repeat(200) }))
      log.add(ev(`r${run}`, 2, 'lifecycle', { phase: 'end', note: 'y'.repeat(200) }))
      await log.flush()
    }
    expect(fs.statSync(file).size).toBeLessThanOrEqual(20_000)
    const back = await log.read('agent:main:a', 10_000)
    expect(back.at(-1)).toMatchObject({ runId: 'r59', seq: 2 })
    expect(back.length).toBeGreaterThan(20)
    expect(back.length).toBeLessThan(120)
  })

  it('a file far past its bound (its trim failed) is read from its tail only', async () => {
    const dir = tempDir('ld-evlog-')
    const file = path.join(dir, 's.jsonl')
    const lines = Array.from({ length: 3000 }, (_, i) => JSON.stringify(ev(`r${i}`, 1, 'lifecycle', { phase: 'end', pad: 'z'.repeat(100) })))
    fs.writeFileSync(file, lines.join('\n') + '\n')
    const log = new EventLog({ fileFor: () => file, maxFileBytes: 50_000 })
    const back = await log.read('agent:main:a', 100_000)
    expect(back.at(-1)!.runId).toBe('r2999')
    expect(back.length).toBeGreaterThan(400) // ~100 KB of ~210-byte lines
    expect(back.length).toBeLessThan(550)
    expect(back.every((e) => e.stream === 'lifecycle')).toBe(true) // no torn first line
  })

  it('a streaming session’s file stays open between appends, and is closed once it has been idle', async () => {
    const dir = tempDir('ld-evlog-')
    const file = path.join(dir, 's.jsonl')
    const log = new EventLog({ fileFor: () => file, flushMs: 10_000, idleCloseMs: 150 })
    const opens = vi.spyOn(fs, 'open')
    try {
      for (let i = 1; i <= 5; i++) {
        log.add(ev('r1', i, 'assistant', { text: '', delta: `${i} ` }))
        await log.flush()
      }
      expect(opens).toHaveBeenCalledTimes(1)
      expect(log.openFiles()).toEqual([file])
      if (process.platform === 'linux') expect(openFds(file)).toBe(1)
      await new Promise((r) => setTimeout(r, 450)) // the idle pass runs at most two idle periods later
      expect(log.openFiles()).toEqual([])
      if (process.platform === 'linux') expect(openFds(file)).toBe(0)
      // the next event opens it again and appends after what is there
      log.add(ev('r1', 6, 'lifecycle', { phase: 'end' }))
      await log.flush()
      expect(opens).toHaveBeenCalledTimes(2)
      expect((await log.read('agent:main:a', 100)).map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6])
    } finally {
      opens.mockRestore()
      await log.close()
    }
    expect(log.openFiles()).toEqual([]) // shutdown closes everything
  })

  it('a session’s file removed while open is not written through its old descriptor', async () => {
    const dir = tempDir('ld-evlog-')
    const file = path.join(dir, 'events', 's.jsonl')
    const log = new EventLog({ fileFor: () => file, flushMs: 10_000 })
    log.add(ev('r1', 1, 'lifecycle', { phase: 'start' }))
    await log.flush()
    expect(log.openFiles()).toEqual([file])
    // queued behind an append still being written: the remove waits for it, then closes and deletes
    log.add(ev('r1', 2, 'lifecycle', { phase: 'end' }))
    void log.flush()
    await log.remove(file)
    expect(fs.existsSync(file)).toBe(false)
    expect(log.openFiles()).toEqual([])
    // the same path written again (a session that reuses it): a new file holds the new line
    log.add(ev('r2', 1, 'lifecycle', { phase: 'start' }))
    await log.flush()
    expect(fs.readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l).runId)).toEqual(['r2'])
    await log.close()
  })

  it('keeps at most maxOpenFiles files open, closing the least recently written one', async () => {
    const dir = tempDir('ld-evlog-')
    const log = new EventLog({ fileFor: (k) => path.join(dir, `${k}.jsonl`), flushMs: 10_000, maxOpenFiles: 3 })
    for (let round = 1; round <= 2; round++) {
      for (let s = 0; s < 8; s++) log.add({ ...ev(`r${s}`, round, 'lifecycle', { phase: 'start' }), sessionKey: `s${s}` })
      await log.flush()
      expect(log.openFiles()).toEqual(['s5', 's6', 's7'].map((k) => path.join(dir, `${k}.jsonl`)))
    }
    for (let s = 0; s < 8; s++) expect((await log.read(`s${s}`, 10)).map((e) => e.seq)).toEqual([1, 2])
    await log.close()
    expect(log.openFiles()).toEqual([])
  })

  it('a file that cannot be written is reported, and nothing throws', async () => {
    const dir = tempDir('ld-evlog-')
    fs.writeFileSync(path.join(dir, 'events'), 'a file where the directory should be')
    const errors: unknown[] = []
    const log = new EventLog({ fileFor: () => path.join(dir, 'events', 's.jsonl'), onError: (e) => errors.push(e) })
    log.add(ev('r1', 1, 'lifecycle', { phase: 'end' }))
    await log.flush()
    expect(errors).toHaveLength(1)
  })
})

/** How many of this process's descriptors name `file` (Linux: /proc/self/fd). */
function openFds(file: string): number {
  let n = 0
  for (const fd of fs.readdirSync('/proc/self/fd')) {
    try {
      if (fs.readlinkSync(`/proc/self/fd/${fd}`) === file) n++
    } catch {
      // closed between the listing and the look
    }
  }
  return n
}

describe('the Inspector’s events after a restart (loopdesk.events.recent)', () => {
  let server: ModelServer
  beforeAll(async () => {
    server = await startModelServer()
  })
  afterAll(async () => {
    await server.close()
  })

  it('a run before the restart is still there, text rebuilt; reset and delete drop the log', async () => {
    const stateDir = tempDir('ld-evlog-rt-')
    const key = 'agent:main:persist'
    let rt = await startTestRuntime(server, { stateDir })
    server.push({ text: 'Hello from before the restart', chunks: 4 })
    const { runId } = await rt.call('agent', { message: 'hi', idempotencyKey: 'before-1', sessionKey: key })
    await rt.call('agent.wait', { runId, timeoutMs: 10_000 })
    const before = (await rt.call('loopdesk.events.recent', { sessionKey: key })).events
    await rt.close()

    rt = await startTestRuntime(server, { stateDir })
    try {
      const after = (await rt.call('loopdesk.events.recent', { sessionKey: key })).events
      expect(after.map((e) => [e.runId, e.seq, e.stream])).toEqual(before.map((e) => [e.runId, e.seq, e.stream]))
      const lastText = after.filter((e) => e.stream === 'assistant').at(-1)!.data.text
      expect(lastText).toBe('Hello from before the restart')
      // a new run: the old one from the log, the new one from memory
      server.push({ text: 'and after', chunks: 2 })
      const second = await rt.call('agent', { message: 'again', idempotencyKey: 'after-1', sessionKey: key })
      await rt.call('agent.wait', { runId: second.runId, timeoutMs: 10_000 })
      const both = (await rt.call('loopdesk.events.recent', { sessionKey: key })).events
      expect([...new Set(both.map((e) => e.runId))]).toEqual([runId, second.runId])
      expect(both.filter((e) => e.runId === runId)).toHaveLength(before.length)
      // a reset starts a new conversation: its Inspector starts empty, and the old log is gone
      const sessionId = (await rt.call('sessions.list', {})).sessions.find((s) => s.key === key)!.sessionId!
      const logFile = path.join(stateDir, 'agents', 'main', 'events', `${sessionId}.jsonl`)
      await rt.runtime.core.eventLog.flush()
      expect(fs.existsSync(logFile)).toBe(true)
      await rt.call('sessions.reset', { key })
      expect(fs.existsSync(logFile)).toBe(false)
      expect((await rt.call('loopdesk.events.recent', { sessionKey: key })).events).toEqual([])
      // and deleting the session drops its new log too
      const third = await rt.call('agent', { message: 'once more', idempotencyKey: 'after-2', sessionKey: key })
      await rt.call('agent.wait', { runId: third.runId, timeoutMs: 10_000 })
      await rt.runtime.core.eventLog.flush()
      const newId = (await rt.call('sessions.list', {})).sessions.find((s) => s.key === key)!.sessionId!
      const newLog = path.join(stateDir, 'agents', 'main', 'events', `${newId}.jsonl`)
      expect(fs.existsSync(newLog)).toBe(true)
      await rt.call('sessions.delete', { key })
      expect(fs.existsSync(newLog)).toBe(false)
    } finally {
      await rt.close()
    }
  })

  it('archiving a session closes its open log file (and keeps it); shutdown closes the rest', async () => {
    const stateDir = tempDir('ld-evlog-rt-')
    const rt = await startTestRuntime(server, { stateDir })
    try {
      for (const key of ['agent:main:kept', 'agent:main:other']) {
        server.push({ text: 'streamed', chunks: 3 })
        const { runId } = await rt.call('agent', { message: 'hi', idempotencyKey: `arch-${key}`, sessionKey: key })
        await rt.call('agent.wait', { runId, timeoutMs: 10_000 })
      }
      await rt.runtime.core.eventLog.flush()
      const sessions = (await rt.call('sessions.list', {})).sessions
      const fileOf = (key: string) => path.join(stateDir, 'agents', 'main', 'events', `${sessions.find((s) => s.key === key)!.sessionId}.jsonl`)
      expect(rt.runtime.core.eventLog.openFiles().sort()).toEqual([fileOf('agent:main:kept'), fileOf('agent:main:other')].sort())
      await rt.call('sessions.patch', { key: 'agent:main:kept', archived: true })
      expect(rt.runtime.core.eventLog.openFiles()).toEqual([fileOf('agent:main:other')])
      expect(fs.existsSync(fileOf('agent:main:kept'))).toBe(true)
    } finally {
      await rt.close()
    }
    expect(rt.runtime.core.eventLog.openFiles()).toEqual([])
  })
})
