import { describe, expect, it } from 'vitest'
import type { AgentEvent, ChatEvent } from '../../../shared/events'
import type { ChatHistoryPage, HistoryMessage } from '../../../shared/methods'
import { SEAL_CHARS, splitWork } from '../markdown/blocks'
import { collectedTexts } from '../../../shared/collect-prompt'
import { activeRun, MAX_BUFFERED_EVENTS, readableError, reduce, runsWithGaps, type Action } from './run-reducer'
import { emptyTranscript, type AssistantItem, type Item, type RunItem, type ToolItem, type Transcript } from './types'

const SK = 'agent:main:main'

/** Builds the agent events of one run with consecutive seq numbers. */
function runEvents(runId: string) {
  let seq = 0
  let ts = 1_000
  const evs: AgentEvent[] = []
  const ev = (stream: AgentEvent['stream'], data: Record<string, unknown>) => {
    const e: AgentEvent = { runId, seq: ++seq, stream, ts: (ts += 10), data, sessionKey: SK }
    evs.push(e)
    return e
  }
  let text = ''
  return {
    evs,
    start: () => ev('lifecycle', { phase: 'start', startedAt: ts }),
    say: (delta: string) => {
      text += delta
      return ev('assistant', { text, delta })
    },
    newMessage: () => {
      text = ''
    },
    think: (t: string) => ev('thinking', { text: t, delta: t }),
    tool: (id: string, name: string, args: unknown) => ev('tool', { phase: 'start', name, toolCallId: id, args }),
    toolUpdate: (id: string, name: string, partialResult: unknown) => ev('tool', { phase: 'update', name, toolCallId: id, partialResult }),
    toolResult: (id: string, name: string, result: unknown, isError = false) =>
      ev('tool', { phase: 'result', name, toolCallId: id, result, isError }),
    end: (extra: Record<string, unknown> = {}) => ev('lifecycle', { phase: 'end', endedAt: ts, ...extra }),
    error: (error: string) => ev('lifecycle', { phase: 'error', error, endedAt: ts }),
    compaction: (phase: 'start' | 'end', willRetry = false) =>
      ev('compaction', phase === 'start' ? { phase } : { phase, willRetry, completed: true }),
  }
}

const agent = (e: AgentEvent): Action => ({ type: 'agent', event: e })
const applyAll = (t: Transcript, evs: AgentEvent[]) => reduce(t, evs.map(agent))
const view = (t: Transcript) =>
  t.items.map((i) => {
    switch (i.kind) {
      case 'user':
        return `user:${i.text}`
      case 'assistant':
        return `assistant:${i.text}${i.reasoning ? ` [r:${i.reasoning}]` : ''}${i.stopped ? ' (stopped)' : ''}`
      case 'tool':
        return `tool:${i.name}:${i.status}`
      case 'run':
        return `run:${i.status}${i.stopping ? ':stopping' : ''}${i.error ? `:${i.error}` : ''}`
      case 'approval':
        return `approval:${i.request.command}:${i.decision ?? 'pending'}`
      case 'compaction':
        return 'compaction'
    }
  })

function scriptedRun(runId: string) {
  const r = runEvents(runId)
  r.start()
  r.think('plan')
  r.say('Let me ')
  r.say('check.')
  r.tool('c1', 'exec', { command: 'ls' })
  r.toolUpdate('c1', 'exec', { partial: 'a' })
  r.toolResult('c1', 'exec', { content: [{ type: 'text', text: 'a\nb' }] })
  r.newMessage()
  r.say('Found ')
  r.say('two files.')
  r.end()
  return r
}

describe('streaming assembly', () => {
  it('builds user → assistant → tool → assistant → footer, text before a tool stays above it', () => {
    let t = reduce(emptyTranscript(SK), { type: 'local.send', id: 'r1', text: 'list files', ts: 1 })
    expect(view(t)).toEqual(['user:list files', 'run:pending'])
    const r = scriptedRun('r1')
    t = applyAll(t, r.evs)
    expect(view(t)).toEqual([
      'user:list files',
      'assistant:Let me check. [r:plan]',
      'tool:exec:done',
      'assistant:Found two files.',
      'run:done',
    ])
    const seg = t.items[1] as AssistantItem
    expect(seg.streaming).toBe(false)
    expect(t.items.map((i) => i.key)).toEqual(['user:r1', 'a:r1:0', 'tool:c1', 'a:r1:1', 'run:r1'])
  })

  it('keeps the segment streaming while text grows and tracks tool states live', () => {
    const r = runEvents('r1')
    let t = applyAll(emptyTranscript(SK), [r.start(), r.say('Hel')])
    expect((t.items.find((i) => i.kind === 'assistant') as AssistantItem).streaming).toBe(true)
    expect(activeRun(t)?.status).toBe('running')
    t = applyAll(t, [r.say('lo'), r.tool('c1', 'read', { path: '/x' })])
    const tool = () => t.items.find((i) => i.kind === 'tool') as ToolItem
    expect(tool().status).toBe('running')
    expect((t.items.find((i) => i.kind === 'assistant') as AssistantItem).streaming).toBe(false)
    t = applyAll(t, [r.toolResult('c1', 'read', 'boom', true)])
    expect(tool().status).toBe('failed')
    expect(tool().endedAt! - tool().startedAt!).toBe(10)
  })

  it('continues the same assistant message after a tool without repeating its text', () => {
    const r = runEvents('r1')
    const t = applyAll(emptyTranscript(SK), [
      r.start(),
      r.say('Before. '),
      r.tool('c1', 'exec', {}),
      r.toolResult('c1', 'exec', 'ok'),
      r.say('After.'), // cumulative text of the same message: "Before. After."
      r.end(),
    ])
    expect(view(t)).toEqual(['assistant:Before. ', 'tool:exec:done', 'assistant:After.', 'run:done'])
  })

  it('returns the same state object when nothing changes (duplicate)', () => {
    const r = runEvents('r1')
    const t = applyAll(emptyTranscript(SK), [r.start(), r.say('a')])
    expect(reduce(t, agent(r.evs[1]))).toBe(t)
  })

  it('shows Compacting… and splits the reply on a compaction retry', () => {
    const r = runEvents('r1')
    let t = applyAll(emptyTranscript(SK), [r.start(), r.say('partial'), r.compaction('start')])
    expect(activeRun(t)?.status).toBe('compacting')
    r.newMessage()
    t = applyAll(t, [r.compaction('end', true), r.say('retried'), r.end()])
    expect(view(t)).toEqual(['assistant:partial', 'assistant:retried', 'run:done'])
  })

  it('reports lifecycle errors readably', () => {
    const r = runEvents('r1')
    const t = applyAll(emptyTranscript(SK), [r.start(), r.tool('c1', 'exec', {}), r.error('401 invalid api key')])
    expect(view(t)).toEqual(['tool:exec:interrupted', 'run:error:401 invalid api key'])
    expect(activeRun(t)).toBeUndefined()
  })
})

