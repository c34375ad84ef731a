// chat.history over the real runtime: cursor deltas against what session.message delivered, resets after
// sessions.reset and compaction, messageId windows (also in a transcript a reset archived), waiting inputs.
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import type { SessionMessagePayload } from '../../shared/methods'
import { historyRowOfPayload } from '../../shared/history-row'
import { startModelServer, type ModelServer } from '../../../test/fixtures/model-server'
import { startTestRuntime, testConfig, type TestRuntime } from '../../../test/fixtures/test-runtime'
import { until } from '../../../test/fixtures/until'

let server: ModelServer
let t: TestRuntime
const quiet = { logger: { warn: () => {}, error: () => {}, info: () => {} }, loadPlugins: false, loadInternalHooks: false }

beforeAll(async () => {
  server = await startModelServer({ fallback: { text: 'ok' } })
  // compaction settings that let sessions.compact summarize a short session (the summary is the fallback text)
  const config = testConfig(server, { agents: { defaults: { compaction: { reserveTokens: 1000, keepRecentTurns: 1 } } } })
  t = await startTestRuntime(server, { config, runtime: { extensions: quiet } })
})
afterAll(async () => {
  await t?.close()
  await server?.close()
})

async function turn(sessionKey: string, message: string, id: string) {
  await t.call('chat.send', { sessionKey, message, idempotencyKey: id })
  expect(await t.call('agent.wait', { runId: id, timeoutMs: 10_000 })).toMatchObject({ status: 'ok' })
}

async function refused(params: Record<string, unknown>) {
  const r = await t.raw('chat.history', params)
  expect(r.ok).toBe(false)
  return r.ok ? undefined : r.error
}

