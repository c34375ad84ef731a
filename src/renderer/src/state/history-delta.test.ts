// A loaded session resyncs with chat.history delta cursors (reconnect, re-open, end of a run): only the messages
// appended since come over the wire and join what is shown; a reset, a failing cursor call or no cursor refetch
// the newest page in full, as before. Controller + FakeBridge (which serves cursors like the runtime), and the
// planner on its own.
import { describe, expect, it } from 'vitest'
import type { HistoryCursorParams, HistoryPageParams } from '../../../shared/bridge'
import type { ChatHistoryCursorResult, ChatHistoryPage, HistoryMessage, Result, SessionMessagePayload } from '../../../shared/methods'
import { FakeBridge, type FakeBridgeOptions } from '../bridge/fake-bridge'
import { ConnectedFake } from '../test-utils'
import { Controller } from './controller'
import { planDelta, planRefetch, type HistoryResult } from './history-paging'
import { reduce } from './run-reducer'
import { createAppStores } from './stores'
import { emptyTranscript, type AssistantItem, type Transcript, type UserItem } from './types'

const SK = 'agent:main:delta'
const OTHER = 'agent:main:other'

type HistoryParams = HistoryCursorParams | HistoryPageParams
type HistoryReply = Result<ChatHistoryPage | ChatHistoryCursorResult>

/** The connected FakeBridge, recording chat.history calls, so the controller sees reconnects and resyncs. */
class HistoryFake extends ConnectedFake {
  /** every chat.history call with its reply */
  readonly historyLog: Array<{ params: HistoryParams; reply?: HistoryReply; threw?: boolean }> = []
  /** replaces the reply to calls with a cursor (a failing transport, an old gateway) */
  cursorCalls?: () => Promise<HistoryReply>

  constructor(options: FakeBridgeOptions) {
    super(options)
    const serve = this.history.bind(this) as (p: HistoryParams) => Promise<HistoryReply>
    this.history = (async (params: HistoryParams) => {
      const entry: (typeof this.historyLog)[number] = { params }
      this.historyLog.push(entry)
      try {
        entry.reply = params.cursor !== undefined && this.cursorCalls ? await this.cursorCalls() : await serve(params)
        return entry.reply
      } catch (err) {
        entry.threw = true
        throw err
      }
    }) as FakeBridge['history']
  }

  /** like the WebSocket bridge: no events reach the page while the connection is down */
  subscribe(filter: Parameters<FakeBridge['subscribe']>[0], listener: Parameters<FakeBridge['subscribe']>[1]) {
    return super.subscribe(filter, (ev) => {
      if (this.connection.state === 'open') listener(ev)
    })
  }

  /** The connection drops and comes back: the controller resyncs the open session. */
  reconnect() {
    this.set({ state: 'reconnecting', error: { message: 'closed' } })
    this.set({ state: 'open' })
  }
}

async function until(cond: () => boolean, what: string, ms = 8000) {
  const end = Date.now() + ms
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 10))
  }
}

async function open(seed: Array<{ key: string; messages: number }>, options: FakeBridgeOptions = {}) {
  const bridge = new HistoryFake({ tickMs: 1, chunkChars: 50, seed: seed.map((s) => ({ ...s, label: s.key })), ...options })
  const stores = createAppStores()
  const controller = new Controller(bridge, stores, (cb) => setTimeout(cb, 0))
  await controller.start()
  const t = (key = SK) => stores.runs.getState().transcripts[key]!
  const settled = (key = SK) => until(() => !stores.runs.getState().loading[key], 'the history load')
  /** the chat.history calls made from now on */
  const mark = () => {
    const from = bridge.historyLog.length
    return () => bridge.historyLog.slice(from)
  }
  return { bridge, stores, controller, t, settled, mark }
}

const questions = (t: Transcript) => t.items.filter((it): it is UserItem => it.kind === 'user').map((it) => it.text.replace(/:.*$/s, ''))
const range = (a: number, b: number) => Array.from({ length: b - a + 1 }, (_, i) => `Question ${a + i}`)
const uniqueKeys = (t: Transcript) => new Set(t.items.map((i) => i.key)).size === t.items.length
const delta = (reply: HistoryReply | undefined) => {
  if (!reply?.ok || !('kind' in reply.data) || reply.data.kind !== 'delta') throw new Error(`not a delta: ${JSON.stringify(reply)}`)
  return reply.data
}

