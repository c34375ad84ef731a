import { describe, expect, it } from 'vitest'
import type { HistoryMessage } from '../../../shared/methods'
import { FakeBridge } from '../bridge/fake-bridge'
import { Controller } from './controller'
import { HISTORY_PAGE, olderPage, planRefetch, RECENT_MAX, refetchLimit, type HistoryResult } from './history-paging'
import { reduce } from './run-reducer'
import { createAppStores } from './stores'
import { emptyTranscript, type ToolItem, type Transcript, type UserItem } from './types'

const SK = 'agent:main:long'

/** n question/answer messages (two per run), like the runtime's history rows. */
function messages(from: number, count: number): HistoryMessage[] {
  const out: HistoryMessage[] = []
  for (let i = from; i < from + count; i++) {
    const run = `r${Math.floor(i / 2)}`
    out.push(
      i % 2 === 0
        ? { id: `m${i}`, runId: run, role: 'user', content: `Question ${i / 2 + 1}`, timestamp: 1000 + i }
        : { id: `m${i}`, runId: run, role: 'assistant', content: [{ type: 'text', text: `Answer ${(i - 1) / 2 + 1}` }], stopReason: 'stop', timestamp: 1000 + i },
    )
  }
  return out
}

/** chat.history over `all` (offset = how many of the newest to skip), like the runtime's. */
function page(all: HistoryMessage[], limit: number, offset = 0): HistoryResult {
  const end = all.length - offset
  const start = Math.max(0, end - limit)
  return {
    sessionKey: SK,
    sessionId: 's',
    messages: all.slice(start, end),
    hasMore: start > 0,
    ...(start > 0 ? { nextOffset: all.length - start } : {}),
  }
}

const questions = (t: Transcript) => t.items.filter((it): it is UserItem => it.kind === 'user').map((it) => it.text.replace(/:.*$/s, ''))
const range = (a: number, b: number) => Array.from({ length: b - a + 1 }, (_, i) => `Question ${a + i}`)

/** The controller's refetch, over an in-memory history. */
function refetch(t: Transcript, all: HistoryMessage[]): Transcript {
  const first = page(all, refetchLimit(t))
  let fetched = first.messages
  let more = first.hasMore
  let offset = first.nextOffset
  let plan = planRefetch(t, first, fetched, more)
  while (!plan && offset !== undefined) {
    const p = page(all, 1000, offset)
    fetched = p.messages.concat(fetched)
    more = p.hasMore
    offset = p.nextOffset
    plan = planRefetch(t, first, fetched, more)
  }
  return reduce(t, { type: 'hydrate', history: plan!.history, paging: plan!.paging })
}

/** The controller's scroll-up. */
function older(t: Transcript, all: HistoryMessage[]): Transcript {
  let offset = t.nextOffset
  for (let round = 0; round < 10 && offset !== undefined; round++) {
    const p = olderPage(t, page(all, HISTORY_PAGE, offset))
    if (p.messages.length || !p.hasMore) return reduce(t, { type: 'prepend', history: p })
    offset = p.nextOffset
  }
  return t
}

