// A loopdesk.json the runtime cannot use while a model is set up: the main window says so over the
// conversation (the last good settings stay in use) and leads to Settings — not only inside Settings.
import { act, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { preloadSettings } from '../lazy-views'
import { LONG, renderApp } from '../test-utils'

beforeAll(async () => {
  await preloadSettings()
})
beforeEach(() => localStorage.clear())

describe('config problems in the main window', () => {
  it('a broken file: a banner naming the problem and that the last good settings stay in use; Open Settings opens them', async () => {
    await renderApp({ configIssues: [{ path: '', message: "syntax error: invalid character '}' (line 3, column 5)" }] })
    const banner = await screen.findByRole('alert', { name: 'Config problems' }, LONG)
    expect(banner).toHaveTextContent("has a problem — syntax error: invalid character '}' (line 3, column 5).")
    expect(banner).toHaveTextContent('Loopdesk keeps using the last good settings until it is fixed in the file.')
    // the conversation is still there below it
    expect(screen.getByRole('textbox', { name: 'Message' })).toBeInTheDocument()
    await userEvent.setup().click(within(banner).getByRole('button', { name: 'Open Settings' }))
    expect(await screen.findByRole('dialog', { name: 'Settings' })).toBeInTheDocument()
  })

  it('a bad value: named by its path', async () => {
    await renderApp({ configIssues: [{ path: 'gateway.bind', message: 'must be one of "loopback", "lan", "all"' }] })
    const banner = await screen.findByRole('alert', { name: 'Config problems' }, LONG)
    expect(banner).toHaveTextContent('has a problem — gateway.bind: must be one of "loopback", "lan", "all". Loopdesk keeps using the last good settings until it is fixed. Open Settings')
  })

  it('the file broken (then fixed) in an editor while the window is open: seen when the window gets the focus back', async () => {
    // opened broken (status reports the problem too), fixed, broken again, fixed
    const { bridge } = await renderApp({ configIssues: [{ path: 'gateway.bind', message: 'must be one of "loopback", "lan", "all"' }] })
    await screen.findByRole('alert', { name: 'Config problems' }, LONG)
    bridge.breakConfig([])
    act(() => void window.dispatchEvent(new Event('focus')))
    await waitFor(() => expect(screen.queryByRole('alert', { name: 'Config problems' })).toBeNull(), LONG)
    bridge.breakConfig([{ path: '', message: "syntax error: invalid character '}' (line 3, column 5)" }])
    act(() => void window.dispatchEvent(new Event('focus')))
    expect(await screen.findByRole('alert', { name: 'Config problems' }, LONG)).toHaveTextContent('syntax error')
    bridge.breakConfig([])
    act(() => void window.dispatchEvent(new Event('focus')))
    await waitFor(() => expect(screen.queryByRole('alert', { name: 'Config problems' })).toBeNull(), LONG)
  })

  it('a valid file: no banner', async () => {
    await renderApp({})
    await waitFor(() => expect(screen.getByRole('textbox', { name: 'Message' })).toBeInTheDocument(), LONG)
    expect(screen.queryByRole('alert', { name: 'Config problems' })).toBeNull()
  })
})
