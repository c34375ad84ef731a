// Toasts are spoken once each: the strip is the one polite live region, an info toast plain text in it,
// an error toast an alert; Settings' footer strip is there (empty) before its first toast.
import { act, screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { renderApp } from '../test-utils'
import { preloadSettings } from '../lazy-views'

beforeAll(async () => {
  await preloadSettings()
})
beforeEach(() => localStorage.clear())

const toasts = [
  { id: 1, kind: 'info' as const, text: 'Exported “Main”' },
  { id: 2, kind: 'error' as const, text: 'Could not save settings' },
]

/** The live regions (explicit or by role) an element is in, itself included. */
const liveRegions = (el: Element) => {
  const found: Element[] = []
  for (let e: Element | null = el; e; e = e.parentElement) if (e.hasAttribute('aria-live') || ['status', 'alert', 'log'].includes(e.getAttribute('role') ?? '')) found.push(e)
  return found
}

describe('toasts for screen readers', () => {
  it('floating: one polite region, the info toast no live region of its own, the error an alert', async () => {
    const { stores } = await renderApp()
    const strip = document.querySelector('.toasts')!
    expect(strip).toHaveAttribute('aria-live', 'polite')
    act(() => stores.ui.setState({ toasts }))
    const info = screen.getByText(toasts[0].text).closest('.toast')!
    const error = screen.getByText(toasts[1].text).closest('.toast')!
    expect(info).not.toHaveAttribute('role')
    expect(liveRegions(info)).toEqual([strip])
    expect(error).toHaveAttribute('role', 'alert')
    expect(document.querySelectorAll('.toast[role=status]')).toHaveLength(0)
  })

  it('in Settings: the footer strip is a live region before the first toast arrives, and the same node after', async () => {
    const user = userEvent.setup()
    const { stores } = await renderApp()
    await user.keyboard('{Control>},{/Control}')
    const dialog = await screen.findByRole('dialog', { name: 'Settings' })
    const strip = dialog.querySelector('footer .toasts-inline')!
    expect(strip).toHaveAttribute('aria-live', 'polite')
    expect(strip.children).toHaveLength(0)
    act(() => stores.ui.setState({ toasts: [toasts[0]] }))
    const info = within(dialog).getByText(toasts[0].text).closest('.toast')!
    expect(info.parentElement).toBe(strip)
    expect(liveRegions(info)).toEqual([strip])
    act(() => stores.ui.setState({ toasts: [] }))
    expect(dialog.querySelector('footer .toasts-inline')).toBe(strip)
  })
})