describe('ordering: out-of-order, duplicates, gaps', () => {
  it('produces the same transcript for shuffled and duplicated delivery', () => {
    const inOrder = applyAll(emptyTranscript(SK), scriptedRun('r1').evs)
    const evs = scriptedRun('r1').evs
    // deterministic shuffle + duplicates
    const shuffled = [...evs].sort((a, b) => ((a.seq * 7) % 11) - ((b.seq * 7) % 11))
    const messy = [...shuffled, evs[3], evs[0], evs[7]]
    const t = applyAll(emptyTranscript(SK), messy)
    expect(view(t)).toEqual(view(inOrder))
    expect(t.items.map((i) => i.key)).toEqual(inOrder.items.map((i) => i.key))
    expect(runsWithGaps(t)).toEqual([])
  })

  it('buffers events after a gap until it fills', () => {
    const r = runEvents('r1')
    r.start()
    r.say('a')
    r.say('b')
    r.say('c')
    let t = applyAll(emptyTranscript(SK), [r.evs[0], r.evs[2], r.evs[3]])
    expect(view(t)).toEqual(['run:running'])
    expect(runsWithGaps(t)).toEqual(['r1'])
    t = applyAll(t, [r.evs[1]])
    expect(view(t)).toEqual(['assistant:abc', 'run:running'])
    expect(runsWithGaps(t)).toEqual([])
  })

  it('gap.flush applies what is buffered and asks for a refetch', () => {
    const r = runEvents('r1')
    r.start()
    r.say('a') // lost
    r.say('b')
    r.end()
    let t = applyAll(emptyTranscript(SK), [r.evs[0], r.evs[2], r.evs[3]])
    expect(t.needsRefetch).toBe(false)
    t = reduce(t, { type: 'gap.flush', runId: 'r1' })
    expect(view(t)).toEqual(['assistant:ab', 'run:done'])
    expect(t.needsRefetch).toBe(true)
    // the lost event arriving late is a duplicate now
    expect(reduce(t, agent(r.evs[1]))).toBe(t)
  })

  it('stops waiting when too many events pile up behind a gap', () => {
    const r = runEvents('r1')
    r.start()
    r.say('x') // lost
    for (let i = 0; i <= MAX_BUFFERED_EVENTS; i++) r.say('y')
    const t = applyAll(emptyTranscript(SK), [r.evs[0], ...r.evs.slice(2)])
    expect(runsWithGaps(t)).toEqual([])
    expect((t.items[0] as AssistantItem).text.length).toBe(MAX_BUFFERED_EVENTS + 2)
  })

  it('flags a refetch when joining a run mid-stream or on a gateway seq-gap notice', () => {
    const r = runEvents('r1')
    r.start()
    r.say('a')
    expect(applyAll(emptyTranscript(SK), [r.evs[1]]).needsRefetch).toBe(true)
    const gap: AgentEvent = { runId: 'r1', seq: 3, stream: 'error', ts: 1, data: { reason: 'seq gap' }, sessionKey: SK }
    expect(applyAll(applyAll(emptyTranscript(SK), r.evs), [gap]).needsRefetch).toBe(true)
  })

  it('keeps runs separate by runId', () => {
    const a = runEvents('ra')
    const b = runEvents('rb')
    const t = applyAll(emptyTranscript(SK), [a.start(), a.say('one'), a.end(), b.start(), b.say('two'), b.end()])
    expect(view(t)).toEqual(['assistant:one', 'run:done', 'assistant:two', 'run:done'])
  })
})

describe('chat events', () => {
  const chat = (e: Partial<ChatEvent>): Action => ({
    type: 'chat',
    event: { runId: 'r1', sessionKey: SK, seq: 9, state: 'final', ...e } as ChatEvent,
  })
  const usage = { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 15, costUsd: 0.002 }

  it('final carries usage; a lost lifecycle end is reconciled by the final', () => {
    const r = runEvents('r1')
    let t = applyAll(emptyTranscript(SK), [r.start(), r.say('hi')])
    t = reduce(t, chat({ state: 'final', usage, message: { role: 'assistant', content: [{ type: 'text', text: 'hi' }], timestamp: 5 } }))
    const f = t.items.find((i) => i.kind === 'run') as RunItem
    expect(f.status).toBe('done')
    expect(f.usage?.totalTokens).toBe(15)
    expect(view(t)).toEqual(['assistant:hi', 'run:done'])
  })

  it('uses chat deltas only when no agent assistant events arrive', () => {
    const msg = (text: string) => ({ role: 'assistant' as const, content: [{ type: 'text' as const, text }], timestamp: 1 })
    let t = reduce(emptyTranscript(SK), { type: 'local.send', id: 'r1', text: 'q', ts: 1 })
    t = reduce(t, [chat({ state: 'delta', message: msg('Hel') }), chat({ state: 'delta', message: msg('Hello') })])
    expect(view(t)).toEqual(['user:q', 'assistant:Hello', 'run:pending'])
    t = reduce(t, chat({ state: 'error', errorMessage: 'rate limited' }))
    expect(view(t)).toEqual(['user:q', 'assistant:Hello', 'run:error:rate limited'])
  })

  it('aborted keeps the partial reply marked stopped', () => {
    const r = runEvents('r1')
    let t = applyAll(emptyTranscript(SK), [r.start(), r.say('partial')])
    t = reduce(t, chat({ state: 'aborted' }))
    expect(view(t)).toEqual(['assistant:partial (stopped)', 'run:stopped'])
  })
})

