// Disk trouble under the headless gateway (child process): the sessions dir is a small tmpfs (so it can be
// filled, or remounted read-only — chmod does not stop root, which CI usually is). A full disk (ENOSPC) and
// a read-only state dir (EROFS) make runs fail with a clear storage error — at the call when nothing can
// be recorded, or as lifecycle error when the disk fills mid-run — and never corrupt what was already
// written; once space is back the same sessions run again without a restart.
// Without mount privileges (not root) both cases are skipped with the reason printed: neither chmod (root
// ignores it) nor a symlink to /dev/full (reads never end) gives a faithful full or read-only disk.
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startModelServer, type CapturedRequest, type ModelServer, type Turn } from '../fixtures/model-server'
import { openClient, type TestClient } from './support/client'
import { startGatewayChild, type GatewayChild } from './support/gateway-process'
import { findSecrets, LogSink } from './support/logs'
import { lastUserText, newApiKey, newToken, suiteConfig, tempStateDir, writeConfig } from './support/setup'
import { parseJsonl, readSessions, sessionsDirOf, snapshotTranscripts, transcriptOf } from './support/transcripts'

const token = newToken()
const apiKey = newApiKey()
const logs = new LogSink()
let server: ModelServer
let stateDir: string
let sessions: string
let gw: GatewayChild | undefined
let c: TestClient
let mounted = false
let skipReason = ''
const STORAGE = /storage|ENOSPC|EROFS|no space|read-only|EACCES|permission/i

function script(req: CapturedRequest): Turn {
  const text = lastUserText(req)
  // a slow answer: the test fills the disk while the model "thinks"
  // (longer than the slack in a file's last tmpfs page, which still takes writes when the disk is full)
  if (text.includes('SLOWDISK')) return { text: `a long answer ${'z'.repeat(20_000)}`, chunks: 4, headerDelayMs: 1000 }
  return { text: 'stored fine', chunks: 2 }
}

function tryMount(dir: string): string | undefined {
  if (process.platform !== 'linux') return 'not Linux'
  if (process.getuid?.() !== 0) return 'not root (mount needs privileges)'
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=512k,mode=0700', 'tmpfs', dir], { stdio: 'pipe' })
    return undefined
  } catch (err) {
    return `mount failed: ${(err as Error).message.split('\n')[0]}`
  }
}

beforeAll(async () => {
  server = await startModelServer()
  server.script(script)
  stateDir = tempStateDir('disk')
  writeConfig(stateDir, suiteConfig(server, { apiKey }))
  sessions = sessionsDirOf(stateDir)
  fs.mkdirSync(sessions, { recursive: true })
  const why = tryMount(sessions)
  if (why) skipReason = why
  else mounted = true
  gw = await startGatewayChild({ stateDir, token, logs, label: 'disk' })
  c = await openClient(gw.url, token)
})
afterAll(async () => {
  await c?.close()
  await gw?.stop()
  if (mounted) execFileSync('umount', ['-l', sessions])
  await server?.close()
  if (stateDir) fs.rmSync(stateDir, { recursive: true, force: true })
})

async function run(sessionKey: string, id: string, message = `hello ${id}`) {
  const call = c.agent({ message, idempotencyKey: id, sessionKey, timeout: 60 })
  const refused = await call.accepted.then(
    () => undefined,
    (e: { code?: string; message: string }) => e,
  )
  const final = await call.final
  const end = refused ? undefined : await c.lifecycleEnd(id, 30_000)
  return { refused, final, end }
}

/** A run on a full / read-only disk is either refused at accept time or ends in a lifecycle error — both name storage. */
function expectStorageFailure(r: Awaited<ReturnType<typeof run>>): void {
  if (r.refused) {
    // over the gateway: OpenClaw's UNAVAILABLE, the runtime's STORAGE_ERROR in details
    expect(r.refused).toMatchObject({ code: 'UNAVAILABLE', details: { code: 'STORAGE_ERROR' } })
    expect(r.refused.message).toMatch(STORAGE)
  } else {
    expect((r.end!.data as { phase: string }).phase).toBe('error')
    expect((r.end!.data as { error: string }).error).toMatch(STORAGE)
  }
}

