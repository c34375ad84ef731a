// Regression (window probe): a reply of only the JSON envelope {"action":"NO_REPLY"} was held back while it
// streamed ("Done · No reply"), but history showed it as the reply: ~400 ms after the run ended (the reconcile
// with chat.history) and after a reload the window read `{"action": "NO_REPLY"}` under a plain "Done".
import { describe, expect, it } from 'vitest'
import { historyRow } from './history-row'

const at = { id: 'a1', seq: 2, runId: 'r1', timestamp: 10 }
const reply = (text: string, extra: Record<string, unknown> = {}) => ({ role: 'assistant', content: [{ type: 'text', text }], stopReason: 'stop', ...extra })

describe('history rows of silent replies', () => {
  for (const text of ['NO_REPLY', ' no_reply\n', '{"action":"NO_REPLY"}', '{ "action": "no_reply" }']) {
    it(`${JSON.stringify(text)}: no row for OpenClaw clients; for the window a silent row without the text`, () => {
      expect(historyRow(reply(text), at)).toBeUndefined()
      const row = historyRow(reply(text), at, { silentReplies: true })
      expect(row).toMatchObject({ role: 'assistant', silent: true, content: [] })
    })
  }

  it('a JSON reply that is something else, or says more, is a reply', () => {
    for (const text of ['{"action":"NO_REPLY","why":"done"}', '{"action":"reply"}', 'NO_REPLY, because']) {
      expect(historyRow(reply(text), at)?.content).toEqual([{ type: 'text', text }])
    }
  })

  it('an envelope next to a tool call keeps the call, without the text', () => {
    const call = { type: 'toolCall', id: 'c1', name: 'read', arguments: {} }
    const row = historyRow({ role: 'assistant', content: [{ type: 'text', text: '{"action":"NO_REPLY"}' }, call], stopReason: 'toolUse' }, at)
    expect(row?.content).toEqual([call])
  })
})
