import { describe, expect, it, vi } from 'vitest'
import type { CompactionData } from '../../../shared/events'
import { HookRegistry } from '../hooks'
import { CompactionController, type CompactionEntry } from './controller'
import { compactionThreshold, estimateContextTokens, estimateMessageTokens, shouldCompact, type AnyMessage } from './estimate'
import { isContextOverflowError } from './overflow'
import { ContextTooLargeError, requestLimit } from './too-large'
import { buildCompactedMessages, createSummaryMessage, isSummaryMessage, planCompaction, SUMMARY_PREFIX } from './plan'
import { buildSummaryPrompt, createStreamCompleter, summarize, SUMMARY_SYSTEM_PROMPT } from './summarize'

const sys = (text: string, extra: Record<string, unknown> = {}): AnyMessage => ({ role: 'system', content: text, timestamp: 0, ...extra })
const user = (text: string): AnyMessage => ({ role: 'user', content: [{ type: 'text', text }], timestamp: 0 })
const asst = (text: string, calls: Array<{ id: string; name?: string; args?: unknown }> = []): AnyMessage => ({
  role: 'assistant',
  content: [
    ...(text ? [{ type: 'text', text }] : []),
    ...calls.map((c) => ({ type: 'toolCall', id: c.id, name: c.name ?? 'read', arguments: c.args ?? { path: 'a.txt' } })),
  ],
  stopReason: calls.length ? 'toolUse' : 'stop',
  timestamp: 0,
})
const result = (id: string, text: string, name = 'read'): AnyMessage => ({
  role: 'toolResult',
  toolCallId: id,
  toolName: name,
  content: [{ type: 'text', text }],
  isError: false,
  timestamp: 0,
})

describe('estimate', () => {
  it('chars/4 plus per-message overhead; images, tool calls and system tool declarations count', () => {
    expect(estimateMessageTokens(user('x'.repeat(400)))).toBe(104)
    expect(estimateMessageTokens({ role: 'user', content: 'abc' })).toBe(1 + 4)
    expect(estimateMessageTokens({ role: 'user', content: [{ type: 'image', data: '…', mimeType: 'image/png' }] })).toBe(1200 + 4)
    const call = asst('', [{ id: 'c', name: 'exec', args: { command: 'ls' } }])
    expect(estimateMessageTokens(call)).toBe(Math.ceil(('exec' + JSON.stringify({ command: 'ls' })).length / 4) + 4)
    const withTools = sys('P', { toolsAdded: [{ name: 't', description: 'd'.repeat(100), parameters: {} }] })
    expect(estimateMessageTokens(withTools)).toBeGreaterThan(25)
    // the declarations count exactly as their JSON text, also when measured again from the per-declaration cache
    const decls = [{ name: 'a', description: 'x'.repeat(37), parameters: { type: 'object' } }, { name: 'b', description: 'y', parameters: {} }]
    const expected = Math.ceil(('P'.length + JSON.stringify(decls).length) / 4) + 4
    expect(estimateMessageTokens(sys('P', { toolsAdded: decls }))).toBe(expected)
    expect(estimateMessageTokens(sys('P', { toolsAdded: [...decls] }))).toBe(expected)
    expect(estimateContextTokens([user('x'.repeat(400)), user('y'.repeat(40))])).toBe(104 + 14)
  })

  it('threshold = contextWindow − reserveTokens (reserve capped at half the window)', () => {
    expect(compactionThreshold(1000, 200)).toBe(800)
    expect(compactionThreshold(1000, 5000)).toBe(500)
    // 796 chars → 199 + 4 = 203 tokens per message; 748 chars → 187 + 4 = 191
    const exactly800 = [user('a'.repeat(796)), user('b'.repeat(796)), user('c'.repeat(796)), user('d'.repeat(748))]
    expect(estimateContextTokens(exactly800)).toBe(800)
    expect(shouldCompact({ messages: exactly800, contextWindow: 1000, reserveTokens: 200 })).toBe(false)
    const over = [...exactly800, { role: 'user', content: '' }]
    expect(estimateContextTokens(over)).toBe(804)
    expect(shouldCompact({ messages: over, contextWindow: 1000, reserveTokens: 200 })).toBe(true)
    expect(shouldCompact({ messages: over, contextWindow: 0, reserveTokens: 0 })).toBe(false)
  })
})