describe('stop', () => {
  it('shows Stopping… until the terminal event, then Stopped with the partial reply kept', () => {
    const r = runEvents('r1')
    let t = applyAll(emptyTranscript(SK), [r.start(), r.say('half a rep')])
    t = reduce(t, { type: 'local.stopping', runId: 'r1' })
    expect(view(t)).toEqual(['assistant:half a rep', 'run:running:stopping'])
    t = applyAll(t, [r.end({ aborted: true, stopReason: 'aborted' })])
    expect(view(t)).toEqual(['assistant:half a rep (stopped)', 'run:stopped'])
  })

  it('settles locally when the terminal event never comes, and ignores stale stops', () => {
    const r = runEvents('r1')
    let t = applyAll(emptyTranscript(SK), [r.start(), r.say('x')])
    t = reduce(t, [{ type: 'local.stopping', runId: 'r1' }, { type: 'local.stopSettle', runId: 'r1', ts: 99 }])
    expect(view(t)).toEqual(['assistant:x (stopped)', 'run:stopped'])
    // a stop for a finished run changes nothing
    expect(reduce(t, { type: 'local.stopping', runId: 'r1' })).toBe(t)
  })

  it('a stop request that failed leaves the run running (not Stopping… forever)', () => {
    const r = runEvents('r1')
    let t = applyAll(emptyTranscript(SK), [r.start(), r.say('x')])
    t = reduce(t, [{ type: 'local.stopping', runId: 'r1' }, { type: 'local.stopFailed', runId: 'r1' }])
    expect(view(t)).toEqual(['assistant:x', 'run:running'])
    // after the run ended it changes nothing
    t = applyAll(t, [r.end()])
    expect(reduce(t, { type: 'local.stopFailed', runId: 'r1' })).toBe(t)
  })
})

describe('send results, queue and steer', () => {
  it('re-keys the optimistic message when the runtime picks another runId, even if events came first', () => {
    let t = reduce(emptyTranscript(SK), { type: 'local.send', id: 'idem', text: 'hi', ts: 1 })
    const r = runEvents('srv')
    t = applyAll(t, [r.start(), r.say('yo')])
    t = reduce(t, { type: 'local.sendResult', id: 'idem', text: 'hi', result: { runId: 'srv', status: 'started' }, ts: 2 })
    expect(view(t)).toEqual(['user:hi', 'assistant:yo', 'run:running'])
    expect(t.items[0].key).toBe('user:srv')
    expect(t.runs.idem).toBeUndefined()
  })

  it('moves a queued message out of the transcript and back in when its run starts', () => {
    let t = applyAll(emptyTranscript(SK), [runEvents('r1').start()])
    t = reduce(t, { type: 'local.send', id: 'q1', text: 'next', ts: 1 })
    t = reduce(t, { type: 'local.sendResult', id: 'q1', text: 'next', result: { runId: 'r1', status: 'queued', queueItemId: 'qi' }, ts: 1 })
    expect(view(t)).toEqual(['run:running'])
    t = reduce(t, {
      type: 'queue',
      items: [{ id: 'qi', sessionKey: SK, mode: 'followup', text: 'next', enqueuedAt: 5, status: 'started', runId: 'r2' }],
    })
    const r2 = runEvents('r2')
    t = applyAll(t, [r2.start(), r2.say('ok'), r2.end()])
    expect(view(t)).toEqual(['run:running', 'user:next', 'assistant:ok', 'run:done'])
  })

  it('inserts a steered message into the running reply: the current message finishes above it, the next starts below', () => {
    const r = runEvents('r1')
    let t = reduce(emptyTranscript(SK), { type: 'local.send', id: 'r1', text: 'go', ts: 0 })
    t = applyAll(t, [r.start(), r.say('work')])
    t = reduce(t, { type: 'local.steered', runId: 'r1', text: 'use python', ts: 3 })
    t = applyAll(t, [r.say('ing')])
    r.newMessage()
    t = applyAll(t, [r.say('ok, python'), r.end()])
    expect(view(t)).toEqual(['user:go', 'assistant:working', 'user:use python', 'assistant:ok, python', 'run:done'])
    expect(t.items[2].key).toBe('user:r1:1')
    // the transcript after the run has the same order and keys
    const reloaded = reduce(emptyTranscript(SK), {
      type: 'hydrate',
      history: {
        sessionKey: SK,
        sessionId: 's',
        hasMore: false,
        messages: [
          { id: '0', runId: 'r1', role: 'user', content: 'go', timestamp: 0 },
          { id: '1', runId: 'r1', role: 'assistant', content: [{ type: 'text', text: 'working' }], timestamp: 1 },
          { id: '2', runId: 'r1', role: 'user', content: 'use python', timestamp: 2 },
          { id: '3', runId: 'r1', role: 'assistant', content: [{ type: 'text', text: 'ok, python' }], timestamp: 3 },
        ],
      },
    })
    expect(reloaded.items.map((i) => i.key)).toEqual(t.items.map((i) => i.key))
  })

  it('history of a message with attachments shows its text and saved-path lines, never image bytes', () => {
    const data = 'iVBORw0KGgoAAAANSUhEUg'.repeat(50)
    const t = reduce(emptyTranscript(SK), {
      type: 'hydrate',
      history: {
        sessionKey: SK,
        sessionId: 's',
        hasMore: false,
        messages: [
          {
            id: '0',
            runId: 'r1',
            role: 'user',
            content: [
              { type: 'text', text: 'look\n\n[Image attached: dot.png (image/png, 70 bytes) saved at /s/media/inbound/u.png]' },
              { type: 'text', text: '\n[image: /s/media/inbound/u.png (image/png)]' },
              // an image block that still carries bytes (older transcript): not rendered as text
              { type: 'image', data, mimeType: 'image/png' },
            ],
            timestamp: 0,
          },
        ],
      },
    })
    const user = t.items.find((i) => i.kind === 'user') as Extract<Item, { kind: 'user' }>
    expect(user.text).toContain('look')
    expect(user.text).toContain('saved at /s/media/inbound/u.png')
    expect(user.text).not.toContain(data)
  })

  it('a message the runtime accepted is no longer "Sending…", also when the run starts with a tool awaiting approval', () => {
    let t = reduce(emptyTranscript(SK), { type: 'local.send', id: 'x', text: 'run ls', ts: 1 })
    expect(t.items[0]).toMatchObject({ kind: 'user', pending: true })
    t = reduce(t, { type: 'local.sendResult', id: 'x', text: 'run ls', result: { runId: 'x', status: 'started' }, ts: 2 })
    expect(t.items[0]).toMatchObject({ kind: 'user', pending: false })
    // the runtime chose another runId: re-keyed, and not pending either
    let u = reduce(emptyTranscript(SK), { type: 'local.send', id: 'y', text: 'hi', ts: 1 })
    u = reduce(u, { type: 'local.sendResult', id: 'y', text: 'hi', result: { runId: 'srv-1', status: 'started' }, ts: 2 })
    expect(u.items[0]).toMatchObject({ kind: 'user', runId: 'srv-1', pending: false })
  })

  it('marks a failed send on the message', () => {
    let t = reduce(emptyTranscript(SK), { type: 'local.send', id: 'x', text: 'hi', ts: 1 })
    t = reduce(t, { type: 'local.sendFailed', id: 'x', error: 'UNAVAILABLE: gateway down' })
    expect(t.items).toHaveLength(1)
    expect(t.items[0]).toMatchObject({ kind: 'user', error: 'UNAVAILABLE: gateway down', pending: false })
  })
})

