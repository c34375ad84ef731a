// The sidebar's search field focused from the keyboard, in Chromium against the in-page FakeBridge: one focus
// ring, on the search box around it — the input drew the page-wide :focus-visible ring inside it too (two
// nested rings), which the composer already avoids for its text box.
import { expect, test } from '@playwright/test'
import { shot } from './shots'

test('the search field shows one focus ring, its box’s', async ({ page }) => {
  await page.addInitScript(() => {
    ;(globalThis as { __LOOPDESK_FAKE__?: unknown }).__LOOPDESK_FAKE__ = {}
  })
  await page.goto('/')
  const search = page.getByRole('searchbox', { name: 'Search sessions' })
  await expect(search).toBeVisible()
  await search.focus()
  await page.keyboard.type('x') // typed: focus-visible whatever brought the focus there
  await expect(search).toHaveCSS('box-shadow', 'none')
  const box = search.locator('xpath=..')
  await expect(box).toHaveClass(/\bsearch\b/)
  await expect(box).not.toHaveCSS('box-shadow', 'none')
  await shot(page, 'sidebar-search-focus')
})
