// Opens the window on the renderer's in-page fake bridge (`__LOOPDESK_FAKE__`: scripted replies, seeded
// sessions, no gateway) and sends a first message: the set-up most renderer specs share.
import { expect, type Page } from '@playwright/test'

export async function openFakeApp(page: Page, fake: Record<string, unknown>): Promise<void> {
  await page.addInitScript((o) => {
    ;(globalThis as { __LOOPDESK_FAKE__?: unknown }).__LOOPDESK_FAKE__ = o
  }, fake)
  await page.goto('/')
  await expect(page.getByRole('textbox', { name: 'Message' })).toBeVisible()
}

export async function sendMessage(page: Page, text: string): Promise<void> {
  const box = page.getByRole('textbox', { name: 'Message' })
  await box.fill(text)
  await box.press('Enter')
}