describe('planCompaction', () => {
  it('keeps every system message and the recent turns; summarizes the rest', () => {
    const msgs = [
      sys('PROMPT'),
      user('u1'),
      asst('a1'),
      sys('mid-conversation instruction'),
      user('u2'),
      asst('', [{ id: 'c2' }]),
      result('c2', 'r2'),
      asst('a2'),
      user('u3'),
      asst('a3'),
      user('u4'),
      asst('a4'),
    ]
    const plan = planCompaction(msgs, { keepRecentTurns: 2 })
    expect(plan.toSummarize).toEqual([msgs[1], msgs[2], msgs[4], msgs[5], msgs[6], msgs[7]])
    expect(plan.kept).toEqual([msgs[0], msgs[3], msgs[8], msgs[9], msgs[10], msgs[11]])
    expect(plan.cutIndex).toBe(8)
    expect(plan.splitTurn).toBe(false)
    const next = buildCompactedMessages(msgs, plan, 'SUM')
    expect(next[0]).toBe(msgs[0])
    expect(next[1]).toBe(msgs[3])
    expect(isSummaryMessage(next[2])).toBe(true)
    expect((next[2].content as Array<{ text: string }>)[0].text).toBe(`${SUMMARY_PREFIX}\n\nSUM`)
    expect(next.slice(3)).toEqual(msgs.slice(8))
  })

  it('never separates a tool call from its result', () => {
    // A user message (e.g. steering) landed between a call and its result: the cut moves before the call.
    const msgs = [sys('P'), user('u1'), asst('a1'), user('u2'), asst('', [{ id: 'c1' }]), user('steer'), result('c1', 'r'), asst('done')]
    const plan = planCompaction(msgs, { keepRecentTurns: 1 })
    expect(plan.cutIndex).toBe(4)
    expect(plan.toSummarize).toEqual([msgs[1], msgs[2], msgs[3]])
    for (const m of plan.kept) {
      if (m.role === 'toolResult') expect(plan.kept.some((k) => JSON.stringify(k).includes(String(m.toolCallId)) && k.role === 'assistant')).toBe(true)
    }
  })

  it('with fewer turns than keepRecentTurns, summarizes all but the newest turn', () => {
    const msgs = [sys('P'), user('u1'), asst('a1'), user('u2'), asst('a2')]
    const plan = planCompaction(msgs, { keepRecentTurns: 4 })
    expect(plan.toSummarize).toEqual([msgs[1], msgs[2]])
    expect(plan.cutIndex).toBe(3)
  })

  it('splits a single long tool-loop turn at the last assistant step, keeping that step with its results', () => {
    const msgs = [
      sys('P'),
      user('do a big job'),
      asst('', [{ id: 'a' }]),
      result('a', 'A'),
      asst('', [{ id: 'b' }, { id: 'c' }]),
      result('b', 'B'),
      result('c', 'C'),
    ]
    const plan = planCompaction(msgs, { keepRecentTurns: 2 })
    expect(plan.splitTurn).toBe(true)
    expect(plan.cutIndex).toBe(4)
    expect(plan.toSummarize).toEqual([msgs[1], msgs[2], msgs[3]])
    expect(plan.kept).toEqual([msgs[0], msgs[4], msgs[5], msgs[6]])
    expect(planCompaction(msgs, { keepRecentTurns: 2, allowSplitTurn: false }).toSummarize).toEqual([])
  })

  it('an earlier summary is not a turn and is folded into the next summary', () => {
    const msgs = [sys('P'), createSummaryMessage('old'), user('u1'), asst('a1'), user('u2'), asst('a2')]
    const plan = planCompaction(msgs, { keepRecentTurns: 1 })
    expect(plan.toSummarize).toEqual([msgs[1], msgs[2], msgs[3]])
  })

  it('nothing to compact: only system messages, or a single step', () => {
    expect(planCompaction([sys('P')], { keepRecentTurns: 1 }).toSummarize).toEqual([])
    expect(planCompaction([sys('P'), user('only')], { keepRecentTurns: 1 }).toSummarize).toEqual([])
    expect(planCompaction([], { keepRecentTurns: 1 }).toSummarize).toEqual([])
  })
})