describe('approvals', () => {
  it('places the approval card after its tool and records the decision', () => {
    const r = runEvents('r1')
    let t = applyAll(emptyTranscript(SK), [r.start(), r.tool('c1', 'exec', { command: 'rm -rf build' })])
    t = reduce(t, {
      type: 'approval.requested',
      request: { id: 'ap1', runId: 'r1', sessionKey: SK, toolCallId: 'c1', command: 'rm -rf build', cwd: '/w', createdAt: 1, expiresAt: 2 },
    })
    expect(view(t)).toEqual(['tool:exec:running', 'approval:rm -rf build:pending', 'run:running'])
    t = reduce(t, { type: 'approval.resolved', resolved: { id: 'ap1', runId: 'r1', sessionKey: SK, decision: 'deny', resolvedBy: 'user', ts: 3 } })
    expect(view(t)[1]).toBe('approval:rm -rf build:deny')
  })

  it('the tool card knows its approval: waiting, then the answer — also when the request came before the call', () => {
    const r = runEvents('r1')
    const request = { id: 'ap1', runId: 'r1', sessionKey: SK, toolCallId: 'c1', command: 'rm -rf build', cwd: '/w', createdAt: 1, expiresAt: 2 }
    const tool = (t: Transcript) => t.items.find((i): i is ToolItem => i.kind === 'tool')!
    let t = applyAll(emptyTranscript(SK), [r.start(), r.tool('c1', 'exec', { command: 'rm -rf build' })])
    t = reduce(t, { type: 'approval.requested', request })
    expect(tool(t).approval).toEqual({ askedAt: 1 })
    t = reduce(t, { type: 'local.approvalDecided', id: 'ap1', decision: 'allow-always' })
    expect(tool(t).approval).toEqual({ decision: 'allow-always', resolvedBy: 'user', askedAt: 1 })
    // the runtime's answer brings when it was answered (the card shows the wait apart from the run time)
    t = reduce(t, { type: 'approval.resolved', resolved: { id: 'ap1', runId: 'r1', sessionKey: SK, decision: 'allow-always', resolvedBy: 'user', ts: 30_001 } })
    expect(tool(t).approval).toEqual({ decision: 'allow-always', resolvedBy: 'user', askedAt: 1, resolvedAt: 30_001 })

    const r2 = runEvents('r1')
    let early = applyAll(emptyTranscript(SK), [r2.start()])
    early = reduce(early, { type: 'approval.requested', request })
    early = applyAll(early, [r2.tool('c1', 'exec', { command: 'rm -rf build' })])
    expect(tool(early).approval).toEqual({ askedAt: 1 })
    early = reduce(early, { type: 'approval.resolved', resolved: { id: 'ap1', runId: 'r1', sessionKey: SK, decision: 'deny', resolvedBy: 'timeout', ts: 3 } })
    expect(tool(early).approval).toEqual({ decision: 'deny', resolvedBy: 'timeout', askedAt: 1, resolvedAt: 3 })
  })

  it('an approval card knows when its tool card carries the answer (then it is not shown twice); without one it stays', () => {
    const r = runEvents('r1')
    const request = { id: 'ap1', runId: 'r1', sessionKey: SK, toolCallId: 'c1', command: 'ls', cwd: '/w', createdAt: 1, expiresAt: 2 }
    const card = (t: Transcript) => t.items.find((i) => i.kind === 'approval') as { onTool?: boolean; decision?: string }
    let early = reduce(applyAll(emptyTranscript(SK), [r.start()]), { type: 'approval.requested', request })
    expect(card(early).onTool).toBeUndefined()
    early = reduce(early, { type: 'approval.resolved', resolved: { id: 'ap1', runId: 'r1', sessionKey: SK, decision: 'allow-once', resolvedBy: 'user', ts: 3 } })
    expect(card(early)).toMatchObject({ decision: 'allow-once' })
    expect(card(early).onTool).toBeUndefined() // no tool card yet: this card is where the answer shows
    early = applyAll(early, [r.tool('c1', 'exec', { command: 'ls' })])
    expect(card(early).onTool).toBe(true)

    const other = reduce(applyAll(emptyTranscript(SK), [r.start()]), { type: 'approval.requested', request: { ...request, toolCallId: 'elsewhere' } })
    const answered = reduce(other, { type: 'approval.resolved', resolved: { id: 'ap1', runId: 'r1', sessionKey: SK, decision: 'deny', resolvedBy: 'user', ts: 3 } })
    expect(card(answered)).toMatchObject({ decision: 'deny' })
    expect(card(answered).onTool).toBeUndefined()
  })
})

