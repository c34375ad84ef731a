import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { ApiError } from '../../api/errors'
import type { SessionEntry } from '../contracts'
import { SessionStore } from './session-store'
import { deadPid, exited, spawnChild, waitForLine } from './test-fixtures/child'
import { releaseAllLocksSync } from './write-lock'

let stateDir: string
beforeEach(() => {
  stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ld-store-'))
})
afterEach(() => {
  releaseAllLocksSync()
  fs.rmSync(stateDir, { recursive: true, force: true })
})

const KEY = 'agent:main:main'
const entry = (over: Partial<SessionEntry> = {}): SessionEntry => ({ sessionId: 's1', updatedAt: 1, ...over })
const readDisk = (store: SessionStore) => JSON.parse(fs.readFileSync(store.path, 'utf8'))
/** fs.rename calls that replaced `file` (store flushes rename on the thread pool) */
const renamesTo = (spy: { mock: { calls: unknown[][] } }, file: string) => spy.mock.calls.filter(([, to]) => to === file).length
const failRenameOnce = (message: string, code: string) =>
  vi.spyOn(fs, 'rename').mockImplementationOnce(((_from: fs.PathLike, _to: fs.PathLike, cb: fs.NoParamCallback) =>
    process.nextTick(cb, Object.assign(new Error(message), { code }))) as typeof fs.rename)
const incr = (cur: SessionEntry | undefined): SessionEntry => ({
  ...cur,
  sessionId: cur?.sessionId ?? 'shared',
  updatedAt: Date.now(),
  inputTokens: (cur?.inputTokens ?? 0) + 1,
})