describe('summarize', () => {
  it('builds a prompt from the conversation (tool output clipped) and returns the model text', async () => {
    const complete = vi.fn(async (_prompt: string, _o: { systemPrompt: string }) => '  ## Goal\nfix the bug  ')
    const out = await summarize(
      [user('please fix src/a.ts'), asst('looking', [{ id: 'c1', name: 'read', args: { path: 'src/a.ts' } }]), result('c1', 'z'.repeat(5000))],
      { complete, instructions: 'focus on files', previousSummary: 'user likes tabs' },
    )
    expect(out).toBe('## Goal\nfix the bug')
    const [prompt, o] = complete.mock.calls[0]
    expect(o.systemPrompt).toBe(SUMMARY_SYSTEM_PROMPT)
    expect(prompt).toContain('[User]: please fix src/a.ts')
    expect(prompt).toContain('[Assistant]: looking')
    expect(prompt).toContain('[Assistant called tools]: read({"path":"src/a.ts"})')
    expect(prompt).toContain('[… 3000 more characters]')
    expect(prompt).toContain('<previous-summary>\nuser likes tabs\n</previous-summary>')
    expect(prompt).toContain('Additional instructions: focus on files')
    expect(prompt).not.toContain('z'.repeat(2001))
  })

  it('an empty summary is an error; an over-long conversation is cut in the middle', async () => {
    await expect(summarize([user('x')], { complete: async () => '   ' })).rejects.toThrow(/empty summary/)
    const p = buildSummaryPrompt([user('HEAD' + 'm'.repeat(50_000) + 'TAIL')], { maxChars: 1000 })
    expect(p).toContain('HEAD')
    expect(p).toContain('TAIL')
    expect(p).toMatch(/characters of the middle omitted/)
    expect(p.length).toBeLessThan(2000)
  })

  it('createStreamCompleter sends one request and surfaces model errors', async () => {
    const calls: unknown[] = []
    const streamFn = (model: unknown, context: unknown, options: unknown) => {
      calls.push({ model, context, options })
      return { result: async () => ({ stopReason: 'stop', content: [{ type: 'text', text: 'S1' }, { type: 'thinking', thinking: 'x' }] }) }
    }
    const model = { provider: 'mock', id: 'm', maxTokens: 1000 }
    const complete = createStreamCompleter(streamFn, model, { getApiKey: () => 'k' })
    expect(await complete('P', { systemPrompt: 'SYS' })).toBe('S1')
    expect(calls[0]).toMatchObject({
      context: { systemPrompt: 'SYS', messages: [{ role: 'user', content: [{ type: 'text', text: 'P' }] }] },
      options: { apiKey: 'k', maxTokens: 1000 },
    })
    const failing = createStreamCompleter(() => ({ result: async () => ({ stopReason: 'error', errorMessage: '500 boom', content: [] }) }), model)
    await expect(failing('P', { systemPrompt: 'S' })).rejects.toThrow('500 boom')
  })
})

