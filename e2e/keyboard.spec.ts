// The window from the keyboard alone, in Chromium against the real stack: Settings keeps focus inside
// (Tab wraps past its hidden sections), a saved endpoint keeps focus on its Edit, Escape then closes it and
// focus goes back to where it was opened from.
import { expect, test, type Page } from '@playwright/test'
import { useBrowserGateway } from './browser-gateway'

const TOKEN = 'e2e-keyboard-token-0123456789abcdef'
test.describe.configure({ mode: 'serial' })
const env = useBrowserGateway(TOKEN, { text: 'Fallback answer.', chunks: 3 })

/** e2e/ is type-checked without the DOM lib: the focused element's accessible bits, read in the page. */
const focused = (page: Page) => page.evaluate('document.activeElement && (document.activeElement.getAttribute("aria-label") || document.activeElement.textContent)') as Promise<string | null>

test('Settings from the keyboard: Tab stays inside, a save keeps focus, Escape closes and gives focus back', async ({ page }) => {
  await page.goto(`${env.origin}/#token=${TOKEN}`)
  const box = page.getByRole('textbox', { name: 'Message' })
  await expect(box).toBeFocused()
  await page.keyboard.press('Control+,')
  const dialog = page.getByRole('dialog', { name: 'Settings' })
  await expect(dialog).toBeVisible()
  // the Models section's last control: Tab wraps to the dialog's first, not into the hidden sections or the window
  await dialog.getByRole('combobox', { name: 'Thinking level', exact: true }).focus()
  await page.keyboard.press('Tab')
  await expect(dialog.getByRole('button', { name: 'Close', exact: true })).toBeFocused()

  await dialog.getByRole('button', { name: 'Edit mock', exact: true }).focus()
  await page.keyboard.press('Enter')
  await expect(dialog.getByRole('group', { name: 'Edit endpoint mock', exact: true })).toBeVisible()
  await dialog.getByRole('button', { name: 'Save endpoint', exact: true }).focus()
  await page.keyboard.press('Enter')
  await expect(dialog.getByText('Saved the endpoint “mock”.')).toBeVisible()
  await expect(dialog.getByRole('button', { name: 'Edit mock', exact: true })).toBeFocused()
  expect(await focused(page)).toBe('Edit mock')
  await page.keyboard.press('Escape')
  await expect(dialog).toBeHidden()
  await expect(box).toBeFocused()
})

test('behind an open dialog the window is inert: its controls take no focus until the dialog closes', async ({ page }) => {
  await page.goto(`${env.origin}/#token=${TOKEN}`)
  const box = page.getByRole('textbox', { name: 'Message' })
  await expect(box).toBeFocused()
  await page.keyboard.press('Control+,')
  const dialog = page.getByRole('dialog', { name: 'Settings' })
  await expect(dialog).toBeVisible()
  // element.focus() on an inert element does nothing: what a screen reader's browse mode would move to
  const focusBox = () => page.evaluate('(() => { const el = document.querySelector("textarea"); el.focus(); return document.activeElement === el })()')
  expect(await focusBox()).toBe(false)
  await page.keyboard.press('Escape')
  await expect(dialog).toBeHidden()
  expect(await focusBox()).toBe(true)
})
