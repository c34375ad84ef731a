// Controller.patchConfig: a refused save and a transport that throws both end in one toast with the
// caller's context, and neither is sent again (only retryable refusals with retryAfterMs are); a save over a
// config file with problems takes the problems its reply still lists.
import { describe, expect, it } from 'vitest'
import { FakeBridge } from '../bridge/fake-bridge'
import { Controller } from './controller'
import { createAppStores } from './stores'

function setup(opts: ConstructorParameters<typeof FakeBridge>[0] = {}) {
  const bridge = new FakeBridge({ tickMs: 1, ...opts })
  const stores = createAppStores()
  const controller = new Controller(bridge, stores, (cb) => setTimeout(cb, 0))
  const toasts = () => stores.ui.getState().toasts.map((t) => t.text)
  return { bridge, controller, toasts, stores }
}

describe('Controller.patchConfig over a config file with problems', () => {
  it('takes the problems the reply still lists: fewer after a partial fix, none (valid) after the last', async () => {
    const { controller, stores } = setup({
      configIssues: [
        { path: 'gateway.bind', message: 'must be one of "loopback", "lan", "all"' },
        { path: 'agents.defaults.timeoutSeconds', message: 'must be integer >= 0' },
      ],
    })
    await controller.loadSettings()
    expect(stores.settings.getState().config).toMatchObject({ valid: false })
    expect(await controller.patchConfig({ agents: { defaults: { timeoutSeconds: 60 } } })).toBe(true)
    expect(stores.settings.getState().config).toMatchObject({ valid: false, issues: [{ path: 'gateway.bind' }] })
    expect(await controller.patchConfig({ gateway: { bind: 'loopback' } })).toBe(true)
    expect(stores.settings.getState().config).toMatchObject({ valid: true, issues: [] })
  })

  it('a reply without issues (an older runtime) leaves what config.get said', async () => {
    const { bridge, controller, stores } = setup({ configIssues: [{ path: 'gateway.bind', message: 'bad' }] })
    await controller.loadSettings()
    const set = bridge.settingsSet.bind(bridge)
    bridge.settingsSet = async (p) => {
      const r = await set(p)
      if (r.ok) delete r.data.issues
      return r
    }
    expect(await controller.patchConfig({ agents: { defaults: { timeoutSeconds: 60 } } })).toBe(true)
    expect(stores.settings.getState().config).toMatchObject({ valid: false, issues: [{ path: 'gateway.bind' }] })
  })
})

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
