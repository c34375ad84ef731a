// A model that writes its reasoning inline in <think> tags, in the window: the runtime sends only the reply on the
// assistant stream, takes back text that turned out to be reasoning (a closing tag with no opener: `replace`),
// and chat.history turns a reply stored with its tags (written before the runtime split them) into reasoning +
// reply, so a reload shows what the live run showed.
import { describe, expect, it } from 'vitest'
import type { AgentEvent } from '../../../shared/events'
import { historyRow } from '../../../shared/history-row'
import type { HistoryMessage } from '../../../shared/methods'
import { reduce } from './run-reducer'
import { emptyTranscript, type AssistantItem, type Transcript } from './types'

const SK = 'agent:main:main'

function run(runId: string) {
  let seq = 0
  return (stream: AgentEvent['stream'], data: Record<string, unknown>, ts: number): AgentEvent => ({ runId, seq: ++seq, stream, ts, data, sessionKey: SK })
}
const apply = (t: Transcript, ...evs: AgentEvent[]) => reduce(t, evs.map((event) => ({ type: 'agent' as const, event })))
const assistant = (t: Transcript) => t.items.filter((i): i is AssistantItem => i.kind === 'assistant')
const sent = () => reduce(emptyTranscript(SK), { type: 'local.send', id: 'r1', text: 'go', ts: 1 })

describe('think-tagged reasoning in the window', () => {
  for (const level of ['off', 'on'] as const) {
    it(`level ${level}: text taken back as reasoning leaves the reply alone in its message`, () => {
      const ev = run('r1')
      const t = apply(
        sent(),
        ev('lifecycle', { phase: 'start', startedAt: 1_000 }, 1_000),
        ev('assistant', { text: 'The user wants', delta: 'The user wants' }, 1_100),
        ev('assistant', { text: 'The user wants a number.\n', delta: ' a number.\n' }, 1_200),
        ev('assistant', { text: '', delta: '', replace: true }, 1_300),
        ev('reasoning', { phase: 'start' }, 1_300),
        ev('reasoning', level === 'on' ? { phase: 'end', text: 'The user wants a number.' } : { phase: 'end' }, 1_300),
        ev('assistant', { text: '42', delta: '42' }, 1_400),
        ev('lifecycle', { phase: 'end', endedAt: 1_500 }, 1_500),
      )
      const shown = assistant(t).filter((a) => a.text || a.reasoning)
      expect(shown.map((a) => a.text)).toEqual(['42'])
      expect(shown[0].reasoning).toBe(level === 'on' ? 'The user wants a number.' : undefined)
    })
  }

  it('a reply stored with its tags reloads as reasoning + reply', () => {
    const stored = { role: 'assistant', content: [{ type: 'text', text: '<think>\nThe user wants 42.\n</think>\n\nThe answer is 42.' }], timestamp: 1010 }
    const row = historyRow(stored, { id: 'm2', seq: 2, runId: 'r1', timestamp: 1010 })!
    expect(row.content).toEqual([
      { type: 'thinking', thinking: 'The user wants 42.' },
      { type: 'text', text: 'The answer is 42.' },
    ])
    const messages: HistoryMessage[] = [{ id: 'm1', runId: 'r1', role: 'user', content: 'go', timestamp: 1000 }, row]
    const t = reduce(emptyTranscript(SK), { type: 'hydrate', history: { sessionKey: SK, sessionId: 's1', messages, hasMore: false }, recent: { events: [], approvals: [] } })
    expect(assistant(t).map((a) => [a.reasoning, a.text])).toEqual([['The user wants 42.', 'The answer is 42.']])
    // a stored template-opened reply (closing tag only) and a NO_REPLY behind a block read the same way
    const stray = historyRow({ role: 'assistant', content: [{ type: 'text', text: 'plan\n</think>\n\nok' }] }, { id: 'm3', timestamp: 1 })!
    expect(stray.content).toEqual([
      { type: 'thinking', thinking: 'plan' },
      { type: 'text', text: 'ok' },
    ])
    expect(historyRow({ role: 'assistant', content: [{ type: 'text', text: '<think>x</think>NO_REPLY' }] }, { id: 'm4', timestamp: 1 })).toBeUndefined()
  })
})
