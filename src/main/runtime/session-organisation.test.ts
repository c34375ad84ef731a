// sessions.patch organisation fields, lifecycle preconditions and archive rules through `dispatch` on the
// real runtime; persistence checked from a second process after the runtime closed.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { SessionsChangedEvent } from '../../shared/events'
import type { SessionRow } from '../../shared/methods'
import { startModelServer, type ModelServer } from '../../../test/fixtures/model-server'
import { startTestRuntime, type TestRuntime } from '../../../test/fixtures/test-runtime'
import { until } from '../../../test/fixtures/until'
import { exited, spawnChild } from './sessions/test-fixtures/child'

let server: ModelServer
beforeAll(async () => {
  server = await startModelServer({ fallback: { text: 'ok' } })
})
afterAll(() => server.close())

let t: TestRuntime
beforeEach(async () => {
  t = await startTestRuntime(server)
})
afterEach(() => t.close())

const changes = (key: string) =>
  t.events.filter((e) => e.event === 'sessions.changed' && e.payload.sessionKey === key).map((e) => e.payload as SessionsChangedEvent)
const errorOf = async (method: Parameters<TestRuntime['raw']>[0], params: unknown) => {
  const r = await t.raw(method, params)
  if (r.ok) throw new Error(`${method} succeeded`)
  return r.error
}
const row = async (key: string): Promise<SessionRow | undefined> =>
  (await t.call('sessions.list', { archived: 'all', limit: 1000 })).sessions.find((s) => s.key === key)

describe('sessions.patch organisation fields', () => {
  it('sets and clears each field; rows, results and sessions.changed carry them; stored atomically, read back by another process', async () => {
    const key = (await t.call('sessions.create', { key: 'agent:main:org' })).key
    const set = await t.call('sessions.patch', {
      key,
      pinned: true,
      icon: '🧪',
      color: 'Purple',
      category: 'Research',
      statusNote: 'Waiting for the dataset',
      attention: 'hourglass',
      ttlMinutes: 10,
      unread: true,
    })
    const now = Date.now()
    expect(set.entry).toMatchObject({
      pinned: true,
      archived: false,
      unread: true,
      icon: '🧪',
      color: 'purple',
      category: 'Research',
      agentStatus: { note: 'Waiting for the dataset', attention: 'hourglass' },
    })
    expect(set.entry.agentStatus!.expiresAt).toBeGreaterThan(now + 9 * 60_000)
    expect(set.entry.agentStatus!.expiresAt).toBeLessThanOrEqual(now + 10 * 60_000)
    expect(changes(key).at(-1)).toMatchObject({ reason: 'patch', session: { pinned: true, icon: '🧪', category: 'Research' } })
    expect(await row(key)).toMatchObject({ pinned: true, color: 'purple', unread: true, markedUnreadAt: expect.any(Number) })

    // on disk, in the one atomic write of the store
    const file = path.join(t.stateDir, 'agents', 'main', 'sessions', 'sessions.json')
    await t.runtime.core.store('main').flush()
    const stored = JSON.parse(fs.readFileSync(file, 'utf8'))[key]
    expect(stored).toMatchObject({ pinnedAt: expect.any(Number), icon: '🧪', color: 'purple', category: 'Research', markedUnreadAt: expect.any(Number) })

    // reading acknowledges the mark and the status note
    const read = await t.call('sessions.patch', { key, unread: false })
    expect(read.entry).toMatchObject({ unread: false, lastReadAt: expect.any(Number) })
    expect(read.entry).not.toHaveProperty('markedUnreadAt')
    expect(read.entry).not.toHaveProperty('agentStatus')

    const cleared = await t.call('sessions.patch', { key, pinned: false, icon: null, color: null, category: null })
    for (const f of ['pinnedAt', 'icon', 'color', 'category']) expect(cleared.entry).not.toHaveProperty(f)
    expect(cleared.entry.pinned).toBe(false)

    await t.call('sessions.patch', { key, statusNote: 'back soon', attention: 'flag' })
    expect((await t.call('sessions.patch', { key, statusNote: null })).entry).not.toHaveProperty('agentStatus')
    await t.call('sessions.patch', { key, archived: true, icon: 'book', category: 'Done' })
  })

  it('survives a restart', async () => {
    const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ld-org-'))
    const first = await startTestRuntime(server, { stateDir })
    const { key, entry } = await first.call('sessions.create', { key: 'agent:main:kept', label: 'Kept' })
    await first.call('sessions.patch', { key, archived: true, icon: 'book', color: 'red', category: 'Old', statusNote: 'parked', ttlMinutes: 60 })
    await first.close()
    const child = spawnChild(['rows', stateDir, 'main'])
    let out = ''
    child.stdout!.on('data', (d) => (out += String(d)))
    expect((await exited(child)).code).toBe(0)
    const rows = JSON.parse(out) as SessionRow[]
    expect(rows.find((r) => r.key === key)).toMatchObject({
      label: 'Kept',
      lifecycleRevision: entry.lifecycleRevision,
      archived: true,
      archivedAt: expect.any(Number),
      icon: 'book',
      color: 'red',
      category: 'Old',
      agentStatus: { note: 'parked' },
    })
    fs.rmSync(stateDir, { recursive: true, force: true })
  })

  it('refuses invalid values and changes nothing', async () => {
    const key = (await t.call('sessions.create', { key: 'agent:main:strict' })).key
    for (const [params, message] of [
      [{ icon: 'rocket' }, /^invalid icon/],
      [{ color: 'teal' }, /^invalid color/],
      [{ category: '   ' }, /^invalid category: empty$/],
      [{ attention: 'hand' }, /^statusNote required/],
      [{ statusNote: null, attention: 'hand' }, /^cannot clear and set/],
      [{ archived: true, pinned: true }, /^cannot pin an archived session/],
    ] as const) {
      expect(await errorOf('sessions.patch', { key, label: 'never stored', ...params }), JSON.stringify(params)).toMatchObject({
        code: 'INVALID_REQUEST',
        message: expect.stringMatching(message),
      })
    }
    expect((await errorOf('sessions.patch', { key, ttlMinutes: 0 })).code).toBe('INVALID_REQUEST') // schema
    expect(await row(key)).not.toHaveProperty('label')
    expect(changes(key).filter((c) => c.reason === 'patch')).toEqual([])
  })

  it('expectedMarkedUnreadAt: a stale acknowledgement keeps the newer mark; it must be the only change', async () => {
    const key = (await t.call('sessions.create', { key: 'agent:main:ack' })).key
    const marked = (await t.call('sessions.patch', { key, unread: true })).entry.markedUnreadAt!
    const patches = () => changes(key).filter((c) => c.reason === 'patch').length
    const before = patches()
    const remarked = (await t.call('sessions.patch', { key, unread: true })).entry.markedUnreadAt!
    expect(remarked).toBeGreaterThan(marked)
    const stale = await t.call('sessions.patch', { key, unread: false, expectedMarkedUnreadAt: marked })
    expect(stale.entry).toMatchObject({ unread: true, markedUnreadAt: remarked })
    expect(patches()).toBe(before + 1) // the stale acknowledgement wrote nothing and announced nothing
    const acked = await t.call('sessions.patch', { key, unread: false, expectedMarkedUnreadAt: remarked })
    expect(acked.entry).toMatchObject({ unread: false })
    // null asserts there is no mark: now true, so it applies
    expect((await t.call('sessions.patch', { key, unread: false, expectedMarkedUnreadAt: null })).entry.unread).toBe(false)
    expect(await errorOf('sessions.patch', { key, unread: false, pinned: true, expectedMarkedUnreadAt: null })).toMatchObject({
      code: 'INVALID_REQUEST',
      message: 'expectedMarkedUnreadAt requires unread=false as the only mutation.',
    })
  })
})

