// Recovery of a run a crash cut off, on the on-disk state a kill -9 leaves (transcript, sessions.json, the
// Inspector's event log): the reply as far as it had streamed is kept as an interrupted assistant message,
// timed by the run's last logged event. The real SIGKILL cases are in ../kill9.test.ts.
import fs from 'node:fs'
import path from 'node:path'
import { beforeEach, describe, expect, it } from 'vitest'
import { tempDir } from '../../../../test/fixtures/temp-dir'
import type { TranscriptEntry } from '../contracts'
import { EventLog } from '../events/event-log'
import { SessionStore, Transcript } from '../sessions'
import { readPartialReply } from './partial-reply'
import { INTERRUPTED_INCOMPLETE, INTERRUPTED_PARTIAL, INTERRUPTED_UNANSWERED, recoverInterruptedRuns } from './recovery'

const KEY = 'agent:main:crash'
// a run's events carry consecutive seq numbers, as the bus numbers them
const seqs = new Map<string, number>()
// each test's runs start at seq 1, as a real run does (a first line past 1 is a start the trim took)
beforeEach(() => seqs.clear())
const ev = (runId: string, stream: string, ts: number, data: Record<string, unknown>) => {
  const seq = (seqs.get(runId) ?? 0) + 1
  seqs.set(runId, seq)
  return JSON.stringify({ runId, seq, stream, ts, data, sessionKey: KEY })
}
const user = (runId: string, text: string, ts: number): TranscriptEntry => ({
  type: 'message',
  id: `${runId}-u`,
  timestamp: ts,
  runId,
  message: { role: 'user', content: [{ type: 'text', text }], timestamp: ts },
})

async function crashedSession(status: 'running' | 'done', entries: TranscriptEntry[], events: string[]) {
  const stateDir = tempDir('ld-recovery-')
  const store = new SessionStore({ stateDir, agentId: 'main' })
  await store.update(KEY, () => ({ sessionId: 'sid', createdAt: 1, updatedAt: 1, status, ...(status === 'running' ? { activeRunId: 'r1' } : {}) }))
  const t = new Transcript(store.transcriptPath('sid'))
  await t.ensureHeader({ type: 'session', version: 1, id: 'sid', timestamp: new Date().toISOString(), cwd: '/w', sessionKey: KEY })
  await t.appendMany(entries)
  const eventsFile = path.join(stateDir, 'events', 'sid.jsonl')
  fs.mkdirSync(path.dirname(eventsFile), { recursive: true })
  fs.writeFileSync(eventsFile, events.join('\n') + '\n')
  return { store, t, eventsFile: () => eventsFile }
}

describe('partial reply from the event log', () => {
  it('rebuilds the streaming message: deltas joined, a replacement taken whole, text before a tool dropped, a torn line and other runs skipped', () => {
    const file = path.join(tempDir('ld-partial-'), 'e.jsonl')
    fs.writeFileSync(
      file,
      [
        ev('r1', 'lifecycle', 100, { phase: 'start' }),
        ev('r1', 'assistant', 110, { delta: 'Before the tool.' }),
        ev('r1', 'tool', 120, { phase: 'start', toolCallId: 'c' }),
        ev('r1', 'tool', 130, { phase: 'result', toolCallId: 'c' }),
        ev('r2', 'assistant', 135, { delta: 'other run' }),
        ev('r1', 'assistant', 140, { delta: '<think>x' }),
        ev('r1', 'assistant', 150, { replace: true, text: '', delta: '' }),
        ev('r1', 'assistant', 160, { delta: 'After ' }),
        ev('r1', 'assistant', 170, { delta: 'it' }),
        '{"runId":"r1","seq":9,"stream":"assistant","ts":180,"data":{"delta":" and more',
      ].join('\n'),
    )
    expect(readPartialReply(file, 'r1')).toEqual({ text: 'After it', textStartedAt: 160, startedAt: 100, lastAt: 170 })
    expect(readPartialReply(file, 'nope')).toBeUndefined()
    expect(readPartialReply(file + '.missing', 'r1')).toBeUndefined()
  })

  it('a gap in the run\'s seq (appends lost) ends the known text; a later tool event starts a whole message again', () => {
    const file = path.join(tempDir('ld-partial-'), 'e.jsonl')
    const line = (seq: number, stream: string, data: Record<string, unknown>) => JSON.stringify({ runId: 'g', seq, stream, ts: 100 + seq, data, sessionKey: KEY })
    const head = [line(1, 'lifecycle', { phase: 'start' }), line(2, 'assistant', { delta: 'kept ' }), line(3, 'assistant', { delta: 'whole' })]
    fs.writeFileSync(file, [...head, line(7, 'assistant', { delta: ' lost middle' })].join('\n'))
    expect(readPartialReply(file, 'g')).toMatchObject({ text: 'kept whole', lastAt: 107, incomplete: true })
    fs.writeFileSync(file, [...head, line(7, 'tool', { phase: 'result', toolCallId: 'c' }), line(8, 'assistant', { delta: 'next message' })].join('\n'))
    expect(readPartialReply(file, 'g')).toMatchObject({ text: 'next message', lastAt: 108 })
  })
})