describe('history paging (reducer + planner)', () => {
  it('opens with the newest page and pages back to the first message without duplicates or gaps', () => {
    const all = messages(0, 1000)
    let t = refetch(emptyTranscript(SK), all)
    expect(questions(t)).toEqual(range(401, 500))
    expect(t.hasMore).toBe(true)
    while (t.hasMore) t = older(t, all)
    expect(questions(t)).toEqual(range(1, 500))
    expect(new Set(t.items.map((i) => i.key)).size).toBe(t.items.length)
  })

  it('a refetch after paging back keeps everything shown (more than the 1000 one call can return)', () => {
    let all = messages(0, 3000)
    let t = refetch(emptyTranscript(SK), all)
    while (t.hasMore) t = older(t, all)
    expect(questions(t)).toEqual(range(1, 1500))
    const before = t.items.slice(0, 100)
    // a run ends elsewhere: two more messages, then the end-of-run refetch
    all = all.concat(messages(3000, 2))
    t = refetch(t, all)
    expect(questions(t)).toEqual(range(1, 1501))
    // the older part is kept as it was (same objects: rows do not re-render)
    expect(t.items.slice(0, 100)).toEqual(before)
    expect(t.items[0]).toBe(before[0])
  })

  it('an offset that lagged behind new messages repeats messages: they are dropped, nothing is skipped', () => {
    let all = messages(0, 1000)
    let t = refetch(emptyTranscript(SK), all)
    // 150 messages arrive that this window has not refetched yet (e.g. another client's runs)
    all = all.concat(messages(1000, 150))
    t = older(t, all)
    while (t.hasMore) t = older(t, all)
    expect(questions(t)).toEqual(range(1, 500))
    // and the next refetch brings the new ones in after them
    t = refetch(t, all)
    expect(questions(t)).toEqual(range(1, 575))
  })

  it('more new messages than one page before a refetch: it fetches back to the anchor', () => {
    let all = messages(0, 600)
    let t = refetch(emptyTranscript(SK), all)
    t = older(t, all)
    expect(questions(t)).toEqual(range(101, 300))
    all = all.concat(messages(600, 2400))
    t = refetch(t, all)
    expect(questions(t)).toEqual(range(101, 1500))
    while (t.hasMore) t = older(t, all)
    expect(questions(t)).toEqual(range(1, 1500))
  })

  it('the refetched part stays bounded: its older runs join the older part at a run boundary', () => {
    let all = messages(0, 200)
    let t = refetch(emptyTranscript(SK), all)
    for (let i = 0; i < 20; i++) {
      all = all.concat(messages(all.length, 30))
      t = refetch(t, all)
      expect(t.anchorCount).toBeLessThanOrEqual(RECENT_MAX)
      expect(refetchLimit(t)).toBeLessThanOrEqual(RECENT_MAX + HISTORY_PAGE)
    }
    expect(questions(t)).toEqual(range(1, 400))
    expect(t.older).toBeGreaterThan(0)
    expect(new Set(t.items.map((i) => i.key)).size).toBe(t.items.length)
    // the same keys as a fresh load of everything
    const fresh = reduce(emptyTranscript(SK), { type: 'hydrate', history: page(all, 1000) })
    expect(t.items.map((i) => i.key)).toEqual(fresh.items.map((i) => i.key))
  })

  it('history that no longer has the anchor (reset) starts over', () => {
    let t = refetch(emptyTranscript(SK), messages(0, 600))
    t = older(t, messages(0, 600))
    const rewritten = messages(0, 4).map((m) => ({ ...m, id: `new-${m.id}` }))
    t = refetch(t, rewritten)
    expect(questions(t)).toEqual(range(1, 2))
    expect(t.hasMore).toBe(false)
    expect(t.older).toBe(0)
  })

  it('an older page never brings back messages of a run that is still streaming', () => {
    const all = messages(0, 10)
    let t = refetch(emptyTranscript(SK), all)
    t = reduce(t, { type: 'agent', event: { runId: 'live', seq: 1, stream: 'lifecycle', ts: 5000, data: { phase: 'start' }, sessionKey: SK } })
    const p = olderPage(t, { ...page(all, 10), messages: [...messages(0, 2), { id: 'x', runId: 'live', role: 'user', content: 'hi', timestamp: 5000 }] })
    expect(p.messages).toEqual([])
  })

  it('does not replay an old run from the event ring at the end of a page that starts after it', () => {
    const all = messages(0, 400)
    const old = { runId: 'r10', seq: 1, stream: 'lifecycle' as const, ts: 1000 + 20, data: { phase: 'start' }, sessionKey: SK }
    const t = reduce(emptyTranscript(SK), { type: 'hydrate', history: page(all, HISTORY_PAGE), recent: { events: [old, { ...old, seq: 2, data: { phase: 'end' } }], approvals: [] } })
    expect(t.items.some((it) => it.runId === 'r10')).toBe(false)
  })
})