describe('lifecycle revision and preconditions', () => {
  it('minted on create (sessions.create and a first message), new on reset, kept by patches', async () => {
    const a = await t.call('sessions.create', { key: 'agent:main:rev' })
    expect(a.entry.lifecycleRevision).toMatch(/^[0-9a-f-]{36}$/)
    const patched = await t.call('sessions.patch', { key: a.key, label: 'Rev', pinned: true })
    expect(patched.entry.lifecycleRevision).toBe(a.entry.lifecycleRevision)
    const reset = await t.call('sessions.reset', { key: a.key })
    expect(reset.entry.lifecycleRevision).not.toBe(a.entry.lifecycleRevision)
    // reset keeps where the session is filed and how it looks
    expect(reset.entry).toMatchObject({ label: 'Rev', pinned: true })

    await t.call('chat.send', { sessionKey: 'agent:main:by-send', message: 'hi', idempotencyKey: 'rev-send' })
    await t.call('agent.wait', { runId: 'rev-send', timeoutMs: 10_000 })
    expect((await row('agent:main:by-send'))?.lifecycleRevision).toMatch(/^[0-9a-f-]{36}$/)
  })

  it('sessions.patch with a stale expectedLifecycleRevision or expectedSessionId is refused and changes nothing', async () => {
    const { key, entry } = await t.call('sessions.create', { key: 'agent:main:fenced' })
    await t.call('sessions.reset', { key })
    for (const stale of [{ expectedLifecycleRevision: entry.lifecycleRevision! }, { expectedSessionId: entry.sessionId }]) {
      expect(await errorOf('sessions.patch', { key, archived: true, ...stale })).toEqual({
        code: 'INVALID_REQUEST',
        message: `Session ${key} changed before patch. Retry.`,
        details: expect.objectContaining({ reason: 'session-changed' }),
      })
    }
    expect(await row(key)).toMatchObject({ archived: false })
    const now = (await row(key))!
    const ok = await t.call('sessions.patch', { key, archived: true, expectedLifecycleRevision: now.lifecycleRevision!, expectedSessionId: now.sessionId })
    expect(ok.entry.archived).toBe(true)
  })

  it('sessions.delete: lifecycle revision, updatedAt and archivedOnly preconditions', async () => {
    const { key, entry } = await t.call('sessions.create', { key: 'agent:main:doomed' })
    const changed = (params: Record<string, unknown>) => errorOf('sessions.delete', { key, ...params })
    expect(await changed({ expectedSessionUpdatedAt: entry.updatedAt - 1 })).toMatchObject({
      code: 'INVALID_REQUEST',
      message: `Session ${key} changed before deletion. Retry.`,
      details: { reason: 'session-changed', expectedSessionUpdatedAt: entry.updatedAt - 1, currentSessionUpdatedAt: entry.updatedAt },
    })
    expect(await changed({ expectedLifecycleRevision: 'not-this-one' })).toMatchObject({ details: { reason: 'session-changed' } })
    expect(await changed({ archivedOnly: true })).toMatchObject({
      code: 'INVALID_REQUEST',
      message: `Session ${key} is not archived. Archive it first, then delete it.`,
    })
    expect(await row(key)).toBeDefined()

    const archived = (await t.call('sessions.patch', { key, archived: true })).entry
    const del = await t.call('sessions.delete', {
      key,
      archivedOnly: true,
      expectedSessionId: archived.sessionId,
      expectedLifecycleRevision: archived.lifecycleRevision,
      expectedSessionUpdatedAt: archived.updatedAt,
    })
    expect(del).toMatchObject({ ok: true, deleted: true })
    expect(await row(key)).toBeUndefined()
    // a session that does not exist is not archived either
    expect(await errorOf('sessions.delete', { key, archivedOnly: true })).toMatchObject({ message: expect.stringContaining('is not archived') })
  })
})

