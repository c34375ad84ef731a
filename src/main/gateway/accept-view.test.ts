// The main thread's mirror of what the socket thread needs to accept `agent` requests: agents from the config,
// archived sessions read once and followed through sessions.changed rows.
import { describe, expect, it } from 'vitest'
import type { RuntimeHost } from '../api/host'
import type { ResolvedConfig } from '../runtime/contracts'
import type { AcceptView } from './socket-thread-protocol'
import { AcceptViewMirror } from './accept-view'

function fakeHost(archived: string[]) {
  let config = { defaultAgentId: 'main', agents: [{ id: 'main', workspace: '/w' }] } as ResolvedConfig
  const listeners = new Set<(c: ResolvedConfig) => void>()
  const host = {
    currentConfig: () => config,
    onConfigChange: (l: (c: ResolvedConfig) => void) => (listeners.add(l), () => listeners.delete(l)),
    archivedSessionKeys: () => archived,
  } as unknown as RuntimeHost
  const setConfig = (next: Partial<ResolvedConfig>) => {
    config = { ...config, ...next }
    for (const l of listeners) l(config)
  }
  return { host, setConfig, listeners }
}

const row = (archived: boolean) => ({ archived }) as never

describe('AcceptViewMirror', () => {
  it('starts from the config and the archived keys, and pushes each change once', () => {
    const { host, setConfig, listeners } = fakeHost(['agent:main:a'])
    const pushed: AcceptView[] = []
    const m = AcceptViewMirror.of(host, (v) => pushed.push(v))!
    expect(m.view()).toEqual({ agentIds: ['main'], defaultAgentId: 'main', archived: ['agent:main:a'] })
    // a config change that leaves the agents alone pushes nothing
    setConfig({})
    expect(pushed).toHaveLength(0)
    setConfig({ agents: [{ id: 'main', workspace: '/w' }, { id: 'ops', workspace: '/o' }] })
    expect(pushed.at(-1)).toMatchObject({ agentIds: ['main', 'ops'] })
    m.onSessionsChanged({ sessionKey: 'agent:main:b', reason: 'patch', ts: 1, session: row(true) })
    expect(pushed.at(-1)!.archived).toEqual(['agent:main:a', 'agent:main:b'])
    const n = pushed.length
    // a row that says nothing new, and an event without a row, push nothing
    m.onSessionsChanged({ sessionKey: 'agent:main:b', reason: 'send', ts: 2, session: row(true) })
    m.onSessionsChanged({ sessionKey: 'agent:main:a', reason: 'end', ts: 2 })
    expect(pushed).toHaveLength(n)
    m.onSessionsChanged({ sessionKey: 'agent:main:a', reason: 'patch', ts: 3, session: row(false) })
    m.onSessionsChanged({ sessionKey: 'agent:main:b', reason: 'delete', ts: 4 })
    expect(pushed.at(-1)!.archived).toEqual([])
    m.stop()
    expect(listeners.size).toBe(0)
  })

  it("an agent configured again brings back its archived sessions: they are read again on an agents change", () => {
    const archived: string[] = []
    const { host, setConfig } = fakeHost(archived)
    const pushed: AcceptView[] = []
    AcceptViewMirror.of(host, (v) => pushed.push(v))!
    // the runtime lists the archived sessions of the configured agents: ops's, once ops is configured (again)
    archived.push('agent:ops:old')
    setConfig({ agents: [{ id: 'main', workspace: '/w' }, { id: 'ops', workspace: '/o' }] })
    expect(pushed.at(-1)).toEqual({ agentIds: ['main', 'ops'], defaultAgentId: 'main', archived: ['agent:ops:old'] })
  })

  it('without a config to read there is no view (the worker then acks nothing itself)', () => {
    expect(AcceptViewMirror.of({} as RuntimeHost, () => {})).toBeUndefined()
  })
})