describe('isContextOverflowError', () => {
  it('recognizes provider overflow messages and rejects rate limits', () => {
    for (const m of [
      "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.",
      'prompt is too long: 213462 tokens > 200000 maximum',
      'Your input exceeds the context window of this model',
      '400 {"error":{"code":"context_length_exceeded"}}',
      'the request exceeds the available context size, try increasing it',
      'Request exceeds context window limit',
    ]) {
      expect(isContextOverflowError(m), m).toBe(true)
    }
    for (const m of [
      'Rate limit reached: too many tokens per minute',
      '429 Too Many Requests',
      '500 internal error',
      '',
      undefined,
      'Throttling error: Too many tokens, please wait',
    ]) {
      expect(isContextOverflowError(m), String(m)).toBe(false)
    }
  })
})

// ------------------------------------------------------------------ controller

function setup(over: Partial<ConstructorParameters<typeof CompactionController>[0]> = {}) {
  const events: CompactionData[] = []
  const entries: CompactionEntry[] = []
  const hookCalls: Array<{ name: string; event: Record<string, unknown> }> = []
  const hooks = new HookRegistry({ logger: { warn: () => {}, error: () => {} } })
  hooks.register('before_compaction', (e) => void hookCalls.push({ name: 'before', event: e as never }))
  hooks.register('after_compaction', (e) => void hookCalls.push({ name: 'after', event: e as never }))
  const ids = new WeakMap<object, string>()
  const complete = vi.fn(async () => 'SUMMARY TEXT')
  const reset = vi.fn()
  const c = new CompactionController({
    contextWindow: 1000,
    reserveTokens: 200,
    keepRecentTurns: 1,
    complete,
    runId: 'run-1',
    sessionKey: 'agent:main:main',
    emit: (d) => events.push(d),
    hooks,
    persist: (e) => void entries.push(e),
    entryIdOf: (m) => ids.get(m),
    reset,
    newId: () => 'cmp-1',
    now: () => 42,
    ...over,
  })
  const withId = (m: AnyMessage, id: string) => (ids.set(m, id), m)
  return { c, events, entries, hookCalls, complete, reset, withId }
}

/** ~200 tokens per message */
const big = (tag: string) => tag + 'x'.repeat(796 - tag.length)