describe('SessionStore', () => {
  it('lives at <state>/agents/<agent>/sessions/sessions.json; missing file = empty', () => {
    const store = new SessionStore({ stateDir, agentId: 'main' })
    expect(store.path).toBe(path.join(stateDir, 'agents', 'main', 'sessions', 'sessions.json'))
    expect(store.list()).toEqual([])
    expect(store.get(KEY)).toBeUndefined()
    expect(() => new SessionStore({ stateDir, agentId: '../x' })).toThrow(ApiError)
  })

  it('creates, updates and deletes entries; file is pretty JSON identical to JSON.stringify(…, 2), mode 0600', async () => {
    const store = new SessionStore({ stateDir, agentId: 'main' })
    const created = await store.update(KEY, () => entry({ label: 'hello', model: 'openai/gpt' }))
    expect(created).toEqual(entry({ label: 'hello', model: 'openai/gpt' }))
    await store.update('agent:main:other', () => entry({ sessionId: 's2' }))
    const updated = await store.update(KEY, (cur) => ({ ...cur!, label: 'renamed', updatedAt: 5 }))
    expect(updated?.label).toBe('renamed')
    const disk = readDisk(store)
    expect(Object.keys(disk)).toEqual([KEY, 'agent:main:other'])
    expect(fs.readFileSync(store.path, 'utf8')).toBe(JSON.stringify(disk, null, 2) + '\n')
    expect(fs.statSync(store.path).mode & 0o777).toBe(0o600)
    expect(store.list().map(([k]) => k)).toEqual([KEY, 'agent:main:other'])

    await store.delete('agent:main:other')
    expect(Object.keys(readDisk(store))).toEqual([KEY])
    expect(store.get('agent:main:other')).toBeUndefined()
    expect(fs.readdirSync(path.dirname(store.path)).sort()).toEqual(['sessions.json'])
  })

  it('undefined from the mutator means no change and no write', async () => {
    const store = new SessionStore({ stateDir, agentId: 'main' })
    await store.update(KEY, () => entry())
    const before = fs.statSync(store.path, { bigint: true })
    const r = await store.update(KEY, () => undefined)
    expect(r).toEqual(entry())
    expect(fs.statSync(store.path, { bigint: true }).ino).toBe(before.ino)
    expect(await store.update('agent:main:none', () => undefined)).toBeUndefined()
  })

  it('canonicalizes keys and rejects malformed or foreign-agent keys', async () => {
    const store = new SessionStore({ stateDir, agentId: 'main' })
    await store.update('AGENT:MAIN:Main', () => entry())
    expect(store.get(KEY)).toBeDefined()
    expect(store.get('main')).toBeDefined() // bare key → agent:main:main
    await expect(store.update('agent:main', () => entry())).rejects.toMatchObject({ code: 'INVALID_REQUEST' })
    await expect(store.update('agent:ops:main', () => entry())).rejects.toMatchObject({ code: 'INVALID_REQUEST' })
    expect(store.get('agent::x')).toBeUndefined()
  })

  it('stamps updatedAt when missing, drops undefined fields, rejects entries without sessionId', async () => {
    const store = new SessionStore({ stateDir, agentId: 'main' })
    const e = await store.update(KEY, () => ({ sessionId: 'x', label: undefined }) as unknown as SessionEntry)
    expect(typeof e?.updatedAt).toBe('number')
    expect(e).not.toHaveProperty('label')
    await expect(store.update(KEY, () => ({ updatedAt: 1 }) as SessionEntry)).rejects.toMatchObject({ code: 'INVALID_REQUEST' })
    await expect(store.update(KEY, (() => Promise.resolve(entry())) as never)).rejects.toThrow(/synchronous/)
    expect(store.get(KEY)?.sessionId).toBe('x')
  })

  it('cached entries are frozen; the mutator gets a private copy', async () => {
    const store = new SessionStore({ stateDir, agentId: 'main' })
    await store.update(KEY, () => entry({ skillsSnapshot: { fingerprint: 'a', skills: [] } }))
    const cached = store.get(KEY)!
    expect(() => {
      ;(cached as { label?: string }).label = 'x'
    }).toThrow(TypeError)
    expect(() => (cached.skillsSnapshot!.skills as unknown[]).push(1)).toThrow(TypeError)
    await store.update(KEY, (cur) => {
      cur!.label = 'mutated copy'
      cur!.skillsSnapshot!.skills.push({ name: 'n', description: 'd', path: 'p' })
      return cur
    })
    expect(cached.label).toBeUndefined()
    expect(store.get(KEY)?.label).toBe('mutated copy')
  })

  it('shared: the mutator gets the frozen stored entry; untouched members are kept as they are, changed ones copied and frozen', async () => {
    const store = new SessionStore({ stateDir, agentId: 'main' })
    await store.update(KEY, () => entry({ skillsSnapshot: { fingerprint: 'a', skills: [] }, systemPromptReport: { builtAt: 1, chars: 2, sections: [], bootstrapFiles: [], skills: [] } }))
    const first = store.get(KEY)!
    let seen: SessionEntry | undefined
    const timing = { acceptedAt: 5, startedAt: 6 }
    await store.update(KEY, (cur) => ((seen = cur), { ...cur!, status: 'running', lastRunTiming: timing, endedAt: undefined }), { shared: true })
    expect(seen).toBe(first) // no private copy
    const second = store.get(KEY)!
    expect(second).not.toBe(first)
    expect(second.skillsSnapshot).toBe(first.skillsSnapshot) // kept, not copied
    expect(second.systemPromptReport).toBe(first.systemPromptReport)
    expect(second.lastRunTiming).toEqual(timing)
    expect(second.lastRunTiming).not.toBe(timing) // the caller's object is copied...
    expect(Object.isFrozen(second.lastRunTiming)).toBe(true) // ...and frozen
    expect(Object.isFrozen(timing)).toBe(false)
    expect('endedAt' in second).toBe(false)
    // a shared mutator that changes the stored entry fails (frozen) and changes nothing
    await expect(store.update(KEY, (cur) => ((cur!.label = 'x'), cur), { shared: true })).rejects.toThrow(TypeError)
    expect(store.get(KEY)).toBe(second)
    await store.flush()
    expect(readDisk(store)[KEY]).toEqual(JSON.parse(JSON.stringify(second)))
  })

  it('shared deferred updates are replayed on top of another process’s write like any other', async () => {
    const store = new SessionStore({ stateDir, agentId: 'main', defer: true, deferMs: 10_000 })
    await store.update(KEY, () => entry({ sessionId: 'shared', inputTokens: 1 }))
    await store.update(KEY, (cur) => ({ ...cur!, inputTokens: (cur!.inputTokens ?? 0) + 1 }), { shared: true })
    fs.mkdirSync(path.dirname(store.path), { recursive: true })
    fs.writeFileSync(store.path, JSON.stringify({ [KEY]: entry({ sessionId: 'shared', inputTokens: 41, label: 'theirs' }) }))
    // both logged updates replay on the fresher data: the first sets 1, the shared increment makes 2
    expect(store.get(KEY)!.inputTokens).toBe(2)
    expect(store.get(KEY)!.label).toBeUndefined()
    await store.update(KEY, (cur) => ({ ...cur!, label: 'ours' }), { shared: true })
    await store.flush()
    expect(readDisk(store)[KEY]).toMatchObject({ inputTokens: 2, label: 'ours' })
  })

  it('a throwing mutator fails only its own update', async () => {
    const store = new SessionStore({ stateDir, agentId: 'main' })
    const results = await Promise.allSettled([
      store.update(KEY, incr),
      store.update(KEY, () => {
        throw new Error('bad mutator')
      }),
      store.update(KEY, incr),
    ])
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled'])
    expect((results[1] as PromiseRejectedResult).reason.message).toBe('bad mutator')
    expect(readDisk(store)[KEY].inputTokens).toBe(2)
  })

  it('50 parallel increments from one process lose nothing, even across two store objects', async () => {
    const a = new SessionStore({ stateDir, agentId: 'main' })
    const b = new SessionStore({ stateDir, agentId: 'main' })
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 ? a : b).update(KEY, incr)))
    expect(results.map((r) => r?.inputTokens).sort((x, y) => x! - y!)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1))
    expect(readDisk(a)[KEY].inputTokens).toBe(50)
    expect(b.get(KEY)?.inputTokens).toBe(50)
  })

  it('coalesces updates issued together into fewer writes', async () => {
    const store = new SessionStore({ stateDir, agentId: 'main', fsync: false })
    const spy = vi.spyOn(fs, 'rename')
    await Promise.all(Array.from({ length: 20 }, (_, i) => store.update(`agent:main:s${i}`, () => entry({ sessionId: `id${i}` }))))
    const renames = renamesTo(spy, store.path)
    spy.mockRestore()
    expect(renames).toBe(1)
    expect(Object.keys(readDisk(store))).toHaveLength(20)
  })

  it('sees changes written by another process (stat-validated cache)', async () => {
    const store = new SessionStore({ stateDir, agentId: 'main' })
    await store.update(KEY, () => entry({ label: 'mine' }))
    expect(store.get(KEY)?.label).toBe('mine')
    // simulate another process replacing the file
    const other = { [KEY]: entry({ label: 'theirs' }), 'agent:main:x': entry({ sessionId: 'x' }) }
    fs.writeFileSync(store.path + '.tmp', JSON.stringify(other))
    fs.renameSync(store.path + '.tmp', store.path)
    expect(store.get(KEY)?.label).toBe('theirs')
    expect(store.list()).toHaveLength(2)
    // and the next update builds on their data
    await store.update('agent:main:y', () => entry({ sessionId: 'y' }))
    expect(Object.keys(readDisk(store)).sort()).toEqual([KEY, 'agent:main:x', 'agent:main:y'])
  })

  it('does not re-read its own write while the flush renames it and syncs the directory, yet still sees a foreign write', async () => {
    const store = new SessionStore({ stateDir, agentId: 'main', fsync: true })
    await store.update(KEY, () => entry({ label: 'first' })) // initial load + first write
    const reads = vi.spyOn(fs, 'openSync') // the store is read through readSmallRegularFile
    const storeReads = () => reads.mock.calls.filter(([f]) => f === store.path).length
    const realRename = fs.rename
    const seen: Array<string | undefined> = []
    const rename = vi.spyOn(fs, 'rename').mockImplementation(((from: fs.PathLike, to: fs.PathLike, cb: fs.NoParamCallback) =>
      realRename(from, to, (err) => {
        // the file is replaced, the flush has not seen it yet; then again while the directory fsync runs
        if (to === store.path) {
          seen.push(store.get(KEY)?.label)
          queueMicrotask(() => seen.push(store.get(KEY)?.label))
        }
        cb(err)
      })) as typeof fs.rename)
    await store.update(KEY, (cur) => ({ ...cur!, label: 'second' }))
    rename.mockRestore()
    expect(seen).toEqual(['second', 'second'])
    expect(storeReads()).toBe(0)
    expect(store.get(KEY)?.label).toBe('second')
    expect(storeReads()).toBe(0)
    // a real change by someone else (new inode) is still picked up
    fs.writeFileSync(store.path + '.other', JSON.stringify({ [KEY]: entry({ label: 'theirs' }) }))
    fs.renameSync(store.path + '.other', store.path)
    expect(store.get(KEY)?.label).toBe('theirs')
    expect(storeReads()).toBe(1)
    reads.mockRestore()
  })

  it('cross-process: two child processes incrementing concurrently lose no update', async () => {
    const N = 150
    const startAt = String(Date.now() + 2000)
    const children = [0, 1].map(() => spawnChild(['incr', stateDir, 'main', KEY, String(N), startAt]))
    const outs = await Promise.all(children.map(exited))
    for (const o of outs) expect(o, o.stderr).toMatchObject({ code: 0 })
    const store = new SessionStore({ stateDir, agentId: 'main' })
    expect(store.get(KEY)?.inputTokens).toBe(2 * N)
    expect(fs.existsSync(store.path + '.lock')).toBe(false)
  }, 60_000)

  it('cross-process: this process and a child increment concurrently', async () => {
    const store = new SessionStore({ stateDir, agentId: 'main', fsync: false })
    const startAt = Date.now() + 2000
    const child = spawnChild(['incr', stateDir, 'main', KEY, '100', String(startAt)])
    const done = exited(child)
    await new Promise((r) => setTimeout(r, startAt - Date.now()))
    for (let i = 0; i < 100; i++) await store.update(KEY, incr)
    expect((await done).code).toBe(0)
    store.refresh()
    expect(store.get(KEY)?.inputTokens).toBe(200)
  }, 60_000)

  it('waits for a store lock held by a live process and fails with UNAVAILABLE after the timeout, writing nothing', async () => {
    const store = new SessionStore({ stateDir, agentId: 'main', lockTimeoutMs: 300 })
    await store.update(KEY, () => entry())
    const before = fs.readFileSync(store.path)
    const child = spawnChild(['hold', store.path, '20000'])
    const done = exited(child)
    try {
      await waitForLine(child, 'locked')
      await expect(store.update(KEY, incr)).rejects.toMatchObject({ code: 'UNAVAILABLE', retryable: true })
      expect(fs.readFileSync(store.path).equals(before)).toBe(true)
      expect(store.get(KEY)?.inputTokens).toBeUndefined()
    } finally {
      child.kill('SIGKILL')
      await done
    }
    // holder died: its lock is reclaimed and updates work again
    await expect(store.update(KEY, incr)).resolves.toMatchObject({ inputTokens: 1 })
  })

  it('reclaims a store lock left by a dead process', async () => {
    const store = new SessionStore({ stateDir, agentId: 'main' })
    fs.mkdirSync(path.dirname(store.path), { recursive: true })
    fs.writeFileSync(store.path + '.lock', JSON.stringify({ pid: await deadPid(), createdAt: Date.now() }))
    await expect(store.update(KEY, () => entry())).resolves.toBeDefined()
  })

  it('a write failure rejects the batch with STORAGE_ERROR and leaves cache and file untouched', async () => {
    const store = new SessionStore({ stateDir, agentId: 'main' })
    await store.update(KEY, () => entry({ label: 'kept' }))
    const spy = failRenameOnce('no space left', 'ENOSPC')
    await expect(store.update(KEY, (c) => ({ ...c!, label: 'lost' }))).rejects.toMatchObject({ code: 'STORAGE_ERROR' })
    spy.mockRestore()
    expect(store.get(KEY)?.label).toBe('kept')
    expect(readDisk(store)[KEY].label).toBe('kept')
    expect(fs.readdirSync(path.dirname(store.path)).sort()).toEqual(['sessions.json']) // temp file cleaned up
  })

  it('an unreadable sessions.json is backed up, not lost, and the store keeps working', async () => {
    const store = new SessionStore({ stateDir, agentId: 'main' })
    fs.mkdirSync(path.dirname(store.path), { recursive: true })
    fs.writeFileSync(store.path, '{"agent:main:main": {"sessionId": "a", "updatedAt": 1},  garbage')
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    expect(store.list()).toEqual([])
    expect(warn).toHaveBeenCalledOnce()
    warn.mockRestore()
    const backups = fs.readdirSync(path.dirname(store.path)).filter((f) => f.includes('.corrupt-'))
    expect(backups).toHaveLength(1)
    expect(fs.readFileSync(path.join(path.dirname(store.path), backups[0]), 'utf8')).toContain('garbage')
    await store.update(KEY, () => entry())
    expect(readDisk(store)[KEY].sessionId).toBe('s1')
  })

  it('skips unusable entries but keeps a copy of the file', async () => {
    const store = new SessionStore({ stateDir, agentId: 'main' })
    fs.mkdirSync(path.dirname(store.path), { recursive: true })
    fs.writeFileSync(store.path, JSON.stringify({ [KEY]: entry(), 'agent:main:bad': { nope: 1 } }))
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    expect(store.list().map(([k]) => k)).toEqual([KEY])
    warn.mockRestore()
    expect(fs.readdirSync(path.dirname(store.path)).some((f) => f.includes('.corrupt-'))).toBe(true)
  })

  it('archives transcripts as <id>.jsonl.<reason>.<ts>', async () => {
    const store = new SessionStore({ stateDir, agentId: 'main' })
    const file = store.transcriptPath('abc')
    expect(file).toBe(path.join(store.dir, 'abc.jsonl'))
    expect(await store.archiveTranscript('abc', 'reset')).toBeUndefined()
    fs.mkdirSync(store.dir, { recursive: true })
    fs.writeFileSync(file, 'line\n')
    const archived = await store.archiveTranscript('abc', 'reset')
    expect(archived).toMatch(/abc\.jsonl\.reset\.\d{4}-\d{2}-\d{2}T[\d-]+Z$/)
    expect(fs.existsSync(file)).toBe(false)
    expect(fs.readFileSync(archived!, 'utf8')).toBe('line\n')
    expect(() => store.transcriptPath('../../x')).toThrow(/invalid sessionId/)
    await expect(store.archiveTranscript('abc', '../x')).rejects.toThrow(/invalid archive reason/)
  })

  describe('deferred updates (group commit)', () => {
    it('resolve at once, are visible through get(), and are written together within deferMs', async () => {
      const store = new SessionStore({ stateDir, agentId: 'main', defer: true, deferMs: 30 })
      const spy = vi.spyOn(fs, 'rename')
      const r = await store.update(KEY, () => entry({ label: 'fast' }))
      expect(r?.label).toBe('fast')
      expect(store.get(KEY)?.label).toBe('fast')
      expect(fs.existsSync(store.path)).toBe(false)
      expect(store.unwritten).toBe(1)
      for (let i = 0; i < 10; i++) await store.update(KEY, incr)
      // poll instead of a fixed sleep: the group commit fires deferMs after the first update (slow under load)
      await vi.waitFor(() => expect(store.unwritten).toBe(0), { timeout: 5000, interval: 10 })
      expect(renamesTo(spy, store.path)).toBe(1)
      spy.mockRestore()
      expect(readDisk(store)[KEY]).toMatchObject({ label: 'fast', inputTokens: 10 })
    })

    it('keep call order with durable updates issued in the same tick', async () => {
      const store = new SessionStore({ stateDir, agentId: 'main' })
      const durable = store.update(KEY, () => entry({ status: 'running' }))
      void store.update(KEY, (c) => ({ ...c!, status: 'done' }), { defer: true })
      expect((await durable)?.status).toBe('running') // what this update produced...
      await store.flush()
      expect(readDisk(store)[KEY].status).toBe('done') // ...and the later one wins on disk
    })

    it('are replayed on top of another process’s write (nothing lost)', async () => {
      const store = new SessionStore({ stateDir, agentId: 'main', defer: true, deferMs: 10_000 })
      await store.update(KEY, incr) // inputTokens 1, not yet written
      // another process writes the file meanwhile
      fs.mkdirSync(path.dirname(store.path), { recursive: true })
      fs.writeFileSync(store.path, JSON.stringify({ [KEY]: entry({ sessionId: 'shared', inputTokens: 41, label: 'theirs' }) }))
      // the cache catches up and re-applies our pending increment
      expect(store.get(KEY)).toMatchObject({ inputTokens: 42, label: 'theirs' })
      await store.flush()
      expect(readDisk(store)[KEY]).toMatchObject({ inputTokens: 42, label: 'theirs' })
    })

    it('cross-process with deferred writes in both children: no lost update, tail written by the exit hook', async () => {
      const N = 150
      const startAt = String(Date.now() + 2000)
      const children = [0, 1].map(() => spawnChild(['incr', stateDir, 'main', KEY, String(N), startAt, 'defer']))
      const outs = await Promise.all(children.map(exited))
      for (const o of outs) expect(o, o.stderr).toMatchObject({ code: 0 })
      expect(new SessionStore({ stateDir, agentId: 'main' }).get(KEY)?.inputTokens).toBe(2 * N)
    }, 60_000)

    it('a failed deferred write stays in memory and is retried', async () => {
      const store = new SessionStore({ stateDir, agentId: 'main', defer: true, deferMs: 5 })
      const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
      const spy = failRenameOnce('disk full', 'ENOSPC')
      await store.update(KEY, () => entry({ label: 'eventually' }))
      await vi.waitFor(() => expect(warn).toHaveBeenCalled(), { timeout: 5000, interval: 10 })
      expect(store.get(KEY)?.label).toBe('eventually')
      expect(store.unwritten).toBe(1)
      await vi.waitFor(() => expect(store.unwritten).toBe(0), { timeout: 10_000, interval: 50 }) // retried after 1 s
      spy.mockRestore()
      warn.mockRestore()
      expect(readDisk(store)[KEY].label).toBe('eventually')
    })
  })

  it('a durable update whose mutator fails when replayed on fresher data is rejected', async () => {
    const store = new SessionStore({ stateDir, agentId: 'main' })
    await store.update(KEY, () => entry())
    const p = store.update(KEY, (cur) => {
      if (cur?.label === 'locked') throw new Error('session is locked')
      return { ...cur!, label: 'mine' }
    })
    // another process writes before our flush runs
    fs.writeFileSync(store.path, JSON.stringify({ [KEY]: entry({ label: 'locked' }) }))
    await expect(p).rejects.toThrow('session is locked')
    expect(store.get(KEY)?.label).toBe('locked')
  })

  it("a mutator's view of the other entries is replayed on fresher data too (a fork's free name, picked across processes)", async () => {
    const store = new SessionStore({ stateDir, agentId: 'main' })
    await store.update(KEY, () => entry({ displayName: 'Trip' }))
    const pickName = (_cur: SessionEntry | undefined, all: ReadonlyMap<string, SessionEntry>): SessionEntry => {
      const names = new Set([...all.values()].map((e) => e.displayName))
      let n = 1
      while (names.has(`Trip (fork${n > 1 ? ` ${n}` : ''})`)) n++
      return entry({ sessionId: 'mine', displayName: `Trip (fork${n > 1 ? ` ${n}` : ''})` })
    }
    const mine = store.update('agent:main:chat-mine', pickName)
    // another process stores its fork "Trip (fork)" before our flush: ours steps past it
    fs.writeFileSync(store.path, JSON.stringify({ [KEY]: entry({ displayName: 'Trip' }), 'agent:main:chat-theirs': entry({ sessionId: 'theirs', displayName: 'Trip (fork)' }) }))
    expect((await mine)?.displayName).toBe('Trip (fork 2)')
    expect(readDisk(store)['agent:main:chat-theirs'].displayName).toBe('Trip (fork)')
  })

  it('whenIdle resolves after queued writes', async () => {
    const store = new SessionStore({ stateDir, agentId: 'main' })
    await store.whenIdle()
    void store.update(KEY, () => entry({ label: 'later' }))
    await store.whenIdle()
    expect(readDisk(store)[KEY].label).toBe('later')
  })
})
