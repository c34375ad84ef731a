// Toasts are spoken once each, with their kind's politeness: the strip holds two sibling live regions
// (errors assertive, notes polite), no toast is a live region of its own and none sits in two; Settings'
// footer strip and its regions are there (empty) before its first toast.
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
  { id: 3, kind: 'error' as const, text: 'Could not delete' },
]

/** The live regions (explicit or by role) an element is in, itself included. */
const liveRegions = (el: Element) => {
  const found: Element[] = []
  for (let e: Element | null = el; e; e = e.parentElement) if (e.hasAttribute('aria-live') || ['status', 'alert', 'log', 'marquee', 'timer'].includes(e.getAttribute('role') ?? '')) found.push(e)
  return found
}
const politeness = (region: Element) => region.getAttribute('aria-live') ?? (region.getAttribute('role') === 'alert' ? 'assertive' : 'polite')

describe('toasts for screen readers', () => {
  it('floating: each toast in exactly one live region, errors assertive and not atomic, notes polite', async () => {
    const { stores } = await renderApp()
    const strip = document.querySelector('.toasts')!
    expect(liveRegions(strip)).toEqual([])
    const regions = [...strip.querySelectorAll('[aria-live]')]
    expect(regions.map((r) => r.getAttribute('aria-live'))).toEqual(['assertive', 'polite'])
    act(() => stores.ui.setState({ toasts }))
    for (const t of toasts) {
      const el = screen.getByText(t.text).closest('.toast')!
      const found = liveRegions(el)
      expect(found).toHaveLength(1)
      expect(regions).toContain(found[0])
      expect(politeness(found[0])).toBe(t.kind === 'error' ? 'assertive' : 'polite')
      // a second error must not re-read the first one
      expect(found[0]).not.toHaveAttribute('aria-atomic', 'true')
    }
    // the live regions are the ones that were there before the toasts (no region added already filled)
    expect([...strip.querySelectorAll('[aria-live]')]).toEqual(regions)
  })

  it('dismissing an error leaves focus on the next Dismiss on screen', async () => {
    const user = userEvent.setup()
    const { stores } = await renderApp()
    act(() => stores.ui.setState({ toasts }))
    const dismiss = () => [...document.querySelectorAll<HTMLElement>('.toast button')]
    // on screen: the two errors, then the note
    expect(dismiss().map((b) => b.closest('.toast')!.textContent)).toEqual(['Could not save settings×', 'Could not delete×', 'Exported “Main”×'])
    await user.click(dismiss()[0])
    expect(dismiss()[0].closest('.toast')).toHaveTextContent('Could not delete')
    expect(dismiss()[0]).toHaveFocus()
  })

  it('in Settings: the footer strip and its live regions are there before the first toast arrives, the same nodes after', async () => {
    const user = userEvent.setup()
    const { stores } = await renderApp()
    await user.keyboard('{Control>},{/Control}')
    const dialog = await screen.findByRole('dialog', { name: 'Settings' })
    const strip = dialog.querySelector('footer .toasts-inline')!
    const regions = [...strip.querySelectorAll('[aria-live]')]
    expect(regions).toHaveLength(2)
    expect(strip.querySelector('.toast')).toBeNull()
    act(() => stores.ui.setState({ toasts: [toasts[0]] }))
    const info = within(dialog).getByText(toasts[0].text).closest('.toast')!
    expect(liveRegions(info)).toEqual([regions[1]])
    act(() => stores.ui.setState({ toasts: [] }))
    expect(dialog.querySelector('footer .toasts-inline')).toBe(strip)
    expect([...strip.querySelectorAll('[aria-live]')]).toEqual(regions)
  })
})