// ----------------------------------------------------------------------------------- history + live

/** The history the runtime would persist for scriptedRun('r1') after "list files". */
function historyFor(runId: string, opts: { inFlight?: boolean } = {}): HistoryMessage[] {
  const msgs: HistoryMessage[] = [
    { id: 'm1', runId, role: 'user', content: 'list files', timestamp: 1000 },
    {
      id: 'm2',
      runId,
      role: 'assistant',
      timestamp: 1010,
      content: [
        { type: 'thinking', thinking: 'plan' },
        { type: 'text', text: 'Let me check.' },
        { type: 'toolCall', id: 'c1', name: 'exec', arguments: { command: 'ls' } },
      ],
      usage: { input: 100, output: 20, cacheRead: 0, cacheWrite: 0, totalTokens: 120, cost: { total: 0.001 } },
    },
    { id: 'm3', runId, role: 'toolResult', toolCallId: 'c1', toolName: 'exec', content: [{ type: 'text', text: 'a\nb' }], timestamp: 1020 },
  ]
  if (!opts.inFlight)
    msgs.push({
      id: 'm4',
      runId,
      role: 'assistant',
      timestamp: 1030,
      content: [{ type: 'text', text: 'Found two files.' }],
      usage: { input: 130, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 135, cost: { total: 0.002 } },
    })
  return msgs
}

const hist = (messages: HistoryMessage[], extra: Partial<ChatHistoryPage> = {}): ChatHistoryPage => ({
  sessionKey: SK,
  sessionId: 's1',
  messages,
  hasMore: false,
  ...extra,
})

describe('a reloaded run’s duration', () => {
  it('ends when its last message was written, not when that message’s stream started', () => {
    const msgs = historyFor('r1')
    // the final reply began streaming 1 ms after the tool result and was written 2 s later
    msgs[3] = { ...msgs[3], timestamp: 1021, completedAt: 3021 }
    const run = reduce(emptyTranscript(SK), { type: 'hydrate', history: hist(msgs) }).items.find((i) => i.kind === 'run') as RunItem
    expect(run).toMatchObject({ startedAt: 1000, endedAt: 3021 })
  })
})

describe('history + live merge', () => {
  it('a reloaded transcript has the same items, keys and order as the live one', () => {
    let live = reduce(emptyTranscript(SK), { type: 'local.send', id: 'r1', text: 'list files', ts: 1 })
    live = applyAll(live, scriptedRun('r1').evs)
    const reloaded = reduce(emptyTranscript(SK), { type: 'hydrate', history: hist(historyFor('r1')) })
    expect(view(reloaded)).toEqual(view(live))
    expect(reloaded.items.map((i) => i.key)).toEqual(live.items.map((i) => i.key))
    const f = reloaded.items.at(-1) as RunItem
    expect(f.usage?.totalTokens).toBe(255)
    expect(f.usage?.costUsd).toBeCloseTo(0.003)
  })

  it('a refetch that reproduces the live transcript reuses its item objects (no re-render)', () => {
    let live = reduce(emptyTranscript(SK), { type: 'local.send', id: 'r1', text: 'list files', ts: 1 })
    live = applyAll(live, scriptedRun('r1').evs)
    const again = reduce(live, { type: 'hydrate', history: hist(historyFor('r1')), recent: { events: scriptedRun('r1').evs, approvals: [] } })
    const reused = again.items.filter((it) => it === live.items.find((x) => x.key === it.key)).length
    expect(reused).toBeGreaterThanOrEqual(again.items.length - 2) // the run footer's usage comes from history
  })

  it('hydrates mid-run from history + recent events, then continues live without duplicates or gaps', () => {
    const r = scriptedRun('r1')
    const upTo = 7 // start … tool result
    const recent = { events: r.evs.slice(0, upTo), approvals: [] }
    let t = reduce(emptyTranscript(SK), {
      type: 'hydrate',
      history: hist(historyFor('r1', { inFlight: true }), { inFlightRun: { runId: 'r1', text: '' } }),
      recent,
    })
    expect(view(t)).toEqual(['user:list files', 'assistant:Let me check. [r:plan]', 'tool:exec:done', 'run:running'])
    // live delivery overlaps what the snapshot had (dups) and continues
    t = applyAll(t, r.evs.slice(4))
    const live = applyAll(reduce(emptyTranscript(SK), { type: 'local.send', id: 'r1', text: 'list files', ts: 1 }), r.evs)
    expect(view(t)).toEqual(view(live))
    expect(t.items.map((i) => i.key)).toEqual(live.items.map((i) => i.key))
  })

  it('keeps history of an in-flight run when the event ring lost its beginning', () => {
    const r = scriptedRun('r1')
    let t = reduce(emptyTranscript(SK), {
      type: 'hydrate',
      history: hist(historyFor('r1', { inFlight: true }), { inFlightRun: { runId: 'r1', text: 'Found' } }),
      recent: { events: r.evs.slice(8, 9), approvals: [] },
    })
    // the ring's newest snapshot extends the text history had
    expect(view(t)).toEqual(['user:list files', 'assistant:Let me check. [r:plan]', 'tool:exec:done', 'assistant:Found two files.', 'run:running'])
    t = applyAll(t, r.evs.slice(8))
    expect(view(t)).toEqual(['user:list files', 'assistant:Let me check. [r:plan]', 'tool:exec:done', 'assistant:Found two files.', 'run:done'])
  })

  it('a refetch during a run keeps the optimistic user message and drops stale live duplicates', () => {
    let t = reduce(emptyTranscript(SK), { type: 'local.send', id: 'r2', text: 'again', ts: 5000 })
    const r = runEvents('r2')
    t = applyAll(t, [r.start(), r.say('wor')])
    // the history snapshot predates r2 entirely; recent events have its start
    t = reduce(t, { type: 'hydrate', history: hist(historyFor('r1')), recent: { events: r.evs.slice(0, 1), approvals: [] } })
    t = applyAll(t, [...r.evs, r.say('king'), r.end()])
    expect(view(t)).toEqual([
      'user:list files',
      'assistant:Let me check. [r:plan]',
      'tool:exec:done',
      'assistant:Found two files.',
      'run:done',
      'user:again',
      'assistant:working',
      'run:done',
    ])
  })

  it('drops late live events of runs already complete in history', () => {
    const r = scriptedRun('r1')
    const t = reduce(emptyTranscript(SK), { type: 'hydrate', history: hist(historyFor('r1')), recent: { events: r.evs, approvals: [] } })
    expect(applyAll(t, r.evs.slice(5))).toBe(t)
  })

  it('history marks stopped and failed runs and interrupted tools', () => {
    const msgs: HistoryMessage[] = [
      { id: 'u1', runId: 'a', role: 'user', content: [{ type: 'text', text: 'one' }], timestamp: 1 },
      { id: 'x1', runId: 'a', role: 'assistant', content: [{ type: 'text', text: 'partial' }], stopReason: 'aborted', timestamp: 2 },
      { id: 'u2', runId: 'b', role: 'user', content: 'two', timestamp: 3 },
      {
        id: 'x2',
        runId: 'b',
        role: 'assistant',
        content: [{ type: 'toolCall', id: 't9', name: 'exec', arguments: {} }],
        stopReason: 'error',
        errorMessage: 'context too long',
        timestamp: 4,
      },
      { id: 'c', role: 'compaction', content: '', summary: 'earlier stuff', timestamp: 5 },
    ]
    const t = reduce(emptyTranscript(SK), { type: 'hydrate', history: hist(msgs) })
    expect(view(t)).toEqual([
      'user:one',
      'assistant:partial (stopped)',
      'run:stopped',
      'user:two',
      'tool:exec:interrupted',
      'run:error:context too long',
      'compaction',
    ])
  })

  it('prepends older pages without key collisions when a run spans the page boundary', () => {
    const all = historyFor('r1')
    let t = reduce(emptyTranscript(SK), { type: 'hydrate', history: hist(all.slice(2), { hasMore: true, nextOffset: 2 }) })
    t = reduce(t, { type: 'prepend', history: hist(all.slice(0, 2), { hasMore: false }) })
    const keys = t.items.map((i: Item) => i.key)
    expect(new Set(keys).size).toBe(keys.length)
    expect(t.items[0]).toMatchObject({ kind: 'user', text: 'list files' })
    expect(t.hasMore).toBe(false)
  })
})

