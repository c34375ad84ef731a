// A run whose model wrote nothing (the runtime's lifecycle end `emptyReply`) reads "The model sent an empty
// reply" after a reload too, not a bare "Done · 1 tokens" — judged as the runtime does, over the whole run: text
// anywhere in it, or a message-tool delivery, is a reply; NO_REPLY is "No reply".
import { describe, expect, it } from 'vitest'
import type { HistoryMessage } from '../../../shared/methods'
import { runStatusText } from '../components/Messages'
import { reduce } from './run-reducer'
import { emptyTranscript, type RunItem, type Transcript } from './types'

const SK = 'agent:main:empty'
const user = (runId: string, ts: number): HistoryMessage =>
  ({ role: 'user', content: [{ type: 'text', text: 'EMPTY now' }], timestamp: ts, id: `${runId}-u`, runId }) as HistoryMessage
/** what chat.history returns for a reply with no text (content [], stopReason stop) */
const reply = (runId: string, ts: number, content: unknown[] = []): HistoryMessage =>
  ({ role: 'assistant', content, timestamp: ts, id: `${runId}-a${ts}`, runId, stopReason: 'stop', usage: { input: 1, output: 0, totalTokens: 1 } }) as HistoryMessage
const footer = (t: Transcript, runId: string) => t.items.find((i) => i.kind === 'run' && i.runId === runId) as RunItem | undefined
const hydrate = (messages: HistoryMessage[], hasMore = false) =>
  reduce(emptyTranscript(SK), { type: 'hydrate', history: { sessionKey: SK, sessionId: 's', hasMore, messages } })

describe('an empty reply after a reload', () => {
  it('says the model sent an empty reply', () => {
    const t = hydrate([user('r1', 1), reply('r1', 2)])
    expect(footer(t, 'r1')).toMatchObject({ status: 'done', notice: 'empty' })
    expect(runStatusText(footer(t, 'r1')!)).toMatch(/^Done · The model sent an empty reply/)
    // whitespace only, or reasoning only, is no text either (the runtime counts trimmed text)
    expect(footer(hydrate([user('r2', 1), reply('r2', 2, [{ type: 'text', text: '\n ' }])]), 'r2')?.notice).toBe('empty')
    expect(footer(hydrate([user('r3', 1), reply('r3', 2, [{ type: 'thinking', thinking: 'hmm' }])]), 'r3')?.notice).toBe('empty')
  })

  it('text earlier in the run, a message-tool delivery, or NO_REPLY: not empty', () => {
    const tool = (name: string) =>
      ({ role: 'assistant', content: [{ type: 'toolCall', id: `c-${name}`, name, arguments: { text: 'hi' } }], timestamp: 2, id: `t-${name}`, runId: `r-${name}`, stopReason: 'toolUse' }) as HistoryMessage
    const early = hydrate([user('r1', 1), reply('r1', 2, [{ type: 'text', text: 'Looking…' }]), reply('r1', 3)])
    expect(footer(early, 'r1')?.notice).toBeUndefined()
    expect(footer(hydrate([user('r-message', 1), tool('message'), reply('r-message', 3)]), 'r-message')?.notice).toBeUndefined()
    const silent = { ...reply('r4', 2), silent: true } as HistoryMessage
    expect(footer(hydrate([user('r4', 1), silent]), 'r4')?.notice).toBe('silent')
    // a tool call with no text at all is an empty reply for the runtime too
    expect(footer(hydrate([user('r-read', 1), tool('read'), reply('r-read', 3)]), 'r-read')?.notice).toBe('empty')
  })

  it('a page that starts mid-run (its user message on an older page) does not guess', () => {
    const t = hydrate([reply('r1', 2)], true)
    expect(footer(t, 'r1')?.notice).toBeUndefined()
  })
})