describe('history resync with delta cursors (controller + fake runtime)', () => {
  it('a reconnect asks with the cursor and merges only the new messages; the next one gets an empty delta', async () => {
    const { bridge, t, settled, mark } = await open([{ key: SK, messages: 40 }])
    expect(questions(t())).toEqual(range(1, 20))
    expect(t().historyCursor).toBeTruthy()
    const before = t().items
    // another client (the CLI, another window) adds two questions and answers
    bridge.appendHistory(SK, 4)
    const calls = mark()
    bridge.reconnect()
    await settled()
    // one call, with the cursor; only the four new messages came back
    expect(calls().map((c) => c.params.cursor)).toEqual([expect.any(String)])
    expect(delta(calls()[0].reply).messages.map((m) => m.messageId)).toEqual(['m40', 'm41', 'm42', 'm43'])
    expect(questions(t())).toEqual(range(1, 22))
    expect(uniqueKeys(t())).toBe(true)
    // what was shown is kept as it was (same objects: rows do not re-render)
    expect(t().items[0]).toBe(before[0])
    expect(t().items.slice(0, before.length)).toEqual(before)
    // the cursor moved on: nothing new, an empty delta, nothing changes
    const cursor = t().historyCursor
    expect(cursor).toBe(delta(calls()[0].reply).deltaCursor)
    const again = mark()
    const items = t().items
    bridge.reconnect()
    await settled()
    expect(again()).toHaveLength(1)
    expect(again()[0].params.cursor).toBe(cursor)
    expect(delta(again()[0].reply).messages).toEqual([])
    expect(t().items).toEqual(items)
  })

  it('returning to a loaded session asks with its cursor', async () => {
    const { bridge, controller, t, settled, mark } = await open([
      { key: SK, messages: 10 },
      { key: OTHER, messages: 4 },
    ])
    expect(questions(t())).toEqual(range(1, 5))
    await controller.selectSession(OTHER)
    bridge.appendHistory(SK, 2)
    const calls = mark()
    await controller.selectSession(SK)
    await settled()
    expect(calls()).toHaveLength(1)
    expect(calls()[0].params.cursor).toBeTruthy()
    expect(delta(calls()[0].reply).messages).toHaveLength(2)
    expect(questions(t())).toEqual(range(1, 6))
  })

  it('a reset (the session was reset elsewhere) refetches in full; the new cursor works afterwards', async () => {
    const { bridge, t, settled, mark } = await open([{ key: SK, messages: 10 }])
    const oldCursor = t().historyCursor
    const calls = mark()
    // another client resets the session: sessions.changed(reset) makes this window resync
    await bridge.sessionsReset({ key: SK })
    await settled()
    expect(calls().map((c) => [c.params.cursor === undefined ? 'page' : 'cursor', c.reply?.ok && 'kind' in c.reply.data ? c.reply.data.kind : 'page'])).toEqual([
      ['cursor', 'reset'],
      ['page', 'page'],
    ])
    expect(questions(t())).toEqual([])
    expect(t().historyCursor).toBeTruthy()
    expect(t().historyCursor).not.toBe(oldCursor)
    // the old cursor is one of another transcript: reset, also when asked directly
    const stale = await bridge.history({ sessionKey: SK, cursor: oldCursor! })
    expect(stale).toEqual({ ok: true, data: { kind: 'reset' } })
    bridge.appendHistory(SK, 2)
    const next = mark()
    bridge.reconnect()
    await settled()
    expect(next()).toHaveLength(1)
    expect(delta(next()[0].reply).messages).toHaveLength(2)
    expect(questions(t())).toEqual(['Question 1'])
  })

  it('a foreign cursor is a reset', async () => {
    const { bridge, t } = await open([
      { key: SK, messages: 4 },
      { key: OTHER, messages: 4 },
    ])
    expect(await bridge.history({ sessionKey: OTHER, cursor: t().historyCursor! })).toEqual({ ok: true, data: { kind: 'reset' } })
    expect(await bridge.history({ sessionKey: SK, cursor: 'not-a-cursor' })).toEqual({ ok: true, data: { kind: 'reset' } })
  })

  it.each([
    ['refused', () => Promise.resolve<HistoryReply>({ ok: false, error: { code: 'INVALID_REQUEST', message: 'cursor not supported' } })],
    ['throws', () => Promise.reject(new Error('socket closed'))],
  ])('a cursor call that fails (%s) falls back to a full refetch', async (_what, failure) => {
    const { bridge, stores, t, settled, mark } = await open([{ key: SK, messages: 10 }])
    bridge.cursorCalls = failure
    bridge.appendHistory(SK, 4)
    const calls = mark()
    bridge.reconnect()
    await settled()
    expect(calls().map((c) => (c.params.cursor === undefined ? 'page' : 'cursor'))).toEqual(['cursor', 'page'])
    expect(questions(t())).toEqual(range(1, 7))
    expect(uniqueKeys(t())).toBe(true)
    expect(stores.runs.getState().loadErrors[SK]).toBeUndefined()
  })

  it('a cursor call lost with the connection asks no full page: the reconnect resyncs with the same cursor', async () => {
    const { bridge, controller, stores, t, settled, mark } = await open([{ key: SK, messages: 10 }])
    const cursor = t().historyCursor
    bridge.appendHistory(SK, 4)
    // the resync's delta is in flight when the gateway drops the page (the WebSocket bridge fails it so)
    bridge.cursorCalls = () => {
      bridge.cursorCalls = undefined
      bridge.set({ state: 'reconnecting', error: { message: 'closed' } })
      return Promise.resolve({ ok: false, error: { code: 'UNAVAILABLE', message: 'connection to the gateway was lost' } })
    }
    const calls = mark()
    await controller.loadTranscript(SK)
    expect(calls().map((c) => c.params.cursor)).toEqual([cursor])
    expect(stores.runs.getState().loadErrors[SK]).toBeUndefined()
    bridge.set({ state: 'open' })
    await until(() => calls().length === 2, 'the reconnect resync')
    await settled()
    expect(calls().map((c) => c.params.cursor)).toEqual([cursor, cursor])
    expect(delta(calls()[1].reply).messages).toHaveLength(4)
    expect(questions(t())).toEqual(range(1, 7))
    expect(uniqueKeys(t())).toBe(true)
  })

  it('a run this window streamed live, then a reconnect: the delta repeats its messages, each shown once', async () => {
    const { bridge, controller, t, settled, mark } = await open([{ key: SK, messages: 10 }])
    expect(await controller.send('one more question')).toBe(true)
    const runDone = () => t().items.some((it) => it.kind === 'run' && it.status === 'done' && !it.runId.startsWith('seed-'))
    await until(runDone, 'the run to end')
    const calls = mark()
    bridge.reconnect() // before the end-of-run refetch (400 ms after the end), which follows
    await settled()
    await new Promise((r) => setTimeout(r, 600))
    await settled()
    // the resyncs used the cursor, and the first delta carried the run's messages this window saw live
    expect(calls().length).toBeGreaterThan(0)
    expect(calls().every((c) => c.params.cursor !== undefined)).toBe(true)
    const runId = t().items.find((it) => it.kind === 'user' && it.text === 'one more question')!.runId!
    expect(delta(calls()[0].reply).messages.map((m) => m.runId)).toEqual([runId, runId])
    expect(questions(t())).toEqual([...range(1, 5), 'one more question'])
    const answers = t().items.filter((it): it is AssistantItem => it.kind === 'assistant' && it.runId === runId)
    expect(answers).toHaveLength(1)
    expect(answers[0].text).toContain('You said: **one more question**')
    expect(t().items.filter((it) => it.kind === 'run' && it.runId === runId)).toHaveLength(1)
    expect(uniqueKeys(t())).toBe(true)
  })

  it('the connection drops mid-run and the run ends meanwhile: what was streamed live and the delta make one reply', async () => {
    const script = {
      steps: [
        { kind: 'text' as const, text: 'First part, streamed live. ' },
        { kind: 'wait' as const, ms: 150 },
        { kind: 'text' as const, text: 'Second part, written while this window was away.' },
      ],
    }
    const { bridge, controller, t, settled, mark } = await open([{ key: SK, messages: 10 }], { scripts: [script] })
    expect(await controller.send('a question')).toBe(true)
    const reply = () => t().items.filter((it): it is AssistantItem => it.kind === 'assistant' && !it.runId!.startsWith('seed-'))
    await until(() => reply().some((it) => it.text.includes('First part')), 'the first part live')
    bridge.set({ state: 'reconnecting', error: { message: 'closed' } })
    await until(() => !bridge.isRunning(SK), 'the run to end in the runtime')
    const calls = mark()
    bridge.set({ state: 'open' })
    await settled()
    expect(calls()).toHaveLength(1)
    expect(delta(calls()[0].reply).messages.map((m) => m.message.role)).toEqual(['user', 'assistant'])
    expect(questions(t())).toEqual([...range(1, 5), 'a question'])
    expect(reply().map((it) => it.text)).toEqual(['First part, streamed live. Second part, written while this window was away.'])
    const runId = reply()[0].runId!
    expect(t().items.filter((it) => it.kind === 'run' && it.runId === runId).map((it) => (it.kind === 'run' ? it.status : ''))).toEqual(['done'])
    expect(uniqueKeys(t())).toBe(true)
  })

  it('paging back after a delta resync reaches the first message, each message once', async () => {
    const { bridge, controller, t, settled } = await open([{ key: SK, messages: 600 }])
    expect(questions(t())).toEqual(range(201, 300))
    bridge.appendHistory(SK, 6)
    bridge.reconnect()
    await settled()
    expect(questions(t())).toEqual(range(201, 303))
    while (t().hasMore) await controller.loadOlder(SK)
    expect(questions(t())).toEqual(range(1, 303))
    expect(uniqueKeys(t())).toBe(true)
  })
})