describe('long replies', () => {
  const long = Array.from({ length: 900 }, (_, i) =>
    i % 9 === 4 ? '```js\n' + 'x = 1\n\n'.repeat(40) + '```' : `Paragraph ${i} with a few words to make it realistic.`,
  ).join('\n\n')

  it('are split into bounded continuation rows that a reload reproduces exactly', () => {
    expect(long.length).toBeGreaterThan(3 * SEAL_CHARS)
    const r = runEvents('r1')
    r.start()
    for (let i = 0; i < long.length; i += 7) r.say(long.slice(i, i + 7))
    r.end()
    let live = reduce(emptyTranscript(SK), { type: 'local.send', id: 'r1', text: 'go', ts: 0 })
    live = applyAll(live, r.evs)
    const parts = live.items.filter((i) => i.kind === 'assistant') as AssistantItem[]
    expect(parts.length).toBeGreaterThan(3)
    expect(parts.map((p) => p.text).join('')).toBe(long)
    expect(Math.max(...parts.map((p) => p.text.length))).toBeLessThan(SEAL_CHARS + 2_000)
    expect(parts.slice(1).every((p) => p.cont)).toBe(true)
    // each row knows where it starts in the message (the plain-text fallback counts from there)
    expect(parts.map((p) => p.offset ?? 0)).toEqual(parts.map((_, i) => parts.slice(0, i).reduce((n, p) => n + p.text.length, 0)))
    const reloaded = reduce(emptyTranscript(SK), {
      type: 'hydrate',
      history: hist([
        { id: 'u', runId: 'r1', role: 'user', content: 'go', timestamp: 0 },
        { id: 'a', runId: 'r1', role: 'assistant', content: [{ type: 'text', text: long }], timestamp: 1 },
      ]),
    })
    expect(reloaded.items.map((i) => i.key)).toEqual(live.items.map((i) => i.key))
    expect(reloaded.items.map((i) => (i.kind === 'assistant' ? i.text : i.kind))).toEqual(live.items.map((i) => (i.kind === 'assistant' ? i.text : i.kind)))
  })

  it('checks a streaming 1.4 MB code block for a row cut with work linear in its length', () => {
    const code = '```ts\n' + Array.from({ length: 35_000 }, (_, i) => `const value${i} = compute(${i}) // line ${i}`).join('\n') + '\n```\n\nDone.'
    const r = runEvents('r1')
    r.start()
    for (let i = 0; i < code.length; i += 4_000) r.say(code.slice(i, i + 4_000))
    r.end()
    splitWork.chars = 0
    const items = applyAll(emptyTranscript(SK), r.evs).items.filter((i) => i.kind === 'assistant') as AssistantItem[]
    expect(items.map((p) => p.text).join('')).toBe(code)
    // each crossing of a 12,000-character multiple split the whole text so far again (quadratic)
    expect(splitWork.chars).toBeLessThan(6 * code.length)
  })

  it('seals the same way whatever the delta sizes are', () => {
    const run = (step: number) => {
      const r = runEvents('r1')
      r.start()
      for (let i = 0; i < long.length; i += step) r.say(long.slice(i, i + step))
      return applyAll(emptyTranscript(SK), r.evs).items.map((i) => (i.kind === 'assistant' ? i.text.length : i.kind))
    }
    expect(run(3)).toEqual(run(5000))
  })
})

