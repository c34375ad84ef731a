// Regression (found by the faults suite, test/faults/crash-recovery.test.ts): messages acknowledged while
// their session was busy were only held in memory, so a crash lost them; runs cut off before their
// deferred "running" status reached sessions.json were not marked interrupted; agent.wait on a run the
// crash cut off waited out its whole timeout after the restart.
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { startModelServer, type ModelServer } from '../../../../test/fixtures/model-server'
import { startTestRuntime } from '../../../../test/fixtures/test-runtime'
import { SessionStore, Transcript } from '../sessions'
import { AcceptedJournal, readDeadJournals, removeJournals } from './accepted-journal'
import { recoverInterruptedRuns } from './recovery'
import { tempDir } from '../../../../test/fixtures/temp-dir'

const tmp = () => tempDir('ld-journal-')
const DEAD_PID = 2 ** 22 + 12345 // above the default pid_max: never alive

function deadJournal(dir: string, lines: object[]): string {
  fs.mkdirSync(dir, { recursive: true })
  const file = path.join(dir, `accepted.${DEAD_PID}-abcd1234.jsonl`)
  fs.writeFileSync(file, [{ op: 'owner', pid: DEAD_PID }, ...lines].map((l) => JSON.stringify(l)).join('\n') + '\n')
  return file
}