describe('chat.history cursor', () => {
  it('a delta after new messages is exactly what session.message delivered, with a new cursor; limit does not bound it', async () => {
    const key = 'agent:main:delta'
    await turn(key, 'first', 'delta-1')
    const tail = await t.call('chat.history', { sessionKey: key })
    expect(tail.deltaCursor).toEqual(expect.any(String))
    // nothing new yet
    expect(await t.call('chat.history', { sessionKey: key, cursor: tail.deltaCursor! })).toMatchObject({ kind: 'delta', messages: [], deltaCursor: tail.deltaCursor })

    const live: SessionMessagePayload[] = []
    // (the live event also carries the session's row as it was then: the gateway's snapshot, not part of the delta)
    const off = t.runtime.onSessionMessage!(({ session, ...ev }) => ev.sessionKey === key && session?.key === key && live.push(ev))
    await turn(key, 'second', 'delta-2')
    await turn(key, 'third', 'delta-3')
    off()
    const d = await t.call('chat.history', { sessionKey: key, cursor: tail.deltaCursor!, limit: 1 })
    if (d.kind !== 'delta') throw new Error('expected a delta')
    expect(d.messages).toHaveLength(4)
    expect(d.messages).toEqual(live)
    expect(d.messages.map((m) => m.message.__openclaw?.seq)).toEqual([3, 4, 5, 6])
    // (agent.wait may answer a moment before its run leaves the session's run list)
    expect(d.sessionInfo).toEqual({ hasActiveRun: expect.any(Boolean), activeRunIds: expect.any(Array) })
    expect(d.pendingInputs).toEqual({ items: [], total: 0 })
    expect(d.deltaCursor).not.toBe(tail.deltaCursor)
    // the new cursor is where a fresh tail page would put it
    expect(d.deltaCursor).toBe((await t.call('chat.history', { sessionKey: key })).deltaCursor)
    expect(await t.call('chat.history', { sessionKey: key, cursor: d.deltaCursor })).toMatchObject({ kind: 'delta', messages: [] })
    // the rows a delta replays are the tail page's rows
    const rows = (await t.call('chat.history', { sessionKey: key })).messages.slice(-4)
    expect(rows.map((r) => r.__openclaw)).toEqual(d.messages.map((m) => m.message.__openclaw))
  })

  it('reset (a success, not an error): malformed or too long, after sessions.reset, after a compaction, for another agent', async () => {
    const key = 'agent:main:rotate'
    await turn(key, 'one', 'rot-1')
    const { deltaCursor } = await t.call('chat.history', { sessionKey: key })
    for (const cursor of ['', 'not a cursor', 'A'.repeat(5000)]) expect(await t.call('chat.history', { sessionKey: key, cursor })).toEqual({ kind: 'reset' })
    // the cursor of one session is no cursor of another
    await turn('agent:main:elsewhere', 'x', 'rot-x')
    expect(await t.call('chat.history', { sessionKey: 'agent:main:elsewhere', cursor: deltaCursor! })).toEqual({ kind: 'reset' })
    await t.call('sessions.reset', { key })
    expect(await t.call('chat.history', { sessionKey: key, cursor: deltaCursor! })).toEqual({ kind: 'reset' })

    const ckey = 'agent:main:compacted'
    // long enough that the summary ('ok') is smaller than what it replaces
    await turn(ckey, 'alpha '.repeat(80), 'cmp-1')
    await turn(ckey, 'beta '.repeat(80), 'cmp-2')
    await turn(ckey, 'gamma', 'cmp-3')
    const before = await t.call('chat.history', { sessionKey: ckey })
    expect(await t.call('sessions.compact', { key: ckey })).toMatchObject({ compacted: true })
    expect(await t.call('chat.history', { sessionKey: ckey, cursor: before.deltaCursor! })).toEqual({ kind: 'reset' })
    // after the compaction a fresh tail gives a cursor that works again
    const after = await t.call('chat.history', { sessionKey: ckey })
    await turn(ckey, 'delta', 'cmp-4')
    const d = await t.call('chat.history', { sessionKey: ckey, cursor: after.deltaCursor! })
    expect(d.kind === 'delta' && d.messages.map((m) => m.message.role)).toEqual(['user', 'assistant'])
  })

  it("a newer Control UI's limit of 10,000 is taken (the page is still capped by bytes); more is refused", async () => {
    await turn('agent:main:big-limit', 'one', 'bl-1')
    const page = await t.call('chat.history', { sessionKey: 'agent:main:big-limit', limit: 10_000 })
    expect(page.messages.map((m) => m.role)).toEqual(['user', 'assistant'])
    expect(page.hasMore).toBe(false)
    expect(await t.raw('chat.history', { sessionKey: 'agent:main:big-limit', limit: 10_001 })).toMatchObject({ ok: false, error: { code: 'INVALID_REQUEST' } })
  })

  it('a session that does not exist yet: a cursor that has nothing new, then reset once it exists', async () => {
    const key = 'agent:main:later'
    const empty = await t.call('chat.history', { sessionKey: key })
    expect(empty).toMatchObject({ sessionId: '', messages: [], deltaCursor: expect.any(String) })
    expect(await t.call('chat.history', { sessionKey: key, cursor: empty.deltaCursor! })).toMatchObject({ kind: 'delta', messages: [] })
    await turn(key, 'now', 'later-1')
    expect(await t.call('chat.history', { sessionKey: key, cursor: empty.deltaCursor! })).toEqual({ kind: 'reset' })
  })
})