describe('durations and errors after a refetch', () => {
  it('keeps tool and run durations measured from events instead of transcript timestamps', () => {
    const r = scriptedRun('r1')
    let live = reduce(emptyTranscript(SK), { type: 'local.send', id: 'r1', text: 'list files', ts: 1 })
    live = applyAll(live, r.evs)
    const liveTool = live.items.find((i) => i.kind === 'tool') as ToolItem
    const liveRun = live.items.at(-1) as RunItem
    // from the window's own live state
    const refetched = reduce(live, { type: 'hydrate', history: hist(historyFor('r1')) })
    const tool = refetched.items.find((i) => i.kind === 'tool') as ToolItem
    expect([tool.startedAt, tool.endedAt]).toEqual([liveTool.startedAt, liveTool.endedAt])
    const run = refetched.items.at(-1) as RunItem
    expect([run.startedAt, run.endedAt]).toEqual([liveRun.startedAt, liveRun.endedAt])
    // after a reload: from the runtime's recent-event ring
    const reloaded = reduce(emptyTranscript(SK), { type: 'hydrate', history: hist(historyFor('r1')), recent: { events: r.evs, approvals: [] } })
    const t2 = reloaded.items.find((i) => i.kind === 'tool') as ToolItem
    expect(t2.endedAt! - t2.startedAt!).toBe(liveTool.endedAt! - liveTool.startedAt!)
  })

  it('shows the provider message of raw HTTP errors', () => {
    expect(readableError('401: {"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}}')).toBe('HTTP 401: Incorrect API key provided')
    expect(readableError('{"message":"overloaded"}')).toBe('overloaded')
    expect(readableError('connection refused')).toBe('connection refused')
    const t = reduce(emptyTranscript(SK), {
      type: 'hydrate',
      history: hist([
        { id: 'u', runId: 'x', role: 'user', content: 'hi', timestamp: 1 },
        { id: 'a', runId: 'x', role: 'assistant', content: [], stopReason: 'error', errorMessage: '429: {"error":{"message":"Rate limit reached"}}', timestamp: 2 },
      ]),
    })
    expect((t.items.at(-1) as RunItem).error).toBe('HTTP 429: Rate limit reached')
  })
})

describe('queue collect mode: messages folded into one run', () => {
  const queued = (id: string, text: string, enqueuedAt: number, status: 'queued' | 'collected', runId?: string) => ({
    id,
    sessionKey: SK,
    mode: 'collect' as const,
    text,
    enqueuedAt,
    status,
    ...(runId ? { runId, detail: 'coalesced 2 messages into one turn' } : {}),
  })
  const prompt = '[Queued messages while agent was busy]\n\n---\nQueued #1\nalso this\n\n---\nQueued #2\nand that'

  /** r1 runs; c2 and c3 are queued, then folded into c2's run (the runtime marks c3 foldedInto c2). */
  function liveFold() {
    const r1 = runEvents('r1')
    let t = reduce(emptyTranscript(SK), { type: 'local.send', id: 'r1', text: 'start', ts: 0 })
    t = applyAll(t, [r1.start(), r1.say('first'), r1.end()])
    for (const [id, text] of [['c2', 'also this'], ['c3', 'and that']]) {
      t = reduce(t, { type: 'local.send', id, text, ts: 1 })
      t = reduce(t, { type: 'local.sendResult', id, text, result: { runId: 'r1', status: 'queued', queueItemId: `q${id}` }, ts: 1 })
    }
    t = reduce(t, { type: 'queue', items: [queued('qc2', 'also this', 2, 'queued'), queued('qc3', 'and that', 3, 'queued')] })
    const c2 = runEvents('c2')
    const c3 = runEvents('c3')
    const foldStart = c3.start()
    foldStart.data = { ...foldStart.data, foldedInto: 'c2' }
    t = applyAll(t, [c2.start(), foldStart])
    t = reduce(t, { type: 'queue', items: [queued('qc2', 'also this', 2, 'collected', 'c2'), queued('qc3', 'and that', 3, 'collected', 'c2')] })
    t = applyAll(t, [c2.say('both done'), c2.end()])
    const foldEnd = c3.end({ stopReason: 'collected', foldedInto: 'c2' })
    t = applyAll(t, [foldEnd])
    const beforeChat = t
    t = reduce(t, { type: 'chat', event: { runId: 'c3', sessionKey: SK, seq: 2, state: 'final', stopReason: 'collected' } })
    return { t, beforeChat, events: [...r1.evs, ...c2.evs, ...c3.evs] }
  }

  it('shows the folded messages in the run that answered them — no empty footer of their own', () => {
    const { t, beforeChat } = liveFold()
    expect(view(beforeChat)).toEqual(view(t)) // the agent stream alone says so
    expect(view(t)).toEqual(['user:start', 'assistant:first', 'run:done', 'user:also this', 'user:and that', 'assistant:both done', 'run:done'])
    expect(t.items.filter((i) => i.kind === 'run').map((i) => i.key)).toEqual(['run:r1', 'run:c2'])
    const users = t.items.filter((i) => i.kind === 'user' && i.runId === 'c2')
    expect(users.map((u) => [u.key, u.kind === 'user' && u.via])).toEqual([
      ['user:c2', 'collect'],
      ['user:c2:1', 'collect'],
    ])
    expect(activeRun(t)).toBeUndefined()
  })

  it('a batch the user reordered shows its messages in the batch (queue list) order, not the order they were sent', () => {
    const c2 = runEvents('c2')
    let t = applyAll(emptyTranscript(SK), [c2.start()])
    // "and that" was sent later but moved up: the runtime lists (and prompted) it first
    t = reduce(t, { type: 'queue', items: [queued('qc3', 'and that', 3, 'collected', 'c2'), queued('qc2', 'also this', 2, 'collected', 'c2')] })
    expect(view(t).filter((v) => v.startsWith('user:'))).toEqual(['user:and that', 'user:also this'])
  })

  it('events of the folded run arriving before its queue update (and duplicates) add nothing', () => {
    const c3 = runEvents('c3')
    const s = c3.start()
    s.data = { ...s.data, foldedInto: 'c2' }
    const e = c3.end({ stopReason: 'collected', foldedInto: 'c2' })
    const t = applyAll(emptyTranscript(SK), [e, s, s, e])
    expect(t.items).toEqual([])
    // a chat final of a folded run whose agent events this window never saw
    const t2 = reduce(emptyTranscript(SK), { type: 'chat', event: { runId: 'c9', sessionKey: SK, seq: 1, state: 'final', stopReason: 'collected' } })
    expect(t2.items).toEqual([])
  })

  it('a reload shows the same items and keys: history\'s collect prompt is split into the queued messages', () => {
    const { t, events } = liveFold()
    const reloaded = reduce(emptyTranscript(SK), {
      type: 'hydrate',
      history: hist([
        { id: '0', runId: 'r1', role: 'user', content: 'start', timestamp: 0 },
        { id: '1', runId: 'r1', role: 'assistant', content: [{ type: 'text', text: 'first' }], timestamp: 1 },
        { id: '2', runId: 'c2', role: 'user', content: prompt, timestamp: 2 },
        { id: '3', runId: 'c2', role: 'assistant', content: [{ type: 'text', text: 'both done' }], timestamp: 3 },
      ]),
      recent: { events, approvals: [] },
    })
    expect(view(reloaded)).toEqual(view(t))
    expect(reloaded.items.map((i) => i.key)).toEqual(t.items.map((i) => i.key))
  })

  it('splits collect prompts (with an overflow notice; a single message) and leaves other text alone', () => {
    expect(collectedTexts(prompt)).toEqual(['also this', 'and that'])
    const withOverflow = '[Queued messages while agent was busy]\n\n[Queue overflow] Dropped 1 message due to cap.\nSummary:\n- x\n\n---\nQueued #1\nline 1\n\nline 2'
    expect(collectedTexts(withOverflow)).toEqual(['line 1\n\nline 2'])
    expect(collectedTexts('just a message')).toBeUndefined()
    expect(collectedTexts('[Queued messages while agent was busy]\n\nno sections')).toBeUndefined()
  })
})

