// Recovery of a run that ended on a storage error (a full disk) rather than a crash: its journal record was kept
// open, naming the error when that line could be written. The run is closed with that error — not
// "Interrupted" — and the reply as far as the event log has it; the message is written first when the disk
// refused it too. Without the journal's line, the run's logged lifecycle error names it.
import fs from 'node:fs'
import path from 'node:path'
import { expect, it } from 'vitest'
import { tempDir } from '../../../../test/fixtures/temp-dir'
import type { TranscriptEntry } from '../contracts'
import { SessionStore, Transcript } from '../sessions'
import { AcceptedJournal, readDeadJournals } from './accepted-journal'
import { recoverInterruptedRuns } from './recovery'

const KEY = 'agent:main:full'
const FULL = 'Storage error (ENOSPC): the disk is full, so the conversation could not be saved and the run was stopped.'
const ev = (runId: string, seq: number, stream: string, ts: number, data: Record<string, unknown>) => JSON.stringify({ runId, seq, stream, ts, data, sessionKey: KEY })
const user = (runId: string, text: string, ts: number): TranscriptEntry => ({
  type: 'message',
  id: `${runId}-u`,
  timestamp: ts,
  runId,
  message: { role: 'user', content: [{ type: 'text', text }], timestamp: ts },
})

async function failedSession(entries: TranscriptEntry[], events: string[]) {
  const stateDir = tempDir('ld-recovery-storage-')
  const store = new SessionStore({ stateDir, agentId: 'main' })
  await store.update(KEY, () => ({ sessionId: 'sid', createdAt: 1, updatedAt: 1, status: 'failed', lastError: FULL }))
  const t = new Transcript(store.transcriptPath('sid'))
  await t.ensureHeader({ type: 'session', version: 1, id: 'sid', timestamp: new Date().toISOString(), cwd: '/w', sessionKey: KEY })
  await t.appendMany(entries)
  const eventsFile = path.join(stateDir, 'events', 'sid.jsonl')
  fs.mkdirSync(path.dirname(eventsFile), { recursive: true })
  fs.writeFileSync(eventsFile, events.join('\n') + '\n')
  return { store, t, eventsFile: () => eventsFile }
}

const streamed = (runId: string) => [ev(runId, 1, 'lifecycle', 1001, { phase: 'start' }), ev(runId, 2, 'assistant', 1200, { delta: 'Half of ' }), ev(runId, 3, 'assistant', 1300, { delta: 'the reply' })]

it('the message written, its reply refused: closed with the storage error and the streamed text', async () => {
  const s = await failedSession([user('r1', 'tell me', 1000)], streamed('r1'))
  await recoverInterruptedRuns(s.store, { eventsFile: s.eventsFile, accepted: [{ runId: 'r1', sessionKey: KEY, text: 'tell me', at: 999, error: FULL }] })
  const messages = (await s.t.readAll()).entries.filter((e) => e.type === 'message')
  expect(messages.map((e) => e.message.role)).toEqual(['user', 'assistant'])
  expect(messages[1]).toMatchObject({ runId: 'r1', message: { content: [{ type: 'text', text: 'Half of the reply' }], stopReason: 'error', errorMessage: FULL } })
  expect((messages[1].message as { interrupted?: boolean }).interrupted).toBeUndefined()
  expect(s.store.get(KEY)).toMatchObject({ status: 'failed', lastError: FULL })
})

it('the message refused too: written, then closed with the storage error', async () => {
  const s = await failedSession([], streamed('r1'))
  await recoverInterruptedRuns(s.store, { eventsFile: s.eventsFile, accepted: [{ runId: 'r1', sessionKey: KEY, text: 'tell me', at: 999, error: FULL }] })
  const messages = (await s.t.readAll()).entries.filter((e) => e.type === 'message')
  expect(messages.map((e) => [e.message.role, e.runId])).toEqual([
    ['user', 'r1'],
    ['assistant', 'r1'],
  ])
  expect(messages[1].message).toMatchObject({ content: [{ type: 'text', text: 'Half of the reply' }], errorMessage: FULL })
})

it("the journal's error line never made it: the run's logged lifecycle error names it", async () => {
  const s = await failedSession([user('r1', 'tell me', 1000)], [...streamed('r1'), ev('r1', 4, 'lifecycle', 1400, { phase: 'error', error: FULL })])
  await recoverInterruptedRuns(s.store, { eventsFile: s.eventsFile, accepted: [{ runId: 'r1', sessionKey: KEY, text: 'tell me', at: 999 }] })
  const closing = (await s.t.readAll()).entries.find((e) => e.type === 'message' && e.message.role === 'assistant')
  expect(closing).toMatchObject({ message: { content: [{ type: 'text', text: 'Half of the reply' }], errorMessage: FULL } })
})

it('appends the full disk refused (a gap in the run\'s seq): the text stops at the gap, never a reply with its middle missing', async () => {
  const s = await failedSession(
    [user('r1', 'tell me', 1000)],
    [
      ev('r1', 1, 'lifecycle', 1001, { phase: 'start' }),
      ev('r1', 2, 'assistant', 1200, { delta: 'The start, ' }),
      ev('r1', 3, 'assistant', 1300, { delta: 'the middle' }),
      // 4–9 were refused; a later append got in after the transcript's failed write was cut back
      ev('r1', 10, 'assistant', 1900, { delta: ' and the end' }),
      ev('r1', 11, 'lifecycle', 2000, { phase: 'error', error: FULL }),
    ],
  )
  await recoverInterruptedRuns(s.store, { eventsFile: s.eventsFile, accepted: [{ runId: 'r1', sessionKey: KEY, text: 'tell me', at: 999, error: FULL }] })
  const closing = (await s.t.readAll()).entries.find((e) => e.type === 'message' && e.message.role === 'assistant')
  expect(closing).toMatchObject({ timestamp: 2000, message: { content: [{ type: 'text', text: 'The start, the middle' }], errorMessage: FULL } })
})

it('the journal keeps the error of a record held open, for the next start', () => {
  const dir = tempDir('ld-journal-storage-')
  const j = new AcceptedJournal(dir)
  j.accept({ runId: 'r1', sessionKey: KEY, text: 'tell me', at: 999 })
  j.keepOpen('r1', FULL)
  j.end('r1')
  j.idle(KEY)
  j.close()
  expect(readDeadJournals(dir).records).toEqual([{ runId: 'r1', sessionKey: KEY, text: 'tell me', at: 999, error: FULL }])
})