describe('chat.history messageId / sessionId', () => {
  it('a window around the row, about half newer, without paging fields; [] for an unknown id', async () => {
    const key = 'agent:main:anchor'
    for (let i = 1; i <= 3; i++) await turn(key, `q${i}`, `anc-${i}`)
    const all = (await t.call('chat.history', { sessionKey: key })).messages
    expect(all).toHaveLength(6)
    const w = await t.call('chat.history', { sessionKey: key, messageId: all[2].__openclaw!.id, limit: 3 })
    expect(w.messages.map((m) => m.id)).toEqual([all[1].id, all[2].id, all[3].id])
    expect(w).toMatchObject({ sessionKey: key, sessionId: expect.any(String), sessionInfo: { hasActiveRun: false } })
    for (const f of ['hasMore', 'nextOffset', 'deltaCursor']) expect(w).not.toHaveProperty(f)
    expect((await t.call('chat.history', { sessionKey: key, messageId: 'no-such-row' })).messages).toEqual([])
  })

  it('with sessionId: a transcript archived by sessions.reset; a sessionId of another session is refused', async () => {
    const key = 'agent:main:archived'
    await turn(key, 'before the reset', 'arc-1')
    const old = await t.call('chat.history', { sessionKey: key })
    const anchor = old.messages[0].__openclaw!.id
    await t.call('sessions.reset', { key })
    const now = await t.call('chat.history', { sessionKey: key })
    expect(now.sessionId).not.toBe(old.sessionId)
    // not in the current transcript …
    expect((await t.call('chat.history', { sessionKey: key, messageId: anchor })).messages).toEqual([])
    // … but in the archived one
    const w = await t.call('chat.history', { sessionKey: key, messageId: anchor, sessionId: old.sessionId })
    expect(w.sessionId).toBe(old.sessionId)
    expect(w.messages.map((m) => m.id)).toEqual(old.messages.map((m) => m.id))
    // the current sessionId works as well
    await turn(key, 'after the reset', 'arc-2')
    const cur = await t.call('chat.history', { sessionKey: key })
    expect((await t.call('chat.history', { sessionKey: key, messageId: cur.messages[0].id, sessionId: cur.sessionId })).messages).toHaveLength(2)

    await turn('agent:main:stranger', 'hi', 'arc-3')
    const stranger = await t.call('chat.history', { sessionKey: 'agent:main:stranger' })
    for (const sessionId of [stranger.sessionId, 'no-such-session', '../escape']) {
      expect(await refused({ sessionKey: key, messageId: anchor, sessionId })).toEqual({ code: 'INVALID_REQUEST', message: 'sessionId does not belong to sessionKey' })
    }
  })
})

describe('chat.history parameter errors (INVALID_REQUEST, OpenClaw’s messages)', () => {
  it('refuses the combinations OpenClaw refuses', async () => {
    const sessionKey = 'agent:main:errors'
    expect(await refused({ sessionKey, offset: 1, messageId: 'm' })).toEqual({ code: 'INVALID_REQUEST', message: 'offset and messageId cannot be used together' })
    expect(await refused({ sessionKey, cursor: 'c', offset: 0 })).toEqual({ code: 'INVALID_REQUEST', message: 'cursor cannot be used with offset or messageId' })
    expect(await refused({ sessionKey, cursor: 'c', messageId: 'm' })).toEqual({ code: 'INVALID_REQUEST', message: 'cursor cannot be used with offset or messageId' })
    expect(await refused({ sessionKey, sessionId: 's' })).toEqual({ code: 'INVALID_REQUEST', message: 'sessionId requires messageId' })
    expect(await refused({ sessionKey, inputRunIds: [] })).toMatchObject({ code: 'INVALID_REQUEST' })
    expect(await refused({ sessionKey, inputRunIds: ['a', 'a'] })).toMatchObject({ code: 'INVALID_REQUEST' })
    expect(await refused({ sessionKey, pendingBefore: 0 })).toMatchObject({ code: 'INVALID_REQUEST' })
  })
})

describe('chat.history pendingInputs and inputReceipts', () => {
  it('a follow-up waiting behind a run is pending; once its run wrote it, consumed by that entry', async () => {
    const key = 'agent:main:inputs'
    server.push({ hang: true })
    await t.call('chat.send', { sessionKey: key, message: 'busy one', idempotencyKey: 'in-1' })
    await until(() => t.runtime.core.runner.activeRun('in-1') !== undefined)
    expect(await t.call('chat.send', { sessionKey: key, message: 'wait for me', idempotencyKey: 'in-2', queueMode: 'followup' })).toMatchObject({ status: 'queued' })
    const ask = { sessionKey: key, inputRunIds: ['in-1', 'in-2', 'in-unknown'] }
    const during = (await until(async () => {
      const h = await t.call('chat.history', ask)
      return h.inputReceipts?.[0]?.state === 'consumed' ? h : undefined
    }))!
    const first = during.messages.find((m) => m.role === 'user')!
    expect(during.inputReceipts).toEqual([
      { runId: 'in-1', state: 'consumed', consumedByEventId: first.id },
      { runId: 'in-2', state: 'pending' },
    ])
    expect(during.inputConsumptions).toEqual([{ runId: 'in-1', consumedByEventId: first.id }])
    expect(during.pendingInputs).toEqual({
      items: [{ id: expect.any(String), runId: 'in-2', message: { role: 'user', content: [{ type: 'text', text: 'wait for me' }], timestamp: expect.any(Number) }, acceptedAt: expect.any(Number), state: 'queued' }],
      total: 1,
    })
    await t.call('chat.abort', { sessionKey: key, runId: 'in-1' })
    await t.call('agent.wait', { runId: 'in-2', timeoutMs: 10_000 })
    const after = await t.call('chat.history', ask)
    const second = after.messages.filter((m) => m.role === 'user')[1]
    expect(after.inputReceipts).toEqual([
      { runId: 'in-1', state: 'consumed', consumedByEventId: first.id },
      { runId: 'in-2', state: 'consumed', consumedByEventId: second.id },
    ])
    expect(after.pendingInputs).toEqual({ items: [], total: 0 })
    // without inputRunIds there are no receipts
    expect(await t.call('chat.history', { sessionKey: key })).not.toHaveProperty('inputReceipts')
  })
})

