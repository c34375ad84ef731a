// Forks made at the same moment get distinct names: the "(fork N)" number is picked inside the sessions store's
// update, against the names stored then. It used to be picked before the fork's transcript was written (awaits
// in between), so concurrent forks of one session all read "(fork 2)" free and shared it.
import { describe, expect, it } from 'vitest'
import { useTestRuntimePerTest } from '../../../test/fixtures/use-test-runtime'

const env = useTestRuntimePerTest()

describe('forks made at the same moment', () => {
  it('sessions.fork and sessions.create {fork} together: every name distinct, numbered 1…N without gaps', async () => {
    env.server.script([{ text: 'Paris.' }])
    await env.t.call('agent', { message: 'Capital of France?', sessionKey: 'agent:main:main', idempotencyKey: 'r1' })
    await env.t.call('agent.wait', { runId: 'r1', timeoutMs: 10_000 })
    const entryId = (await env.t.call('chat.history', { sessionKey: 'agent:main:main' })).messages.find((m) => m.role === 'user')!.__openclaw!.id
    // a labelled parent: its title needs no read of its transcript, so every fork's name is picked at once
    await env.t.call('sessions.patch', { key: 'agent:main:main', label: 'Trip' })
    const N = 8
    const made = await Promise.all([
      ...Array.from({ length: N }, () => env.t.call('sessions.fork', { sessionKey: 'agent:main:main', entryId }).then((r) => r.sessionKey)),
      ...Array.from({ length: N }, () => env.t.call('sessions.create', { parentSessionKey: 'agent:main:main', fork: true }).then((r) => r.key)),
    ])
    const rows = (await env.t.call('sessions.list', {})).sessions
    const names = made.map((key) => rows.find((r) => r.key === key)?.displayName)
    expect(new Set(names).size).toBe(2 * N)
    const expected = Array.from({ length: 2 * N }, (_, i) => `Trip (fork${i ? ` ${i + 1}` : ''})`)
    expect([...names].sort()).toEqual([...expected].sort())
  })
})
