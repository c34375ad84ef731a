// Screenshots of the main UI states: saved under test-results/screenshots (kept after the run) and
// attached to the test, so reporters (list, json, html) carry them as artifacts.
import { test, type Page } from '@playwright/test'

export const SHOTS = 'test-results/screenshots'

export async function shot(page: Page, name: string): Promise<void> {
  const path = `${SHOTS}/${name}.png`
  await page.screenshot({ path })
  await test.info().attach(name, { path, contentType: 'image/png' })
}