describe('accepted-message journal', () => {
  it('keeps only unsettled records; a live journal is never read as dead; close removes an empty one', () => {
    const dir = tmp()
    const j = new AcceptedJournal(dir)
    j.accept({ runId: 'a', sessionKey: 'agent:main:x', text: 'one', at: 1 })
    j.accept({ runId: 'b', sessionKey: 'agent:main:x', text: 'two', at: 2 })
    j.accept({ runId: 'c', sessionKey: 'agent:main:y', text: 'three', at: 3 })
    expect(readDeadJournals(dir).records).toEqual([]) // ours, alive
    j.end('a')
    j.idle('agent:main:y')
    expect(j.openCount()).toBe(1)
    j.close() // 'b' still open: the file stays for the next start
    expect(readDeadJournals(dir).records).toEqual([{ runId: 'b', sessionKey: 'agent:main:x', text: 'two', at: 2 }])

    const k = new AcceptedJournal(dir)
    k.accept({ runId: 'd', sessionKey: 'agent:main:x', text: 'four', at: 4 })
    k.end('d') // nothing open: the file shrinks to its header
    expect(fs.readFileSync(k.file, 'utf8').trim().split('\n')).toHaveLength(1)
    k.close()
    expect(fs.existsSync(k.file)).toBe(false)
  })

  it('a record kept open (its message never reached the transcript) outlives its end and its session going idle', () => {
    const dir = tmp()
    const j = new AcceptedJournal(dir)
    j.accept({ runId: 'a', sessionKey: 'agent:main:x', text: 'unwritten', at: 1 })
    j.accept({ runId: 'b', sessionKey: 'agent:main:x', text: 'answered', at: 2 })
    j.keepOpen('a')
    j.keepOpen('unknown') // no record: nothing to keep
    j.end('a')
    j.idle('agent:main:x')
    expect([...j.pending()].map((r) => r.runId)).toEqual(['a'])
    j.close()
    // read back: the idle settled 'b' by name, not every earlier record of the session
    expect(readDeadJournals(dir).records).toEqual([{ runId: 'a', sessionKey: 'agent:main:x', text: 'unwritten', at: 1 }])
  })

  it('settling the last open record cuts the file back to its owner line in place; later records append after it', () => {
    const dir = tmp()
    const j = new AcceptedJournal(dir)
    j.accept({ runId: 'a', sessionKey: 'agent:main:x', text: 'one', at: 1 })
    const ino = fs.statSync(j.file).ino
    j.end('a')
    const text = fs.readFileSync(j.file, 'utf8')
    expect(text.endsWith('\n')).toBe(true)
    expect(text.trim().split('\n').map((l) => JSON.parse(l))).toEqual([expect.objectContaining({ op: 'owner', pid: process.pid })])
    expect(fs.statSync(j.file).ino).toBe(ino) // truncated, not replaced
    j.accept({ runId: 'b', sessionKey: 'agent:main:x', text: 'two', at: 2 })
    const lines = fs.readFileSync(j.file, 'utf8').trim().split('\n').map((l) => JSON.parse(l))
    expect(lines.map((l) => l.op)).toEqual(['owner', 'accept'])
    j.end('b')
    j.close()
  })

  it('paused messages read back held (hold/release lines, and through a compaction rewrite)', () => {
    const dir = tmp()
    const j = new AcceptedJournal(dir)
    j.accept({ runId: 'a', sessionKey: 'agent:main:x', text: 'one', at: 1 })
    j.accept({ runId: 'b', sessionKey: 'agent:main:x', text: 'two', at: 2 })
    j.accept({ runId: 'c', sessionKey: 'agent:main:x', text: 'three', at: 3 })
    j.hold(['b', 'c', 'unknown'])
    j.release(['c'])
    j.close()
    expect(readDeadJournals(dir).records.map((r) => [r.runId, r.held ?? false])).toEqual([
      ['a', false],
      ['b', true],
      ['c', false],
    ])
    // a record journaled again as held (the next start keeps it) reads back held
    const dir2 = tmp()
    deadJournal(dir2, [{ op: 'accept', runId: 'h', sessionKey: 'agent:main:x', text: 'paused', at: 5, held: true }, { op: 'hold', runIds: 7 }])
    expect(readDeadJournals(dir2).records).toEqual([{ runId: 'h', sessionKey: 'agent:main:x', text: 'paused', at: 5, held: true }])
  })

  it("a message's run options read back (through a compaction rewrite too); older lines without them, and bad fields, fall back to the defaults", () => {
    const dir = tmp()
    const j = new AcceptedJournal(dir)
    const img = { path: '/s/media/inbound/u1.png', fileName: 'a.png', mimeType: 'image/png', sizeBytes: 3, image: true }
    const run = { thinking: 'high' as const, timeoutMs: 800, model: 'mock/m1', fastMode: 'auto' as const, input: { receipt: 'R', intent: { kind: 'session-goal-start' as const, version: 1 as const, issuedAtMs: 5 } }, attachments: [img] }
    j.accept({ runId: 'a', sessionKey: 'agent:main:x', text: 'one', at: 1, media: [img.path], run })
    j.close()
    expect(readDeadJournals(dir).records).toEqual([{ runId: 'a', sessionKey: 'agent:main:x', text: 'one', at: 1, media: [img.path], run }])

    const dir2 = tmp()
    deadJournal(dir2, [
      { op: 'accept', runId: 'old', sessionKey: 'agent:main:x', text: 'before runs were kept', at: 1 },
      {
        op: 'accept',
        runId: 'bad',
        sessionKey: 'agent:main:x',
        text: 'odd fields',
        at: 2,
        media: ['/s/media/inbound/u2.png'],
        // an unknown level, a negative timeout, an attachment the message does not carry: dropped, the rest kept
        run: { thinking: 'ultra', timeoutMs: -1, lane: 'L', extraSystemPrompt: 'be brief', attachments: [{ ...img, path: '/etc/passwd' }], input: { provenance: { kind: 'nobody' } } },
      },
    ])
    const [old, bad] = readDeadJournals(dir2).records
    expect(old).toEqual({ runId: 'old', sessionKey: 'agent:main:x', text: 'before runs were kept', at: 1 })
    expect(bad.run).toEqual({ lane: 'L', extraSystemPrompt: 'be brief' })
  })

  it('a dead process: torn last line skipped, end/idle records settle, records returned oldest first', () => {
    const dir = tmp()
    const file = deadJournal(dir, [
      { op: 'accept', runId: 'r2', sessionKey: 'agent:main:a', text: 'second', at: 20 },
      { op: 'accept', runId: 'r1', sessionKey: 'agent:main:a', text: 'first', at: 10 },
      { op: 'accept', runId: 'r3', sessionKey: 'agent:main:b', text: 'ended', at: 30 },
      { op: 'end', runId: 'r3' },
      { op: 'accept', runId: 'r4', sessionKey: 'agent:main:c', text: 'idle', at: 40 },
      { op: 'idle', sessionKey: 'agent:main:c', at: 41 },
    ])
    fs.appendFileSync(file, '{"op":"accept","runId":"torn')
    const dead = readDeadJournals(dir)
    expect(dead.records.map((r) => r.runId)).toEqual(['r1', 'r2'])
    expect(dead.files).toEqual([file])
  })

  it('a dead journal that cannot be read at all is said and left in place, not passed over without a word', () => {
    const dir = tmp()
    const good = deadJournal(dir, [{ op: 'accept', runId: 'r1', sessionKey: 'agent:main:a', text: 'first', at: 10 }])
    const bad = path.join(dir, `accepted.${DEAD_PID}-deadbeef.jsonl`)
    fs.mkdirSync(bad) // not a regular file (a FIFO, a folder): it cannot be read
    const live = path.join(dir, `accepted.${process.ppid}-cafe0001.jsonl`)
    fs.mkdirSync(live) // a live process's (its owner may yet settle it): not reported as a dead runtime's
    const dead = readDeadJournals(dir)
    expect(dead.records.map((r) => r.runId)).toEqual(['r1'])
    expect(dead.unreadable).toEqual([{ file: bad, why: 'not a regular file' }])
    const warned: string[] = []
    removeJournals(dead, (l) => warned.push(l))
    expect(warned).toEqual([`[runtime] the run journal ${bad} cannot be read (not a regular file): messages acknowledged there are not back in their sessions; it is left in place`])
    expect(fs.existsSync(good)).toBe(false)
    expect(fs.existsSync(bad)).toBe(true)
  })

  it('recovery puts undelivered messages into their session, keeps delivered ones single, marks the session interrupted', async () => {
    const stateDir = tmp()
    const store = new SessionStore({ stateDir, agentId: 'main' })
    const key = 'agent:main:busy'
    await store.update(key, () => ({ sessionId: 'sid-1', createdAt: 1, updatedAt: 1, status: 'done' }))
    const t = new Transcript(store.transcriptPath('sid-1'))
    await t.ensureHeader({ type: 'session', version: 1, id: 'sid-1', timestamp: new Date().toISOString(), cwd: '/w', sessionKey: key })
    const user = (text: string, ts: number, runId: string) => ({ type: 'message' as const, id: runId, timestamp: ts, runId, message: { role: 'user', content: [{ type: 'text', text }] } })
    await t.appendMany([user('same words', 5, 'old'), user('delivered text', 150, 'r-del')])
    const before = fs.readFileSync(t.file)

    const recovered = await recoverInterruptedRuns(store, {
      accepted: [
        { runId: 'r-del', sessionKey: key, text: 'delivered text', at: 100 },
        // the same words were answered long before: this later copy is still missing
        { runId: 'r-again', sessionKey: key, text: 'same words', at: 200 },
        { runId: 'r-queued', sessionKey: key, text: 'queued behind', at: 300 },
        { runId: 'r-gone', sessionKey: 'agent:main:deleted', text: 'no session', at: 400 },
      ],
    })
    expect(recovered).toEqual([{ sessionKey: key, sessionId: 'sid-1', runId: 'r-queued' }])
    const after = fs.readFileSync(t.file)
    expect(after.subarray(0, before.length).equals(before)).toBe(true)
    const { entries } = await t.readAll()
    const users = entries.filter((e) => e.type === 'message' && e.message.role === 'user').map((e) => (e as any).message.content[0].text)
    expect(users).toEqual(['same words', 'delivered text', 'same words', 'queued behind'])
    expect(entries.at(-1)).toMatchObject({ type: 'run', phase: 'interrupted', runId: 'r-queued' })
    expect(store.get(key)).toMatchObject({ status: 'interrupted', lastError: expect.stringContaining('2 messages') })
  })
})

