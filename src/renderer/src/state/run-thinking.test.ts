// The runtime's `reasoning` stream in the run reducer: the footer knows the model is inside a reasoning block
// (at every level) until the block ends or text, a tool call or the run's end shows it is over; at level `on`
// the block's text arrives with its end and is shown at once, above the reply.
import { describe, expect, it } from 'vitest'
import type { AgentEvent } from '../../../shared/events'
import type { HistoryMessage } from '../../../shared/methods'
import { runStatusText } from '../components/Messages'
import { reduce } from './run-reducer'
import { emptyTranscript, type AssistantItem, type RunItem, type Transcript } from './types'

const SK = 'agent:main:main'

function run(runId: string) {
  let seq = 0
  return (stream: AgentEvent['stream'], data: Record<string, unknown>, ts: number): AgentEvent => ({ runId, seq: ++seq, stream, ts, data, sessionKey: SK })
}
const apply = (t: Transcript, ...evs: AgentEvent[]) => reduce(t, evs.map((event) => ({ type: 'agent' as const, event })))
const footer = (t: Transcript) => t.items.find((i): i is RunItem => i.kind === 'run')!
const assistant = (t: Transcript) => t.items.filter((i): i is AssistantItem => i.kind === 'assistant')
const sent = () => reduce(emptyTranscript(SK), { type: 'local.send', id: 'r1', text: 'go', ts: 1 })