/** remount,ro fails with EBUSY while a file is open for writing (a store flush in flight): retry briefly. */
async function remountReadOnly(): Promise<void> {
  for (let i = 0; ; i++) {
    try {
      execFileSync('mount', ['-o', 'remount,ro', sessions], { stdio: 'pipe' })
      return
    } catch (err) {
      if (i >= 100) throw err
      await new Promise((r) => setTimeout(r, 20))
    }
  }
}

/** Fills the tmpfs, leaving about `leave` bytes free (files' partly used last pages still take small writes). */
function fill(leave: number): string {
  const file = path.join(sessions, `filler-${Date.now()}`)
  const fd = fs.openSync(file, 'w')
  const chunk = Buffer.alloc(4096, 1)
  try {
    for (;;) {
      const free = fs.statfsSync(sessions).bavail * fs.statfsSync(sessions).bsize
      if (free <= leave + 4096) {
        const rest = Math.max(0, free - leave)
        if (rest > 0) fs.writeSync(fd, chunk.subarray(0, Math.min(rest, chunk.length)))
        break
      }
      fs.writeSync(fd, chunk)
    }
  } catch {
    // full
  } finally {
    fs.closeSync(fd)
  }
  return file
}

function assertIntact(before: Map<string, Buffer>, sessionsJsonBefore: Record<string, any>) {
  for (const [file, bytes] of before) {
    const now = fs.readFileSync(file)
    expect(now.subarray(0, bytes.length).equals(bytes), `${file} changed`).toBe(true)
    // after it: at most one torn line (a write the full disk cut short), which readers skip
    const earlier = parseJsonl(bytes.toString('utf8'))
    const parsed = parseJsonl(now.toString('utf8'))
    const added = parsed.bad.filter((x) => x.index >= earlier.lines.length - (earlier.bad.length ? 1 : 0))
    expect(parsed.bad.length - added.length, `${file}: earlier lines no longer parse`).toBeLessThanOrEqual(earlier.bad.length)
    expect(added.length, JSON.stringify(added)).toBeLessThanOrEqual(1)
  }
  const rows = readSessions(stateDir)
  for (const key of Object.keys(sessionsJsonBefore)) expect(rows[key]?.sessionId, key).toBe(sessionsJsonBefore[key].sessionId)
}