describe('a finished reply that is not what it seems', () => {
  const footerOf = (t: Transcript) => t.items.find((i): i is RunItem => i.kind === 'run')!
  it('cut off at the output limit or empty: the run footer says so, live and after a reload', async () => {
    const { runStatusText } = await import('../components/Messages')
    const cut = runEvents('r1')
    cut.start()
    cut.say('The list goes on and')
    cut.end({ stopReason: 'length' })
    const sent = (id: string) => reduce(emptyTranscript(SK), { type: 'local.send', id, text: 'go', ts: 1 })
    const live = applyAll(sent('r1'), cut.evs)
    expect(footerOf(live).notice).toBe('length')
    expect(runStatusText(footerOf(live))).toMatch(/^Done · Cut off at the model’s output limit · /)

    const empty = runEvents('r2')
    empty.start()
    empty.end({ stopReason: 'stop', emptyReply: true })
    expect(runStatusText(footerOf(applyAll(sent('r2'), empty.evs)))).toMatch(/^Done · The model sent an empty reply/)

    const plain = runEvents('r3')
    plain.start()
    plain.say('Fine.')
    plain.end({ stopReason: 'stop' })
    expect(footerOf(applyAll(sent('r3'), plain.evs)).notice).toBeUndefined()

    const msgs = historyFor('r4')
    ;(msgs[msgs.length - 1] as { stopReason?: string }).stopReason = 'length'
    const reloaded = reduce(emptyTranscript(SK), { type: 'hydrate', history: hist(msgs) })
    expect(footerOf(reloaded).notice).toBe('length')
  })
})

describe('a model request being retried', () => {
  const footerOf = (t: Transcript) => t.items.find((i): i is RunItem => i.kind === 'run')!
  it('the footer says the server refused it and when it is retried; the reply clears that', async () => {
    const { runStatusText } = await import('../components/Messages')
    const r = runEvents('r1')
    r.start()
    const e = r.evs.length
    r.evs.push({ runId: 'r1', seq: e + 1, stream: 'error', ts: 5_000, data: { reason: 'model_retry', status: 429, attempt: 1, retryAfterMs: 2000 }, sessionKey: SK })
    let t = applyAll(reduce(emptyTranscript(SK), { type: 'local.send', id: 'r1', text: 'go', ts: 1 }), r.evs)
    expect(footerOf(t).retry).toEqual({ status: 429, until: 7_000 })
    expect(runStatusText(footerOf(t), 5_200)).toMatch(/^Rate limited by the model server — retrying in 2 s/)
    expect(t.needsRefetch).toBeFalsy() // not a seq gap
    t = applyAll(t, [{ runId: 'r1', seq: e + 2, stream: 'assistant', ts: 7_100, data: { text: 'Hi', delta: 'Hi' }, sessionKey: SK }])
    expect(footerOf(t).retry).toBeUndefined()
    expect(runStatusText(footerOf(t), 7_200)).toMatch(/^Running…/)
  })
})

describe('a reloaded tool result', () => {
  it('keeps the details history kept (exec: how it was approved), so the card can still say who decided', () => {
    const msgs = historyFor('r1')
    ;(msgs[2] as { details?: unknown }).details = { approval: 'allow-once' }
    const t = reduce(emptyTranscript(SK), { type: 'hydrate', history: hist(msgs) })
    const tool = t.items.find((i): i is ToolItem => i.kind === 'tool')!
    expect(tool.result).toEqual({ content: [{ type: 'text', text: 'a\nb' }], details: { approval: 'allow-once' } })
  })
})
