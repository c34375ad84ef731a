// Controller.patchConfig's failure paths: a refused save and a transport that throws both end in one toast
// with the caller's context, and neither is sent again (only retryable refusals with retryAfterMs are).
import { describe, expect, it } from 'vitest'
import { FakeBridge } from '../bridge/fake-bridge'
import { Controller } from './controller'
import { createAppStores } from './stores'

function setup() {
  const bridge = new FakeBridge({ tickMs: 1 })
  const stores = createAppStores()
  const controller = new Controller(bridge, stores, (cb) => setTimeout(cb, 0))
  const toasts = () => stores.ui.getState().toasts.map((t) => t.text)
  return { bridge, controller, toasts }
}

describe('Controller.patchConfig failures', () => {
  it('a transport that throws: one toast with the context, no retry, false', async () => {
    const { bridge, controller, toasts } = setup()
    let calls = 0
    bridge.settingsSet = async () => {
      calls++
      throw new Error('socket closed')
    }
    expect(await controller.patchConfig({ agents: { defaults: { timeoutSeconds: 5 } } }, 'Could not save the timeout')).toBe(false)
    expect(calls).toBe(1)
    expect(toasts()).toEqual(['Could not save the timeout: socket closed'])
  })

  it('a refusal that is not retryable: one toast, no retry, false', async () => {
    const { bridge, controller, toasts } = setup()
    let calls = 0
    bridge.settingsSet = async () => {
      calls++
      return { ok: false, error: { code: 'INVALID_REQUEST', message: 'agents.defaults.timeoutSeconds: must be ≥ 1' } }
    }
    expect(await controller.patchConfig({ agents: { defaults: { timeoutSeconds: 0 } } })).toBe(false)
    expect(calls).toBe(1)
    expect(toasts()).toEqual(['Could not save settings: agents.defaults.timeoutSeconds: must be ≥ 1'])
  })

  it('a config changed elsewhere since it was read: the settings are reloaded and the user told; nothing saved over it', async () => {
    const { bridge, controller, toasts } = setup()
    let calls = 0
    let gets = 0
    const get = bridge.settingsGet.bind(bridge)
    bridge.settingsGet = async () => {
      gets++
      return get()
    }
    bridge.settingsSet = async () => {
      calls++
      return { ok: false, error: { code: 'INVALID_REQUEST', message: 'config changed since last load; re-run config.get and retry', details: { code: 'CONFLICT' } } }
    }
    expect(await controller.patchConfig({ agents: { defaults: { timeoutSeconds: 5 } } }, 'Could not save the timeout')).toBe(false)
    expect(calls).toBe(1)
    expect(gets).toBe(1)
    expect(toasts()).toEqual([
      'Could not save the timeout: the settings were changed elsewhere meanwhile (another window, the CLI or an editor). They are reloaded — check them and save again.',
    ])
  })
})