describe('chat.history rows', () => {
  it('an assistant row says when it was written (completedAt) when its stream took a while; a delta row says the same', async () => {
    const key = 'agent:main:completed-at'
    await turn(key, 'warm up', 'cat-0')
    const { deltaCursor } = await t.call('chat.history', { sessionKey: key })
    server.push({ text: 'slow reply here', chunks: 4, delayMs: 60 })
    await turn(key, 'take your time', 'cat-1')
    const page = await t.call('chat.history', { sessionKey: key })
    const [user, reply] = page.messages.slice(-2)
    expect(user).toMatchObject({ role: 'user' })
    expect(user).not.toHaveProperty('completedAt')
    expect(reply).toMatchObject({ role: 'assistant', completedAt: expect.any(Number) })
    // the reply's own timestamp is when its stream started; it was written once the 4 slow chunks arrived
    expect(reply.completedAt! - reply.timestamp).toBeGreaterThanOrEqual(150)
    const delta = await t.call('chat.history', { sessionKey: key, cursor: deltaCursor! })
    // a delta carries session.message payloads; the window turns them into the same rows
    const last = delta.kind === 'delta' ? delta.messages.at(-1) : undefined
    expect(historyRowOfPayload(last!)).toEqual(reply)
  })
})

describe('chat.history damaged lines', () => {
  it('a transcript with a damaged middle line says how many lines are missing and which file (page and window; not a delta)', async () => {
    const key = 'agent:main:damaged'
    await turn(key, 'first question', 'dmg-1')
    await turn(key, 'second question', 'dmg-2')
    const before = await t.call('chat.history', { sessionKey: key })
    expect(before).not.toHaveProperty('damagedLines')
    const file = path.join(t.stateDir, 'agents', 'main', 'sessions', `${before.sessionId}.jsonl`)
    // the first user message cut in half, then a garbage line (the audit's damage)
    const lines = fs.readFileSync(file, 'utf8').split('\n')
    const i = lines.findIndex((l) => l.includes('first question'))
    lines.splice(i, 1, lines[i].slice(0, 40), 'garbage garbage')
    fs.writeFileSync(file, lines.join('\n'))
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    try {
      const page = await t.call('chat.history', { sessionKey: key })
      // named relative to the state dir: read-scoped clients do not learn the user's home path
      expect(page).toMatchObject({ damagedLines: 2, transcriptFile: `agents/main/sessions/${before.sessionId}.jsonl` })
      expect(JSON.stringify(page)).not.toContain(t.stateDir)
      expect(page.messages.map((m) => m.content)).not.toContainEqual(expect.arrayContaining([expect.objectContaining({ text: 'first question' })]))
      const window = await t.call('chat.history', { sessionKey: key, messageId: page.messages.at(-1)!.id })
      expect(window).toMatchObject({ damagedLines: 2, transcriptFile: `agents/main/sessions/${before.sessionId}.jsonl` })
      const delta = await t.call('chat.history', { sessionKey: key, cursor: page.deltaCursor! })
      // a delta stays in OpenClaw's closed shape: the window keeps the count its page had
      expect(delta).not.toHaveProperty('damagedLines')
      expect(warn.mock.calls.filter(([m]) => String(m).includes(file))).toHaveLength(1)
    } finally {
      warn.mockRestore()
    }
  })
})
