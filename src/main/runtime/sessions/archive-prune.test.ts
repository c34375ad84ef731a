// Archived transcripts past `session.archiveRetentionDays` go on their own: a pass at runtime start, then
// periodically. Age is the later of the name's time and the mtime; nothing but an archive is touched.
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { startModelServer } from '../../../../test/fixtures/model-server'
import { tempDir } from '../../../../test/fixtures/temp-dir'
import { startTestRuntime, testConfig } from '../../../../test/fixtures/test-runtime'
import { until } from '../../../../test/fixtures/until'
import { ArchivePruner, DAY_MS, pruneArchivedTranscripts } from './archive-prune'
import { archivedTranscriptFile } from './paths'

const ID1 = '11111111-1111-4111-8111-111111111111'
const ID2 = '22222222-2222-4222-8222-222222222222'

function sessionsOf(state: string, agent = 'main'): string {
  const dir = path.join(state, 'agents', agent, 'sessions')
  fs.mkdirSync(dir, { recursive: true })
  return dir
}

/** a file whose mtime is `mtimeDaysAgo` days back */
function put(file: string, mtimeDaysAgo = 0, text = '{"type":"session"}\n'): string {
  fs.writeFileSync(file, text)
  const t = new Date(Date.now() - mtimeDaysAgo * DAY_MS)
  fs.utimesSync(file, t, t)
  return file
}

const archive = (dir: string, id: string, reason: string, daysAgo: number) =>
  archivedTranscriptFile(path.join(dir, `${id}.jsonl`), reason, new Date(Date.now() - daysAgo * DAY_MS))

describe('pruneArchivedTranscripts', () => {
  it('removes archives past retention by name time and mtime; live transcripts, stores and the rest stay', async () => {
    const state = tempDir('ld-arcprune-')
    const main = sessionsOf(state)
    const other = sessionsOf(state, 'work')
    const live = put(path.join(main, `${ID1}.jsonl`), 400)
    const store = put(path.join(main, 'sessions.json'), 400, '{}')
    const stale = put(archive(main, ID1, 'reset', 90), 90)
    const staleDeleted = put(archive(other, ID2, 'deleted', 45), 45)
    // archived 90 days ago but written to since (restored, copied): younger than retention by its mtime
    const touched = put(archive(main, ID2, 'new', 90), 1)
    // archived 5 days ago (what an earlier-transcripts lookup may still want), mtime from before the reset
    const recent = put(archive(main, ID1, 'new', 5), 60)
    const notOurs = put(path.join(main, `${ID1}.jsonl.reset.yesterday`), 400)
    // a symlink with an archive's name is not followed, nor removed
    const target = put(path.join(state, 'elsewhere.txt'), 400)
    const link = archive(main, ID2, 'reset', 400)
    fs.symlinkSync(target, link)

    const r = await pruneArchivedTranscripts(state, 30)
    expect(r.removed.sort()).toEqual([stale, staleDeleted].sort())
    expect(r.bytes).toBe(2 * '{"type":"session"}\n'.length)
    for (const f of [stale, staleDeleted]) expect(fs.existsSync(f), f).toBe(false)
    for (const f of [live, store, touched, recent, notOurs, target]) expect(fs.existsSync(f), f).toBe(true)
    expect(fs.lstatSync(link).isSymbolicLink()).toBe(true)
  })

  it('retention 0 keeps everything; a shorter one reaches younger archives', async () => {
    const state = tempDir('ld-arcprune-')
    const dir = sessionsOf(state)
    const a = put(archive(dir, ID1, 'reset', 10), 10)
    expect((await pruneArchivedTranscripts(state, 0)).removed).toEqual([])
    expect((await pruneArchivedTranscripts(state, 30)).removed).toEqual([])
    expect((await pruneArchivedTranscripts(state, 7)).removed).toEqual([a])
  })

  it.skipIf(process.platform === 'win32' || process.getuid?.() === 0)('one that cannot be deleted is counted and the rest still go', async () => {
    const state = tempDir('ld-arcprune-')
    const main = sessionsOf(state)
    const locked = sessionsOf(state, 'locked')
    const stuck = put(archive(locked, ID1, 'reset', 90), 90)
    const gone = put(archive(main, ID2, 'reset', 90), 90)
    fs.chmodSync(locked, 0o500)
    try {
      const r = await pruneArchivedTranscripts(state, 30)
      expect(r).toMatchObject({ removed: [gone], failed: 1 })
      expect(fs.existsSync(stuck)).toBe(true)
    } finally {
      fs.chmodSync(locked, 0o700)
    }
  })

  it('a state dir without agents is fine', async () => {
    expect(await pruneArchivedTranscripts(tempDir('ld-arcprune-'), 30)).toEqual({ removed: [], bytes: 0, failed: 0 })
  })
})

