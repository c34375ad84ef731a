import { afterEach, describe, expect, it } from 'vitest'
import type { Bridge } from '../../../shared/bridge'
import { oneAgentHealth } from '../../../shared/status-summary'
import { createBridge, takeTokenFromLocation } from './index'

afterEach(() => {
  delete window.__LOOPDESK_FAKE__
  delete window.__LOOPDESK_FAKE_BRIDGE__
  delete window.loopdesk
  history.replaceState(null, '', '/')
})

describe('bridge selection', () => {
  it('reads the token from the fragment and removes it from the address bar', () => {
    history.replaceState(null, '', '/?x=1#token=abc123&view=chat')
    expect(takeTokenFromLocation()).toBe('abc123')
    expect(location.hash).toBe('#view=chat')
    expect(location.search).toBe('?x=1')
    expect(location.href).not.toContain('abc123')
    history.replaceState(null, '', '/#token=t2')
    expect(takeTokenFromLocation()).toBe('t2')
    expect(location.href.endsWith('/')).toBe(true)
  })

  it('uses the FakeBridge when a test page asks for it, else the preload bridge', async () => {
    window.__LOOPDESK_FAKE__ = { configured: false }
    const fake = await createBridge()
    expect(window.__LOOPDESK_FAKE_BRIDGE__).toBe(fake)
    delete window.__LOOPDESK_FAKE__
    const calls: string[] = []
    // typed as the bridge's: a change to what health answers fails tsc here
    const health: Bridge['health'] = async () => (calls.push('health'), { ok: true, data: oneAgentHealth('main', '/s/sessions.json', [], 1) })
    const ipc = {
      transport: 'ipc',
      health,
      subscribe: () => () => undefined,
    } as unknown as NonNullable<Window['loopdesk']>
    window.loopdesk = ipc
    const b = await createBridge()
    expect(b.transport).toBe('ipc')
    await b.health({})
    expect(calls).toEqual(['health'])
  })
})