describe('archived sessions', () => {
  it('are listed only when asked for; take no new work until restored; main cannot be archived', async () => {
    const key = (await t.call('sessions.create', { key: 'agent:main:shelf' })).key
    await t.call('sessions.create', { key: 'agent:main:desk' })
    await t.call('sessions.patch', { key, archived: true })
    const keys = async (archived?: boolean | 'all') => (await t.call('sessions.list', archived === undefined ? {} : { archived })).sessions.map((s) => s.key)
    expect(await keys()).not.toContain(key)
    expect(await keys(false)).not.toContain(key)
    expect(await keys(true)).toEqual([key])
    expect(await keys('all')).toEqual(expect.arrayContaining([key, 'agent:main:desk']))

    const before = server.requests.length
    expect(await errorOf('chat.send', { sessionKey: key, message: 'hello?', idempotencyKey: 'shelved-1' })).toMatchObject({
      code: 'INVALID_REQUEST',
      message: `Session "${key}" is archived. Restore it before starting new work.`,
    })
    expect(await errorOf('agent', { sessionKey: key, message: 'hello?', idempotencyKey: 'shelved-2' })).toMatchObject({ code: 'INVALID_REQUEST' })
    expect(server.requests.length).toBe(before)

    await t.call('sessions.patch', { key, archived: false })
    await t.call('chat.send', { sessionKey: key, message: 'hello again', idempotencyKey: 'shelved-3' })
    await expect(t.call('agent.wait', { runId: 'shelved-3', timeoutMs: 10_000 })).resolves.toMatchObject({ status: 'ok' })

    for (const main of ['agent:main:main', 'main', 'agent:main:global']) {
      if (main !== 'main') await t.call('sessions.create', { key: main })
      expect(await errorOf('sessions.patch', { key: main, archived: true })).toMatchObject({ message: "Cannot archive an agent's main session." })
      // nor deleted (OpenClaw), and the session is still there
      const before = (await t.call('sessions.list', {})).sessions.map((s) => s.key)
      expect(await errorOf('sessions.delete', { key: main })).toMatchObject({
        code: 'INVALID_REQUEST',
        message: expect.stringMatching(/^Cannot delete the main session \(agent:main:(main|global)\)\. Reset it to start over\.$/),
      })
      expect((await t.call('sessions.list', {})).sessions.map((s) => s.key)).toEqual(before)
    }
  })

  it('a session with an active run cannot be archived', async () => {
    const key = 'agent:main:busy'
    server.push({ hang: true })
    await t.call('chat.send', { sessionKey: key, message: 'long', idempotencyKey: 'busy-1' })
    await until(() => t.runtime.core.runner.activeRun('busy-1') !== undefined, 5000)
    expect(await errorOf('sessions.patch', { key, archived: true })).toMatchObject({ message: 'Cannot archive a session with an active run.' })
    await t.call('sessions.abort', { key })
    await t.call('agent.wait', { runId: 'busy-1', timeoutMs: 10_000 })
    await until(() => t.runtime.core.tracked.size === 0, 5000)
    expect((await t.call('sessions.patch', { key, archived: true })).entry.archived).toBe(true)
  })
})