describe('CompactionController', () => {
  it('below the threshold: passes messages through, emits nothing', async () => {
    const { c, events, complete } = setup()
    const msgs = [sys('P'), user('hi'), asst('hello')]
    expect(await c.transform(msgs)).toEqual(msgs)
    expect(events).toEqual([])
    expect(complete).not.toHaveBeenCalled()
  })

  it('over the threshold: summarizes, emits start/end, runs hooks, persists the entry, and the view sticks', async () => {
    const { c, events, entries, hookCalls, complete, reset, withId } = setup()
    const msgs = [
      sys('P'),
      withId(user(big('u1')), 'e1'),
      withId(asst(big('a1')), 'e2'),
      withId(user(big('u2')), 'e3'),
      withId(asst(big('a2')), 'e4'),
      withId(user('now'), 'e5'),
    ]
    expect(estimateContextTokens(msgs)).toBeGreaterThan(800)
    const out = await c.transform(msgs)
    expect(complete).toHaveBeenCalledTimes(1)
    expect(out[0]).toBe(msgs[0])
    expect(isSummaryMessage(out[1])).toBe(true)
    expect(out.slice(2)).toEqual([msgs[5]])
    expect(events).toEqual([{ phase: 'start' }, { phase: 'end', willRetry: false, completed: true }])
    expect(reset).not.toHaveBeenCalled()
    expect(entries).toEqual([
      {
        type: 'compaction',
        id: 'cmp-1',
        timestamp: 42,
        runId: 'run-1',
        summary: 'SUMMARY TEXT',
        firstKeptEntryId: 'e5',
        tokensBefore: estimateContextTokens(msgs),
        tokensAfter: estimateContextTokens(out),
      },
    ])
    expect(hookCalls.map((h) => h.name)).toEqual(['before', 'after'])
    expect(hookCalls[0].event).toMatchObject({ messageCount: 6, compactingCount: 4, reason: 'threshold' })
    expect(hookCalls[1].event).toMatchObject({ messageCount: 3, compactedCount: 4, summary: 'SUMMARY TEXT' })
    expect(c.count).toBe(1)

    // The next request of the run sees the same compacted view (pi keeps the full list) plus new messages.
    const reply = asst('working on it')
    const again = await c.transform([...msgs, reply])
    expect(again).toEqual([msgs[0], out[1], msgs[5], reply])
    expect(complete).toHaveBeenCalledTimes(1)
    expect(events).toHaveLength(2)
  })

  it('a new message that cannot fit the window with the system prompt is refused at once, nothing summarized', async () => {
    const { c, events, complete } = setup()
    const err = await c.transform([sys('P'), user(big('u1')), asst(big('a1')), user('y'.repeat(4000))]).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ContextTooLargeError)
    expect((err as ContextTooLargeError).message).toMatch(/^message too large for this model's context window: ~\d+ tokens, window 1000 /)
    expect((err as ContextTooLargeError).refusesRequest).toBe(true)
    expect(c.tooLarge).toBe('message')
    expect(complete).not.toHaveBeenCalled()
    expect(events).toEqual([])
  })

  it('a conversation still too large after compacting is refused; one that compaction makes fit is sent', async () => {
    const { c, complete } = setup()
    // the current turn (a tool result of ~900 tokens) stays whole: the summary of the older turn is not enough
    const loop = [sys('P'), user(big('u1')), asst(big('a1')), user('now'), asst('', [{ id: 'c1' }]), result('c1', 'r'.repeat(3600))]
    await expect(c.transform(loop)).rejects.toThrow(/^conversation too large for this model's context window even after compaction: ~\d+ tokens, window 1000\. /)
    expect(c.tooLarge).toBe('conversation')
    expect(complete).toHaveBeenCalledTimes(1)

    const ok = setup()
    const fits = [sys('P'), user(big('u1')), asst(big('a1')), user(big('u2')), asst(big('a2')), user(big('u3')), asst(big('a3')), user('now')]
    expect(estimateContextTokens(fits)).toBeGreaterThan(requestLimit(1000))
    const out = await ok.c.transform(fits)
    expect(estimateContextTokens(out)).toBeLessThanOrEqual(requestLimit(1000))
    expect(ok.c.tooLarge).toBeUndefined()
  })

  it('overflow: exactly one compaction + retry per run, reset before the retry', async () => {
    const { c, events, complete, reset } = setup({ contextWindow: 100_000 })
    const failed = { ...asst(''), stopReason: 'error', errorMessage: 'maximum context length is 8192 tokens' }
    const msgs = [sys('P'), user('u1'), asst('a1'), user('u2'), asst('a2'), user('u3'), failed]
    const first = await c.handleOverflow(msgs, failed.errorMessage as string)
    expect(first.retry).toBe(true)
    expect(reset).toHaveBeenCalledTimes(1)
    expect(events).toEqual([{ phase: 'start' }, { phase: 'end', willRetry: true, completed: true }])
    // the failed assistant message is not part of the compacted conversation
    expect(first.outcome!.messages.at(-1)).toBe(msgs[5])
    // the retried request sees the compacted view
    const view = await c.transform(msgs.slice(0, 6))
    expect(view.map((m) => m.role)).toEqual(['system', 'user', 'user'])
    const second = await c.handleOverflow([...msgs.slice(0, 6), failed], 'again')
    expect(second).toEqual({ retry: false, reason: 'the overflow retry of this run was already used' })
    expect(complete).toHaveBeenCalledTimes(1)
    expect(reset).toHaveBeenCalledTimes(1)
    expect(events).toHaveLength(2)
    expect(c.retryUsed).toBe(true)
  })

  it('a failed summary emits end {completed:false}, persists nothing and leaves the messages alone', async () => {
    const { c, events, entries, reset } = setup({ complete: async () => Promise.reject(new Error('503 overloaded')) })
    const msgs = [sys('P'), user(big('u1')), asst(big('a1')), user(big('u2')), asst(big('a2')), user('now')]
    expect(await c.transform(msgs)).toEqual(msgs)
    expect(events).toEqual([{ phase: 'start' }, { phase: 'end', willRetry: false, completed: false }])
    expect(entries).toEqual([])
    const ov = await c.handleOverflow(msgs)
    expect(ov.retry).toBe(false)
    expect(ov.reason).toMatch(/503 overloaded/)
    expect(reset).not.toHaveBeenCalled()
  })

  it('manual compactNow works below the threshold and passes instructions', async () => {
    const complete = vi.fn(async (prompt: string) => (prompt.includes('keep the API names') ? 'MANUAL' : 'wrong'))
    const { c, entries } = setup({ complete })
    const res = await c.compactNow([sys('P'), user(big('u1')), asst('a1'), user('u2')], { instructions: 'keep the API names' })
    expect(res).toMatchObject({ compacted: true, summary: 'MANUAL' })
    expect(entries).toHaveLength(1)
    expect(await c.compactNow([sys('P'), user('only')])).toMatchObject({ compacted: false, reason: 'nothing to compact' })
  })

  it('merges a previous summary into the first compaction only', async () => {
    const complete = vi.fn(async () => 'S')
    const { c } = setup({ complete, previousSummary: 'OLD SUMMARY' })
    const msgs = [sys('P'), user(big('u1')), asst('a1'), user('u2')]
    await c.compactNow(msgs)
    await c.compactNow([...msgs, asst(big('a2')), user('u3')])
    expect((complete.mock.calls[0] as unknown[])[0]).toContain('OLD SUMMARY')
    expect((complete.mock.calls[1] as unknown[])[0]).not.toContain('OLD SUMMARY')
    expect((complete.mock.calls[1] as unknown[])[0]).toContain('[Earlier summary]:\nS')
  })

  it('a summary no smaller than what it replaces is not applied: manual says why, a threshold run stops trying', async () => {
    const long = 'a long-winded summary '.repeat(40)
    const complete = vi.fn(async () => long)
    const { c, events, entries } = setup({ complete })
    const small = [sys('P'), user('u1'), asst('a1'), user('u2')]
    const manual = await c.compactNow(small)
    expect(manual).toMatchObject({ compacted: false, reason: expect.stringMatching(/would not make the conversation smaller \(\d+ → \d+ tokens\)/) })
    expect(manual.messages).toEqual(small)
    expect(entries).toEqual([])
    expect(events).toEqual([{ phase: 'start' }, { phase: 'end', willRetry: false, completed: false }])
    // over the threshold because of the kept turn, not the summarized part: one try per run, not one per request
    const tail = [sys('P'), user('u1'), asst('a1'), user(big('u2') + 'y'.repeat(2400))]
    expect(estimateContextTokens(tail)).toBeLessThanOrEqual(requestLimit(1000)) // it still fits the window
    complete.mockClear()
    expect(await c.transform(tail)).toEqual(tail)
    expect(await c.transform(tail)).toEqual(tail)
    expect(complete).toHaveBeenCalledTimes(1)
    expect(entries).toEqual([])
    // a later manual compaction still runs (and applies when it does shrink)
    complete.mockImplementation(async () => 'S')
    expect(await c.compactNow([sys('P'), user(big('u1')), asst(big('a1')), user('u2')])).toMatchObject({ compacted: true })
  })

  it('caps threshold compactions per run', async () => {
    const { c, complete } = setup({ maxAutoCompactions: 1, keepRecentTurns: 1 })
    const huge = [sys('P'), user(big('u1')), asst(big('a1')), user(big('u2')), asst(big('a2')), user(big('u3') + 'y'.repeat(2400))]
    await c.transform(huge)
    await c.transform(huge)
    expect(complete).toHaveBeenCalledTimes(1)
  })
})
