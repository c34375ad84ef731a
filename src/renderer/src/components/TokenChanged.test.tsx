import { act, render, screen } from '@testing-library/react'
import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { ConnectedFake, renderApp } from '../test-utils'
import { preloadTokenChanged } from '../lazy-views'
import { TokenChangedScreen } from './TokenChanged'

beforeEach(() => localStorage.clear())
// the screen is a chunk of its own in the app; here loaded before, as a running app loads it when it is needed
beforeAll(async () => {
  await preloadTokenChanged()
})

describe('gateway token changed (browser mode)', () => {
  it('says to open the new link instead of reconnecting forever; a reconnect in progress is not that', async () => {
    const bridge = new ConnectedFake({ tickMs: 1 })
    await renderApp({}, bridge)
    act(() => bridge.set({ state: 'reconnecting', error: { message: 'closed: shared token rotated (4001)' } }))
    expect(screen.queryByRole('heading', { name: 'The gateway token changed' })).toBeNull()
    act(() => bridge.set({ state: 'failed', error: { message: 'unauthorized: device token mismatch', details: { code: 'AUTH_DEVICE_TOKEN_MISMATCH' } } }))
    const screenEl = screen.getByRole('alert', { name: 'The gateway token changed' })
    expect(screenEl).toHaveTextContent('Open the link printed by loopdesk dashboard')
    expect(screen.queryByRole('textbox', { name: 'Message' })).toBeNull()
    // other failures keep the app with its Retry notice
    act(() => bridge.set({ state: 'failed', error: { message: 'origin not allowed', details: { code: 'CONTROL_UI_ORIGIN_NOT_ALLOWED' } } }))
    expect(screen.queryByRole('heading', { name: 'The gateway token changed' })).toBeNull()
    expect(screen.getByRole('alert')).toHaveTextContent('Not connected to the Loopdesk runtime: origin not allowed')
  })
})

describe('token refused at page load (browser mode)', () => {
  it('names the cause: no token, a wrong link, or a rotated token', () => {
    const { rerender } = render(<TokenChangedScreen reason="missing" detail="unauthorized: gateway token missing" />)
    expect(screen.getByRole('alert', { name: 'This page needs the gateway token' })).toHaveTextContent('opened without an access token')
    rerender(<TokenChangedScreen reason="invalid" />)
    expect(screen.getByRole('alert', { name: 'This link’s gateway token is not valid' })).toHaveTextContent('loopdesk dashboard')
    // the screen is the page's main landmark (it replaces the app)
    expect(screen.getByRole('main', { name: 'This link’s gateway token is not valid' })).toContainElement(screen.getByRole('heading', { level: 1 }))
    rerender(<TokenChangedScreen />)
    expect(screen.getByRole('alert', { name: 'The gateway token changed' })).toHaveTextContent('no longer accepted')
  })
})