describe('ArchivePruner', () => {
  it('passes at start and then periodically, reading the retention each time; stop() ends it', async () => {
    const state = tempDir('ld-arcprune-')
    const dir = sessionsOf(state)
    const first = put(archive(dir, ID1, 'reset', 40), 40)
    let days = 30
    const quiet = { info: () => {}, warn: () => {} }
    const p = new ArchivePruner({ stateDir: state, retentionDays: () => days, intervalMs: 20, log: quiet })
    p.start()
    await until(() => !fs.existsSync(first), 3000, 'the start-up pass')
    const second = put(archive(dir, ID2, 'reset', 40), 40)
    await until(() => !fs.existsSync(second), 3000, 'a periodic pass')
    days = 0
    const third = put(archive(dir, ID1, 'new', 400), 400)
    await new Promise((r) => setTimeout(r, 100))
    expect(fs.existsSync(third)).toBe(true)
    await p.stop()
    days = 30
    await new Promise((r) => setTimeout(r, 100))
    expect(fs.existsSync(third)).toBe(true)
    expect(await p.sweep()).toBeUndefined()
  })
})

describe('the runtime prunes archives on its own', () => {
  it('at start-up; an archive within retention stays and chat.history still finds it by sessionId', async () => {
    const server = await startModelServer({ fallback: { text: 'ok' } })
    const state = tempDir('ld-arcprune-rt-')
    const dir = sessionsOf(state)
    const stale = put(archive(dir, ID1, 'reset', 90), 90)
    const t = await startTestRuntime(server, { stateDir: state, runtime: { archivePrune: { intervalMs: 20 } } })
    try {
      await until(() => !fs.existsSync(stale), 3000, 'the start-up pass')
      const key = 'agent:main:arc'
      await t.call('agent', { message: 'hello', idempotencyKey: 'arc-1', sessionKey: key })
      expect((await t.call('agent.wait', { runId: 'arc-1', timeoutMs: 10_000 })).status).toBe('ok')
      const old = await t.call('chat.history', { sessionKey: key })
      await t.call('sessions.reset', { key })
      const archived = fs.readdirSync(dir).filter((n) => n.startsWith(`${old.sessionId}.jsonl.reset.`))
      expect(archived).toHaveLength(1)
      // an old mtime alone does not make it old: it was archived just now
      const file = path.join(dir, archived[0])
      const then = new Date(Date.now() - 90 * DAY_MS)
      fs.utimesSync(file, then, then)
      const stale2 = put(archive(dir, ID2, 'deleted', 31), 31)
      await until(() => !fs.existsSync(stale2), 3000, 'a periodic pass')
      expect(fs.existsSync(file)).toBe(true)
      const w = await t.call('chat.history', { sessionKey: key, messageId: old.messages[0].__openclaw!.id, sessionId: old.sessionId })
      expect(w.messages.map((m) => m.id)).toEqual(old.messages.map((m) => m.id))
    } finally {
      await t.close()
      await server.close()
    }
  })

  it('session.archiveRetentionDays: 0 keeps every archive', async () => {
    const server = await startModelServer({ fallback: { text: 'ok' } })
    const state = tempDir('ld-arcprune-rt-')
    const dir = sessionsOf(state)
    const stale = put(archive(dir, ID1, 'reset', 400), 400)
    fs.writeFileSync(path.join(state, 'loopdesk.json'), JSON.stringify(testConfig(server, { session: { archiveRetentionDays: 0 } })))
    const t = await startTestRuntime(server, { stateDir: state, runtime: { archivePrune: { intervalMs: 20 } } })
    try {
      await new Promise((r) => setTimeout(r, 150))
      expect(fs.existsSync(stale)).toBe(true)
    } finally {
      await t.close()
      await server.close()
    }
  })
})