describe('disk trouble', () => {
  it('a full disk (ENOSPC): runs fail with a clear storage error, nothing written is lost, space back → runs work', async (ctx) => {
    if (!mounted) {
      console.log(`FAULTS disk: full-disk case skipped (${skipReason})`)
      return ctx.skip()
    }
    const A = 'agent:main:disk-a'
    for (let i = 0; i < 3; i++) expect((await run(A, `a-ok-${i}`)).final.ok).toBe(true)
    const before = snapshotTranscripts(stateDir)
    const rowsBefore = readSessions(stateDir)

    // 1. the disk fills while a run waits for the model: the reply cannot be recorded
    const nth = server.requests.length + 1
    const slow = c.agent({ message: 'SLOWDISK please', idempotencyKey: 'a-midrun', sessionKey: A, timeout: 60 })
    await slow.accepted
    await server.waitForRequests(nth, 20_000) // the user message is on disk before the model is asked
    const filler = fill(0)
    const end = await c.lifecycleEnd('a-midrun', 30_000)
    const slowFinal = await slow.final
    const chatErr = c.chatEvents('a-midrun').find((e) => e.state === 'error')
    const midRun = `lifecycle=${(end.data as { phase: string }).phase} error=${JSON.stringify((end.data as { error?: string }).error ?? '')}`

    // 2. with the disk full, new runs (existing and new session) are refused or fail, clearly
    const big = 'a message larger than any page slack '.repeat(600)
    const r1 = await run(A, 'a-full', big)
    const r2 = await run('agent:main:disk-new', 'new-full', big)
    const full = [r1, r2].map((r) => (r.refused ? `refused ${r.refused.code}: ${r.refused.message}` : `ran: ${JSON.stringify(r.end?.data)}`))

    // 3. space back: the same sessions work again, without a restart
    fs.rmSync(filler)
    const again = await run(A, 'a-again')
    const fresh = await run('agent:main:disk-new', 'new-again')
    console.log(`FAULTS disk full: midRun ${midRun} | full: ${full.join(' | ')} | after freeing: ${again.final.ok && fresh.final.ok ? 'ok' : 'FAILED'}`)

    expect((end.data as { phase: string }).phase).toBe('error')
    expect((end.data as { error: string }).error).toMatch(STORAGE)
    expect(chatErr?.errorMessage).toMatch(STORAGE)
    expect(slowFinal.ok).toBe(false)
    for (const r of [r1, r2]) expectStorageFailure(r)
    assertIntact(before, rowsBefore)
    expect(again.final.ok).toBe(true)
    expect(fresh.final.ok).toBe(true)
    // the session's transcript reads back: the failed reply is never half a line in the history — it is kept
    // only as the failed run's closing turn (the storage error, with the reply as far as the log had it),
    // written in its place before the next run's turn once space was back
    // the stored rows (a v4 page is otherwise OpenClaw's display copy: no errorMessage on a failed turn)
    const hist = await c.request('chat.history', { sessionKey: A, limit: 100, wholeMessages: true })
    const rows = hist.messages as Array<{ role: string; stopReason?: string; errorMessage?: string; content?: unknown }>
    const kept = rows.filter((m) => JSON.stringify(m.content ?? '').includes('zzzzzzzzzz'))
    expect(kept.length).toBeLessThanOrEqual(1)
    for (const m of kept) {
      expect(m.role).toBe('assistant')
      expect(m.stopReason).toBe('error')
      expect(m.errorMessage).toMatch(STORAGE)
      expect(rows.indexOf(m)).toBeLessThan(rows.findIndex((x) => JSON.stringify(x.content ?? '').includes('stored fine') && rows.indexOf(x) > rows.indexOf(m)))
    }
    expect(gw!.alive()).toBe(true)
  })

  it('a read-only state dir (EROFS): runs fail with a clear storage error; writable again → runs work', async (ctx) => {
    if (!mounted) {
      console.log(`FAULTS disk: read-only case skipped (${skipReason})`)
      return ctx.skip()
    }
    const B = 'agent:main:disk-b'
    expect((await run(B, 'b-ok')).final.ok).toBe(true)
    const before = snapshotTranscripts(stateDir)
    const rowsBefore = readSessions(stateDir)

    // read-only while a run waits for the model
    const nth = server.requests.length + 1
    const slow = c.agent({ message: 'SLOWDISK again', idempotencyKey: 'b-midrun', sessionKey: B, timeout: 60 })
    await slow.accepted
    await server.waitForRequests(nth, 20_000) // the user message is on disk before the model is asked
    await remountReadOnly()
    let end, r1, r2
    try {
      end = await c.lifecycleEnd('b-midrun', 30_000)
      r1 = await run(B, 'b-ro')
      r2 = await run('agent:main:disk-ro-new', 'ro-new')
    } finally {
      execFileSync('mount', ['-o', 'remount,rw', sessions])
    }
    const ro = [r1, r2].map((r) => (r.refused ? `refused ${r.refused.code}: ${r.refused.message}` : `ran: ${JSON.stringify(r.end?.data)}`))
    const again = await run(B, 'b-again')
    console.log(`FAULTS disk read-only: midRun lifecycle=${(end.data as { phase: string }).phase} | ro: ${ro.join(' | ')} | after: ${again.final.ok ? 'ok' : 'FAILED'}`)

    expect((end.data as { phase: string }).phase).toBe('error')
    expect((end.data as { error: string }).error).toMatch(STORAGE)
    for (const r of [r1, r2]) expectStorageFailure(r)
    assertIntact(before, rowsBefore)
    expect(again.final.ok).toBe(true)
    const file = transcriptOf(stateDir, B)!
    expect(parseJsonl(fs.readFileSync(file, 'utf8')).bad.length).toBeLessThanOrEqual(1)
  })

  it('no secret in the gateway output or the state dir', () => {
    expect(findSecrets([token, apiKey], { logs, stateDirs: [stateDir] })).toEqual([])
  })
})
