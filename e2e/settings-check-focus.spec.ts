// Settings' Check buttons keep the keyboard focus through the check, in Chromium against the in-page FakeBridge:
// a button that becomes `disabled` while focused drops the focus to <body>, so a keyboard or screen-reader user
// who pressed Check was thrown out of the dialog's flow at the moment its outcome appeared.
import { expect, test, type Page } from '@playwright/test'
import { shot } from './shots'

const focusedLabel = (page: Page) =>
  page.evaluate('(() => { const a = document.activeElement; return !a || a === document.body ? "BODY" : (a.getAttribute("aria-label") || a.textContent || a.tagName).trim() })()') as Promise<string>

test.beforeEach(async ({ page }) => {
  await page.addInitScript(() => {
    ;(globalThis as { __LOOPDESK_FAKE__?: unknown }).__LOOPDESK_FAKE__ = { providerChecks: { anthropic: { status: 401, error: 'invalid x-api-key' } } }
  })
  await page.goto('/')
  await expect(page.getByRole('textbox', { name: 'Message' })).toBeVisible()
  await page.keyboard.press('Control+,')
})

test("an endpoint's Check keeps the focus while it checks and after", async ({ page }) => {
  const dialog = page.getByRole('dialog', { name: 'Settings' })
  await dialog.getByLabel('Base URL').fill('http://127.0.0.1:1/v1')
  const check = dialog.getByRole('button', { name: 'Check', exact: true })
  await check.focus()
  await page.keyboard.press('Enter')
  await expect(dialog.getByText(/^Check failed/)).toBeVisible()
  expect(await focusedLabel(page)).toBe('Check')
  await shot(page, 'settings-check-focus')
})

test("a provider key's Check keeps the focus while it checks and after", async ({ page }) => {
  const dialog = page.getByRole('dialog', { name: 'Settings' })
  // (the fake's Anthropic key is set)
  const check = dialog.getByRole('button', { name: 'Check the Anthropic key' })
  await check.focus()
  await page.keyboard.press('Enter')
  await expect(dialog.getByText(/invalid x-api-key|refused|not accepted/i).first()).toBeVisible()
  expect(await focusedLabel(page)).toBe('Check the Anthropic key')
})