describe('history paging: a tool call and its result on two pages', () => {
  /** runs of 4 messages: question, tool call, tool result, answer */
  function toolRuns(count: number): HistoryMessage[] {
    const out: HistoryMessage[] = []
    for (let r = 0; r < count; r++) {
      const runId = `t${r}`
      const ts = 1000 + r * 4
      out.push(
        { id: `u${r}`, runId, role: 'user', content: `Question ${r + 1}`, timestamp: ts },
        { id: `c${r}`, runId, role: 'assistant', content: [{ type: 'toolCall', id: `call${r}`, name: 'exec', arguments: { command: `echo ${r}` } }], stopReason: 'toolUse', timestamp: ts + 1 },
        { id: `r${r}`, runId, role: 'toolResult', toolCallId: `call${r}`, toolName: 'exec', content: [{ type: 'text', text: `out ${r}` }], isError: r % 2 === 1, timestamp: ts + 2 },
        { id: `a${r}`, runId, role: 'assistant', content: [{ type: 'text', text: `Answer ${r + 1}` }], stopReason: 'stop', timestamp: ts + 3 },
      )
    }
    return out
  }
  const tools = (t: Transcript) => t.items.filter((it): it is ToolItem => it.kind === 'tool')

  it('a call at the end of an older page gets the result the newer page started with (not "interrupted")', () => {
    const all = toolRuns(100).concat(messages(0, 2)) // 402 messages: the newest page starts with a tool result
    let t = refetch(emptyTranscript(SK), all)
    expect(t.items.some((it) => it.kind === 'tool' && it.toolCallId === 'call50')).toBe(false) // its call is older
    expect(Object.keys(t.toolResults)).toEqual(['call50'])
    while (t.hasMore) t = older(t, all)
    const byId = new Map(tools(t).map((x) => [x.toolCallId, x]))
    expect(byId.size).toBe(100)
    expect(tools(t).filter((x) => x.status === 'interrupted' || x.status === 'unknown')).toEqual([])
    expect(byId.get('call50')).toMatchObject({ status: 'done', result: { content: [{ type: 'text', text: 'out 50' }] }, endedAt: 1000 + 50 * 4 + 2 })
    expect(byId.get('call1')!.status).toBe('failed')
    expect(t.toolResults).toEqual({})
    expect(questions(t)).toEqual([...range(1, 100), 'Question 1'])
  })

  it('a call whose run goes on past its page shows "unknown" until its result is loaded, then done', () => {
    const [u, c, r, a] = toolRuns(1)
    const hist = (messages: HistoryMessage[], extra: Partial<HistoryResult> = {}): HistoryResult => ({ sessionKey: SK, sessionId: 's', messages, hasMore: false, ...extra })
    // the newer part was read before the tool result was written
    let t = reduce(emptyTranscript(SK), { type: 'hydrate', history: hist([a]), paging: { keepOlder: false, frozen: [], rows: 3, more: true } })
    t = reduce(t, { type: 'prepend', history: hist([u, c]) })
    expect(tools(t).map((x) => x.status)).toEqual(['unknown'])
    // a run that ended on the page itself: its missing result is a real interruption
    const lone = reduce(emptyTranscript(SK), { type: 'prepend', history: hist([u, c]) })
    expect(tools(lone).map((x) => x.status)).toEqual(['interrupted'])
    // the next refetch has it
    t = reduce(t, { type: 'hydrate', history: hist([r, a]), paging: { keepOlder: true, frozen: [], rows: 2, more: true } })
    expect(tools(t).map((x) => [x.toolCallId, x.status])).toEqual([['call0', 'done']])
    expect(questions(t)).toEqual(['Question 1'])
  })
})

describe('history paging (controller + fake runtime)', () => {
  async function open(messages: number) {
    const bridge = new FakeBridge({ tickMs: 1, chunkChars: 50, seed: [{ key: SK, label: 'Long', messages }] })
    const stores = createAppStores()
    const controller = new Controller(bridge, stores, (cb) => setTimeout(cb, 0))
    await controller.start()
    const t = () => stores.runs.getState().transcripts[SK]!
    return { bridge, stores, controller, t }
  }

  it('a 2,400-message session: scroll back to the start, send a message, scroll back again — all there once', async () => {
    const { bridge, controller, t } = await open(2400)
    expect(questions(t())).toEqual(range(1101, 1200))
    while (t().hasMore) await controller.loadOlder(SK)
    expect(questions(t())).toEqual(range(1, 1200))
    // messages from another client, then a run here; its end refetches the newest part
    bridge.appendHistory(SK, 40)
    await controller.send('one more question')
    await new Promise<void>((resolve) => {
      const check = () => (t().items.some((it) => it.kind === 'run' && it.status === 'done' && it.runId && !it.runId.startsWith('seed-')) ? resolve() : setTimeout(check, 20))
      check()
    })
    await new Promise((r) => setTimeout(r, 700)) // the end-of-run refetch (400 ms after the end)
    const qs = questions(t())
    expect(qs.slice(0, 1220)).toEqual(range(1, 1220))
    expect(qs[qs.length - 1]).toBe('one more question')
    expect(new Set(t().items.map((i) => i.key)).size).toBe(t().items.length)
  })
})
