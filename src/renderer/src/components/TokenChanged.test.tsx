import { act, screen } from '@testing-library/react'
import { beforeEach, describe, expect, it } from 'vitest'
import { ConnectedFake, renderApp } from '../test-utils'

beforeEach(() => localStorage.clear())

describe('gateway token changed (browser mode)', () => {
  it('says to open the new link instead of reconnecting forever; a reconnect in progress is not that', async () => {
    const bridge = new ConnectedFake({ tickMs: 1 })
    await renderApp({}, bridge)
    act(() => bridge.set({ state: 'reconnecting', error: { message: 'closed: shared token rotated (4001)' } }))
    expect(screen.queryByRole('heading', { name: 'The gateway token changed' })).toBeNull()
    act(() => bridge.set({ state: 'failed', error: { message: 'unauthorized: device token mismatch', details: { code: 'AUTH_DEVICE_TOKEN_MISMATCH' } } }))
    const screenEl = screen.getByRole('alert', { name: 'The gateway token changed' })
    expect(screenEl).toHaveTextContent('Open the new link printed by loopdesk dashboard')
    expect(screen.queryByRole('textbox', { name: 'Message' })).toBeNull()
    // other failures keep the app with its Retry notice
    act(() => bridge.set({ state: 'failed', error: { message: 'origin not allowed', details: { code: 'CONTROL_UI_ORIGIN_NOT_ALLOWED' } } }))
    expect(screen.queryByRole('heading', { name: 'The gateway token changed' })).toBeNull()
    expect(screen.getByRole('alert')).toHaveTextContent('Not connected to the Loopdesk runtime: origin not allowed')
  })
})