describe('a reasoning block in the run footer', () => {
  it('reads "Thinking…" with the seconds spent from the block start, and "Running…" again once it ends', () => {
    const ev = run('r1')
    let t = apply(sent(), ev('lifecycle', { phase: 'start', startedAt: 1_000 }, 1_000), ev('reasoning', { phase: 'start' }, 2_000))
    expect(footer(t).thinkingSince).toBe(2_000)
    expect(runStatusText(footer(t), 2_400)).toBe('Thinking… · 1.4 s')
    expect(runStatusText(footer(t), 14_500)).toBe('Thinking… 12 s · 13.5 s')
    t = apply(t, ev('reasoning', { phase: 'end' }, 15_000))
    expect(runStatusText(footer(t), 15_100)).toBe('Running… · 14.1 s')
    // level off: nothing of the block is shown
    expect(assistant(t)).toEqual([])
  })

  it('text or a tool call ends it even when the block end never came; so does the run end', () => {
    for (const next of [
      (ev: ReturnType<typeof run>) => ev('assistant', { text: 'Hi', delta: 'Hi' }, 3_000),
      (ev: ReturnType<typeof run>) => ev('tool', { phase: 'start', name: 'read', toolCallId: 'c1', args: {} }, 3_000),
      (ev: ReturnType<typeof run>) => ev('lifecycle', { phase: 'end', endedAt: 3_000 }, 3_000),
    ]) {
      const ev = run('r1')
      let t = apply(sent(), ev('lifecycle', { phase: 'start', startedAt: 1_000 }, 1_000), ev('reasoning', { phase: 'start' }, 2_000))
      expect(footer(t).thinkingSince).toBe(2_000)
      t = apply(t, next(ev))
      expect(footer(t).thinkingSince).toBeUndefined()
      expect(runStatusText(footer(t), 3_100)).not.toMatch(/Thinking/)
    }
  })

  it('level on: the finished block is shown as it ends, before the reply; the reply joins the same message', () => {
    const ev = run('r1')
    let t = apply(
      sent(),
      ev('lifecycle', { phase: 'start', startedAt: 1_000 }, 1_000),
      ev('reasoning', { phase: 'start' }, 2_000),
      ev('reasoning', { phase: 'end', text: 'Check the notes first.' }, 3_000),
    )
    expect(assistant(t).map((a) => [a.reasoning, a.text])).toEqual([['Check the notes first.', '']])
    t = apply(t, ev('assistant', { text: 'Done.', delta: 'Done.' }, 3_500))
    expect(assistant(t).map((a) => [a.reasoning, a.text])).toEqual([['Check the notes first.', 'Done.']])
  })

  it('a reload mid-run whose event ring lost the beginning: a block already in history is not shown twice', () => {
    // history: the first message of the run (its reasoning, text and tool call) and the tool's result
    const messages: HistoryMessage[] = [
      { id: 'm1', runId: 'r1', role: 'user', content: 'list files', timestamp: 1000 },
      {
        id: 'm2',
        runId: 'r1',
        role: 'assistant',
        timestamp: 1010,
        content: [
          { type: 'thinking', thinking: 'plan' },
          { type: 'text', text: 'Let me check.' },
          { type: 'toolCall', id: 'c1', name: 'exec', arguments: { command: 'ls' } },
        ],
      },
      { id: 'm3', runId: 'r1', role: 'toolResult', toolCallId: 'c1', toolName: 'exec', content: [{ type: 'text', text: 'a' }], timestamp: 1020 },
    ]
    // the ring from seq 2 on: that block's end (level on), then the next message thinking
    const evs: AgentEvent[] = [
      { runId: 'r1', seq: 2, stream: 'reasoning', ts: 1005, data: { phase: 'end', text: 'plan' }, sessionKey: SK },
      { runId: 'r1', seq: 3, stream: 'reasoning', ts: 1030, data: { phase: 'start' }, sessionKey: SK },
    ]
    const t = reduce(emptyTranscript(SK), {
      type: 'hydrate',
      history: { sessionKey: SK, sessionId: 's1', messages, hasMore: false, inFlightRun: { runId: 'r1', text: '' } },
      recent: { events: evs, approvals: [] },
    })
    expect(assistant(t).map((a) => a.reasoning)).toEqual(['plan'])
    expect(footer(t).thinkingSince).toBe(1030)
  })

  it('history at level off shows no stored reasoning, as the live run showed none; other levels show it', () => {
    const msgs = (n: number): HistoryMessage[] => [
      { id: `u${n}`, runId: `r${n}`, role: 'user', content: 'go', timestamp: n * 100 },
      { id: `a${n}`, runId: `r${n}`, role: 'assistant', timestamp: n * 100 + 10, content: [{ type: 'thinking', thinking: `plan ${n}` }, { type: 'text', text: `Done ${n}.` }] },
    ]
    const page = (reasoningLevel: 'off' | 'on' | 'stream' | undefined, messages = msgs(2)) => ({
      sessionKey: SK,
      sessionId: 's1',
      messages,
      hasMore: true,
      nextOffset: 2,
      ...(reasoningLevel ? { reasoningLevel } : {}),
    })
    const shown = (t: Transcript) => assistant(t).map((a) => [a.reasoning, a.text])
    let t = reduce(emptyTranscript(SK), { type: 'hydrate', history: page('off') })
    expect(shown(t)).toEqual([[undefined, 'Done 2.']])
    // an older page, and a delta resync's page (no level of its own), follow the level last read
    t = reduce(t, { type: 'prepend', history: { ...page(undefined, msgs(1)), hasMore: false } })
    expect(shown(t)).toEqual([[undefined, 'Done 1.'], [undefined, 'Done 2.']])
    const resynced = reduce(reduce(emptyTranscript(SK), { type: 'hydrate', history: page('off') }), { type: 'hydrate', history: page(undefined) })
    expect(shown(resynced)).toEqual([[undefined, 'Done 2.']])
    // the level was patched since the page was read: reasoning reaching the window live says it is not off, and a
    // delta resync (no level of its own) then shows the stored reasoning again
    const ev = run('r3')
    let live = reduce(reduce(emptyTranscript(SK), { type: 'hydrate', history: page('off') }), { type: 'local.send', id: 'r3', text: 'go', ts: 300 })
    live = apply(live, ev('lifecycle', { phase: 'start', startedAt: 300 }, 300), ev('reasoning', { phase: 'start' }, 301), ev('reasoning', { phase: 'end', text: 'plan 3' }, 302))
    expect(shown(reduce(live, { type: 'hydrate', history: page(undefined) }))).toEqual([['plan 2', 'Done 2.']])
    for (const level of ['on', 'stream', undefined] as const) {
      expect(shown(reduce(emptyTranscript(SK), { type: 'hydrate', history: page(level) })), String(level)).toEqual([['plan 2', 'Done 2.']])
    }
  })
})
