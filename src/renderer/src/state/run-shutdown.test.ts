// A run the gateway's shutdown cut off (chat `aborted` / lifecycle end `stopReason: "shutdown"`): the footer and
// the announcer say the gateway shut down instead of a bare "Stopped" — live, and after a reload, where the
// reply's persisted abort mark (`openclawAbort.origin: "shutdown"`, OpenClaw's own field) still says so.
import { describe, expect, it } from 'vitest'
import type { AgentEvent, AgentStream, ChatEvent } from '../../../shared/events'
import type { HistoryMessage } from '../../../shared/methods'
import { runStatusText } from '../components/Messages'
import { runAnnouncement } from '../components/RunAnnouncer'
import { reduce } from './run-reducer'
import { emptyTranscript, type AssistantItem, type RunItem, type Transcript } from './types'

const SK = 'agent:main:main'
const ev = (runId: string, seq: number, stream: AgentStream, data: Record<string, unknown>): AgentEvent => ({ runId, seq, stream, ts: 1000 + seq, data, sessionKey: SK })
const runItem = (t: Transcript) => t.items.find((i) => i.kind === 'run') as RunItem
const reply = (t: Transcript) => t.items.find((i) => i.kind === 'assistant') as AssistantItem

describe('a run the gateway shutdown stopped', () => {
  it('live (lifecycle end): the footer and the announcer say the gateway shut down; the reply is marked stopped', () => {
    const t = reduce(emptyTranscript(SK), [
      { type: 'agent', event: ev('r1', 1, 'lifecycle', { phase: 'start', startedAt: 1000 }) },
      { type: 'agent', event: ev('r1', 2, 'assistant', { text: 'Half a', delta: 'Half a' }) },
      { type: 'agent', event: ev('r1', 3, 'lifecycle', { phase: 'end', endedAt: 3000, startedAt: 1000, aborted: true, stopReason: 'shutdown' }) },
    ])
    expect(runItem(t)).toMatchObject({ status: 'stopped', stopCause: 'shutdown' })
    expect(reply(t)).toMatchObject({ text: 'Half a', stopped: true })
    expect(runStatusText(runItem(t))).toMatch(/^Stopped: the gateway shut down · /)
    expect(runAnnouncement(runItem(t), 0)).toBe('Stopped: the gateway shut down')
  })

  it('the chat projection alone (aborted, stopReason shutdown), and after a lifecycle end that did not say why', () => {
    const chat: ChatEvent = { runId: 'r2', sessionKey: SK, seq: 2, state: 'aborted', stopReason: 'shutdown' }
    expect(runItem(reduce(emptyTranscript(SK), [{ type: 'chat', event: chat }]))).toMatchObject({ status: 'stopped', stopCause: 'shutdown' })
    const t = reduce(emptyTranscript(SK), [
      { type: 'agent', event: ev('r2', 1, 'lifecycle', { phase: 'start', startedAt: 1000 }) },
      { type: 'agent', event: ev('r2', 2, 'lifecycle', { phase: 'end', endedAt: 3000, aborted: true }) },
      { type: 'chat', event: chat },
    ])
    expect(runItem(t)).toMatchObject({ status: 'stopped', stopCause: 'shutdown' })
  })

  it('a Stop is still a plain "Stopped"', () => {
    const t = reduce(emptyTranscript(SK), [
      { type: 'agent', event: ev('r3', 1, 'lifecycle', { phase: 'start', startedAt: 1000 }) },
      { type: 'agent', event: ev('r3', 2, 'lifecycle', { phase: 'end', endedAt: 3000, aborted: true, stopReason: 'aborted' }) },
      { type: 'chat', event: { runId: 'r3', sessionKey: SK, seq: 3, state: 'aborted', stopReason: 'aborted' } },
    ])
    expect(runItem(t).stopCause).toBeUndefined()
    expect(runAnnouncement(runItem(t), 0)).toBe('Stopped')
  })

  it('after a reload: read from the reply row\'s openclawAbort origin (a Stop\'s origin is rpc)', () => {
    const rows = (origin: string): HistoryMessage[] => [
      { role: 'user', content: [{ type: 'text', text: 'go' }], timestamp: 1000, id: 'u1', runId: 'r4' } as HistoryMessage,
      {
        role: 'assistant',
        content: [{ type: 'text', text: 'Half a' }],
        timestamp: 1001,
        completedAt: 1500,
        id: 'a1',
        runId: 'r4',
        stopReason: 'aborted',
        aborted: true,
        openclawAbort: { aborted: true, origin, runId: 'r4' },
      } as HistoryMessage,
    ]
    const hydrate = (origin: string) => reduce(emptyTranscript(SK), { type: 'hydrate', history: { sessionKey: SK, sessionId: 's', hasMore: false, messages: rows(origin) } })
    const down = hydrate('shutdown')
    expect(runItem(down)).toMatchObject({ status: 'stopped', stopCause: 'shutdown' })
    expect(runStatusText(runItem(down))).toMatch(/^Stopped: the gateway shut down/)
    const stopped = hydrate('rpc')
    expect(runItem(stopped)).toMatchObject({ status: 'stopped' })
    expect(runItem(stopped).stopCause).toBeUndefined()
    expect(runStatusText(runItem(stopped))).toMatch(/^Stopped · /)
  })
})
