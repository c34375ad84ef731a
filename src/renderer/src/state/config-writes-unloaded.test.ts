// Config writes are a chunk loaded by the first save (config-writes.ts). One that cannot load (the app was
// updated under an open browser tab: the old chunk names are gone; a dropped connection) is a save that failed —
// a toast with the caller's context and false — never a rejection the Settings forms do not catch, which left
// their buttons disabled ("busy") for good and said nothing.
import { describe, expect, it, vi } from 'vitest'
import { FakeBridge } from '../bridge/fake-bridge'
import { Controller } from './controller'
import { createAppStores } from './stores'

const load = vi.hoisted(() => ({ fail: true }))
vi.mock('./config-writes', async (importActual) => {
  if (load.fail) throw new Error('Failed to fetch dynamically imported module: config-writes-1a2b.js')
  return importActual()
})

describe('config writes whose chunk cannot load', () => {
  it('patchConfig, renameProvider and ensureDefaultModel fail like a refused save; the next save loads it again', async () => {
    const bridge = new FakeBridge({ tickMs: 1 })
    const stores = createAppStores()
    const controller = new Controller(bridge, stores, (cb) => setTimeout(cb, 0))
    const toasts = () => stores.ui.getState().toasts.map((t) => t.text)
    await controller.loadSettings()
    await expect(controller.patchConfig({ agents: { defaults: { timeoutSeconds: 60 } } }, 'Could not save the endpoint')).resolves.toBe(false)
    expect(toasts().at(-1)).toMatch(/^Could not save the endpoint: .*reload/i)
    await expect(controller.renameProvider('a', 'b', {}, 'Could not rename “a”')).resolves.toBe(false)
    expect(toasts().at(-1)).toMatch(/^Could not rename “a”: /)
    await expect(controller.ensureDefaultModel('openai')).resolves.toBeUndefined()
    load.fail = false
    vi.resetModules()
    await expect(controller.patchConfig({ agents: { defaults: { timeoutSeconds: 60 } } })).resolves.toBe(true)
  })
})