describe('restart after a crash (runtime)', () => {
  let server: ModelServer
  beforeAll(async () => {
    server = await startModelServer({ fallback: { text: 'answered' } })
  })
  afterAll(() => server.close())

  it('restores the messages, answers agent.wait at once and runs the next message', async () => {
    const stateDir = tmp()
    const key = 'agent:main:main'
    const first = await startTestRuntime(server, { stateDir })
    await first.call('agent', { message: 'hello', idempotencyKey: 'warm' })
    await first.call('agent.wait', { runId: 'warm', timeoutMs: 10_000 })
    await first.close()
    const sessions = path.join(stateDir, 'agents/main/sessions')
    deadJournal(sessions, [
      { op: 'accept', runId: 'lost-1', sessionKey: key, text: 'acked but never run', at: Date.now() },
      { op: 'accept', runId: 'lost-2', sessionKey: key, text: 'also acked', at: Date.now() + 1 },
    ])

    const t = await startTestRuntime(server, { stateDir })
    try {
      const started = Date.now()
      const w = await t.call('agent.wait', { runId: 'lost-1', timeoutMs: 10_000 })
      expect(w).toMatchObject({ status: 'error', error: expect.stringContaining('interrupted') })
      expect(Date.now() - started).toBeLessThan(5_000)
      expect((await t.call('sessions.list', {})).sessions.find((s) => s.key === key)).toMatchObject({ status: 'failed', interrupted: true })
      const hist = await t.call('chat.history', { sessionKey: key })
      const texts = hist.messages.filter((m) => m.role === 'user').map((m) => JSON.stringify(m.content))
      expect(texts.some((x) => x.includes('acked but never run'))).toBe(true)
      expect(texts.some((x) => x.includes('also acked'))).toBe(true)
      expect(fs.readdirSync(sessions).filter((n) => n.startsWith(`accepted.${DEAD_PID}`))).toEqual([])

      await t.call('agent', { message: 'next', idempotencyKey: 'next' })
      expect((await t.call('agent.wait', { runId: 'next', timeoutMs: 15_000 })).status).toBe('ok')
    } finally {
      await t.close()
    }
  })
  it('a damaged line in a dead journal (not the torn last one) is said, and the journal kept as a copy, not removed unread', async () => {
    const stateDir = tmp()
    const key = 'agent:main:main'
    const first = await startTestRuntime(server, { stateDir })
    await first.call('agent', { message: 'hello', idempotencyKey: 'warm' })
    await first.call('agent.wait', { runId: 'warm', timeoutMs: 10_000 })
    await first.close()
    const sessions = path.join(stateDir, 'agents/main/sessions')
    const file = deadJournal(sessions, [
      { op: 'accept', runId: 'ok-1', sessionKey: key, text: 'readable message', at: Date.now() },
      { op: 'accept', runId: 'bad-1', sessionKey: key, text: 'DAMAGED-MESSAGE', at: Date.now() + 1 },
      { op: 'accept', runId: 'ok-2', sessionKey: key, text: 'readable too', at: Date.now() + 2 },
    ])
    // a few bytes of the middle line overwritten in place (a bad sector, a stray write)
    const text = fs.readFileSync(file, 'utf8')
    const at = text.indexOf('"runId":"bad-1"')
    fs.writeFileSync(file, text.slice(0, at) + '\u0000\u0000\u0000' + text.slice(at + 3))
    const damagedText = fs.readFileSync(file, 'utf8')
    const warn = vi.spyOn(console, 'warn')
    const t = await startTestRuntime(server, { stateDir })
    try {
      const hist = await t.call('chat.history', { sessionKey: key })
      const texts = hist.messages.filter((m) => m.role === 'user').map((m) => JSON.stringify(m.content))
      expect(texts.filter((x) => x.includes('readable'))).toHaveLength(2)
      const said = warn.mock.calls.map((c) => String(c[0])).filter((l) => l.includes('of the run journal'))
      expect(said).toEqual([expect.stringContaining(`1 line of the run journal ${file} could not be read`)])
      const copies = fs.readdirSync(sessions).filter((n) => n.startsWith(`${path.basename(file)}.corrupt-`))
      expect(copies).toHaveLength(1)
      expect(fs.readFileSync(path.join(sessions, copies[0]), 'utf8')).toBe(damagedText)
      expect(fs.existsSync(file)).toBe(false)
    } finally {
      warn.mockRestore()
      await t.close()
    }
  })
})
