import { describe, expect, it } from 'vitest'
import type { Bridge } from '../../../shared/bridge'
import type { AnyEvent } from '../../../shared/events'
import { oneAgentHealth } from '../../../shared/status-summary'
import { withAssistantText } from './index'

describe('IPC bridge assistant text', () => {
  it('rebuilds the cumulative text of compact assistant events and passes other events through', () => {
    let emit: (ev: AnyEvent) => void = () => {}
    // typed as the bridge's: a change to what health answers fails tsc here
    const health: Bridge['health'] = async () => ({ ok: true, data: oneAgentHealth('main', '/s/sessions.json', [], 1) })
    const ipc = {
      transport: 'ipc',
      health,
      subscribe: (_f: unknown, l: (ev: AnyEvent) => void) => {
        emit = l
        return () => {}
      },
    } as unknown as Bridge
    const bridge = withAssistantText(Object.freeze(ipc))
    const got: AnyEvent[] = []
    bridge.subscribe({}, (ev) => got.push(ev))
    const ev = (seq: number, data: Record<string, unknown>): AnyEvent => ({
      event: 'agent',
      payload: { runId: 'r', seq, stream: 'assistant', ts: seq, sessionKey: 'agent:main:main', data },
    })
    emit(ev(1, { text: 'Hel', delta: 'Hel' }))
    emit(ev(2, { delta: 'lo', textLength: 5 }))
    emit(ev(3, { delta: '!', textLength: 6 }))
    expect(got.map((e) => (e.payload as unknown as { data: { text: string } }).data.text)).toEqual(['Hel', 'Hello', 'Hello!'])
    expect((got[2].payload as unknown as { data: Record<string, unknown> }).data).not.toHaveProperty('textLength')
    expect(bridge.transport).toBe('ipc')
    expect(typeof bridge.health).toBe('function')
  })

  it('rebuilds the texts of a compact recentEvents answer (src/main/shell/ipc.ts sends it so)', async () => {
    const recentEvents: Bridge['recentEvents'] = async () => ({
      ok: true,
      data: {
        approvals: [],
        events: [
          { runId: 'r', seq: 1, stream: 'assistant', ts: 1, data: { text: 'Hel', delta: 'Hel' } },
          { runId: 'r', seq: 2, stream: 'assistant', ts: 2, data: { delta: 'lo', textLength: 5 } },
        ],
      },
    })
    const bridge = withAssistantText(Object.freeze({ transport: 'ipc', recentEvents } as unknown as Bridge))
    const r = await bridge.recentEvents({ sessionKey: 'agent:main:main' })
    expect(r.ok && r.data.events.map((e) => e.data)).toEqual([
      { text: 'Hel', delta: 'Hel' },
      { delta: 'lo', text: 'Hello' },
    ])
  })
})