describe('partial reply from a trimmed event log', () => {
  const line = (seq: number, stream: string, data: Record<string, unknown>) => JSON.stringify({ runId: 't', seq, stream, ts: 100 + seq, data, sessionKey: KEY })

  it("the run's first line left is not its seq 1 (the trim took its start): no text that starts mid-way, marked incomplete", () => {
    const file = path.join(tempDir('ld-partial-'), 'e.jsonl')
    fs.writeFileSync(file, [line(40, 'assistant', { delta: 'middle of the ' }), line(41, 'assistant', { delta: 'reply' })].join('\n'))
    expect(readPartialReply(file, 't')).toMatchObject({ text: '', incomplete: true, lastAt: 141 })
    expect(readPartialReply(file, 't')?.startedAt).toBeUndefined()
  })

  it('a tool event after the trimmed start begins a whole message again: not incomplete', () => {
    const file = path.join(tempDir('ld-partial-'), 'e.jsonl')
    fs.writeFileSync(file, [line(40, 'assistant', { delta: 'lost start' }), line(41, 'tool', { phase: 'result', toolCallId: 'c' }), line(42, 'assistant', { delta: 'whole' })].join('\n'))
    const back = readPartialReply(file, 't')
    expect(back).toMatchObject({ text: 'whole', lastAt: 142 })
    expect(back?.incomplete).toBeUndefined()
  })

  it('a run whose start is still in the log is whole, not incomplete', () => {
    const file = path.join(tempDir('ld-partial-'), 'e.jsonl')
    fs.writeFileSync(file, [line(1, 'lifecycle', { phase: 'start' }), line(2, 'assistant', { delta: 'all of it' })].join('\n'))
    const back = readPartialReply(file, 't')
    expect(back).toMatchObject({ text: 'all of it', startedAt: 101 })
    expect(back?.incomplete).toBeUndefined()
  })

  it('recovery after the size cap trimmed the log mid-run: the reply says part of its text was not saved, never a tail as if whole', async () => {
    const stateDir = tempDir('ld-trimmed-')
    const eventsFile = path.join(stateDir, 'events', 'sid.jsonl')
    // the real writer and its trim (newest half past maxFileBytes), a long reply streaming into it
    const log = new EventLog({ fileFor: () => eventsFile, maxFileBytes: 4_096, flushMs: 10_000 })
    let text = ''
    log.add({ runId: 'r1', seq: 1, stream: 'lifecycle', ts: 1001, data: { phase: 'start' }, sessionKey: KEY })
    for (let i = 0; i < 60; i++) {
      const delta = `word${i} `
      text += delta
      log.add({ runId: 'r1', seq: i + 2, stream: 'assistant', ts: 1100 + i, data: { text, delta }, sessionKey: KEY })
      await log.flush()
    }
    await log.close()
    const kept = fs.readFileSync(eventsFile, 'utf8')
    expect(kept).not.toContain('"phase":"start"') // the trim took the run's start
    const s = await crashedSession('running', [user('r1', 'tell me', 1000)], kept.trim().split('\n'))
    await recoverInterruptedRuns(s.store, { eventsFile: s.eventsFile })
    const closing = (await s.t.readAll()).entries.find((e) => e.type === 'message' && e.message.role === 'assistant')
    expect(closing).toMatchObject({ runId: 'r1', timestamp: 1159, message: { content: [], stopReason: 'error', errorMessage: INTERRUPTED_INCOMPLETE, interrupted: true } })
  })
})

describe('recovery of a cut-off reply', () => {
  it('keeps the streamed text as an interrupted assistant message timed by the log, not by the restart', async () => {
    const s = await crashedSession('running', [user('r1', 'tell me', 1000)], [
      ev('r1', 'lifecycle', 1001, { phase: 'start' }),
      ev('r1', 'assistant', 1200, { delta: 'Once upon ' }),
      ev('r1', 'assistant', 3300, { delta: 'a time' }),
    ])
    await recoverInterruptedRuns(s.store, { eventsFile: s.eventsFile })
    const { entries } = await s.t.readAll()
    const closing = entries.find((e) => e.type === 'message' && e.message.role === 'assistant')
    expect(closing).toMatchObject({
      timestamp: 3300,
      runId: 'r1',
      message: { role: 'assistant', content: [{ type: 'text', text: 'Once upon a time' }], stopReason: 'error', errorMessage: INTERRUPTED_PARTIAL, interrupted: true, timestamp: 1200 },
    })
    expect(entries.at(-1)).toMatchObject({ type: 'run', phase: 'interrupted', runId: 'r1' })
    expect(s.store.get(KEY)).toMatchObject({ status: 'interrupted' })
  })

  it('a run cut off before its running status was saved (open journal record, message delivered) is closed too', async () => {
    const s = await crashedSession('done', [user('r1', 'tell me', 1000)], [ev('r1', 'assistant', 1500, { delta: 'Partly' })])
    await recoverInterruptedRuns(s.store, { eventsFile: s.eventsFile, accepted: [{ runId: 'r1', sessionKey: KEY, text: 'tell me', at: 999 }] })
    const { entries } = await s.t.readAll()
    const closing = entries.find((e) => e.type === 'message' && e.message.role === 'assistant')
    expect(closing).toMatchObject({ message: { content: [{ type: 'text', text: 'Partly' }], interrupted: true } })
  })

  it('nothing logged yet: the run is closed as unanswered, at the time of its own message', async () => {
    const s = await crashedSession('running', [user('r1', 'tell me', 1000)], [])
    await recoverInterruptedRuns(s.store, { eventsFile: s.eventsFile })
    const { entries } = await s.t.readAll()
    const closing = entries.find((e) => e.type === 'message' && e.message.role === 'assistant')
    expect(closing).toMatchObject({ timestamp: 1000, message: { content: [], errorMessage: INTERRUPTED_UNANSWERED, interrupted: true } })
  })
})