describe('planDelta (planner + reducer)', () => {
  const msg = (i: number): HistoryMessage =>
    i % 2 === 0
      ? { id: `m${i}`, runId: `r${i >> 1}`, role: 'user', content: `Question ${i / 2 + 1}`, timestamp: 1000 + i }
      : { id: `m${i}`, runId: `r${i >> 1}`, role: 'assistant', content: [{ type: 'text', text: `Answer ${(i + 1) / 2}` }], stopReason: 'stop', timestamp: 1000 + i }
  /** a message as a delta replays it (session.message payload: the transcript's message + row identity) */
  const payload = (m: HistoryMessage, seq: number): SessionMessagePayload => {
    const { id, runId, ...message } = m
    return { sessionKey: SK, message: { ...message, __openclaw: { id, seq, runId } }, messageId: id, messageSeq: seq, runId, ts: m.timestamp }
  }
  const load = (messages: HistoryMessage[]): Transcript => {
    const first: HistoryResult = { sessionKey: SK, sessionId: 's', messages, hasMore: false, deltaCursor: 'c1' }
    const plan = planRefetch(undefined, first, messages, false)!
    return reduce(emptyTranscript(SK), { type: 'hydrate', history: plan.history, paging: plan.paging })
  }

  it('drops rows already shown and repeated ones, keeps a silent reply as a row without text, and takes the new cursor', () => {
    const shown = Array.from({ length: 10 }, (_, i) => msg(i))
    const t = load(shown)
    expect(t.historyCursor).toBe('c1')
    const silent: HistoryMessage = { id: 'm12', runId: 'r6', role: 'assistant', content: [{ type: 'text', text: 'NO_REPLY' }], timestamp: 1012 }
    const messages = [payload(shown[8], 9), payload(shown[9], 10), payload(msg(10), 11), payload(msg(11), 12), payload(msg(10), 11), payload(silent, 13)]
    const plan = planDelta(t, { kind: 'delta', messages, deltaCursor: 'c2', sessionInfo: { hasActiveRun: false, activeRunIds: [] } })!
    expect(plan.history.messages.map((m) => m.id)).toEqual([...shown.map((m) => m.id), 'm10', 'm11', 'm12'])
    // as the window's pages have it (silentReplies): the run answered, with nothing to show
    expect(plan.history.messages[12]).toMatchObject({ id: 'm12', role: 'assistant', content: [], silent: true })
    // the rows are what a page would have given (row identity included)
    expect(plan.history.messages[10]).toMatchObject({ id: 'm10', runId: 'r5', role: 'user', content: 'Question 6', timestamp: 1010, __openclaw: { id: 'm10', seq: 11, runId: 'r5' } })
    const next = reduce(t, { type: 'hydrate', history: plan.history, paging: plan.paging })
    expect(questions(next)).toEqual(range(1, 6))
    expect(uniqueKeys(next)).toBe(true)
    expect(next.historyCursor).toBe('c2')
    expect(next.items.filter((it) => it.kind === 'assistant').map((it) => (it as AssistantItem).text)).toEqual(['Answer 1', 'Answer 2', 'Answer 3', 'Answer 4', 'Answer 5', 'Answer 6'])
  })

  it('no cursor, or rows shown from older pages without a refetched part: no delta plan (refetch in full)', () => {
    const t = load([msg(0), msg(1)])
    const d = { kind: 'delta' as const, messages: [], deltaCursor: 'c2', sessionInfo: { hasActiveRun: false, activeRunIds: [] } }
    expect(planDelta({ ...t, historyCursor: undefined }, d)).toBeUndefined()
    expect(planDelta({ ...t, loaded: false }, d)).toBeUndefined()
    expect(planDelta({ ...t, anchorId: undefined, recentMessages: [], older: 2 }, d)).toBeUndefined()
    expect(planDelta(t, d)?.history.messages.map((m) => m.id)).toEqual(['m0', 'm1'])
  })
})
