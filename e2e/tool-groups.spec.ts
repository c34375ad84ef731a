// A reply with 30 tool calls in the built renderer (FakeBridge script): one group row, "Jump to failed" opens
// the failed card, and the Inspector's "Show in conversation" lands on a card inside the group.
import { expect, test, type Page } from '@playwright/test'
import { shot } from './shots'

const steps = Array.from({ length: 30 }, (_, i) => ({
  kind: 'tool',
  name: i % 4 ? 'read' : 'exec',
  args: i % 4 ? { path: `src/file-${i}.ts` } : { command: `npm run step-${i}` },
  result: { content: [{ type: 'text', text: i === 17 ? 'ENOENT: src/file-17.ts is missing' : `contents of ${i}` }] },
  ...(i === 17 ? { isError: true } : {}),
  durationMs: 5,
}))

async function thirtyCalls(page: Page) {
  const errors: string[] = []
  page.on('pageerror', (e) => errors.push(e.message))
  await page.addInitScript((o) => {
    ;(globalThis as { __LOOPDESK_FAKE__?: unknown }).__LOOPDESK_FAKE__ = o
  }, { tickMs: 5, scripts: [{ steps: [{ kind: 'text', text: 'Reading the project.' }, ...steps, { kind: 'text', text: 'All thirty done.' }] }] })
  await page.goto('/')
  const box = page.getByRole('textbox', { name: 'Message' })
  await box.fill('read everything')
  await box.press('Enter')
  const log = page.getByRole('log', { name: 'Conversation' })
  await expect(log.getByText('All thirty done.')).toBeVisible({ timeout: 20_000 })
  return { log, errors }
}

test('30 tool calls are one group row; "Jump to failed" opens the failed card, focused', async ({ page }) => {
  const { log, errors } = await thirtyCalls(page)
  const group = log.getByRole('group', { name: '30 tool calls · 1 failed' })
  await expect(group).toBeVisible()
  await expect(group).toContainText('read ×22, exec ×8')
  // no card drawn while it is closed
  await expect(log.getByRole('group', { name: /^Tool / })).toHaveCount(0)
  const toggle = group.getByRole('button', { name: /30 tool calls/ })
  await expect(toggle).toHaveAttribute('aria-expanded', 'false')
  await shot(page, 'tool-group-closed')
  // from the keyboard: the group opens and the view goes to the failed card (the group's own row may scroll away)
  await group.getByRole('button', { name: 'Jump to failed' }).focus()
  await page.keyboard.press('Enter')
  const failed = log.getByRole('group', { name: 'Tool read' }).filter({ hasText: 'src/file-17.ts' })
  const head = failed.getByRole('button', { name: /read/ })
  await expect(head).toHaveAttribute('aria-expanded', 'true')
  await expect(head).toBeFocused()
  await expect(failed).toContainText('ENOENT: src/file-17.ts is missing')
  await expect(failed).toBeInViewport()
  // its neighbours are drawn too: the group is open
  await expect(log.getByRole('group', { name: 'Tool read' }).filter({ hasText: 'src/file-18.ts' })).toHaveCount(1)
  expect(errors).toEqual([])
})

test('the Inspector\'s "Show in conversation" lands on the card inside the group', async ({ page }) => {
  const { log, errors } = await thirtyCalls(page)
  await expect(log.getByRole('group', { name: '30 tool calls · 1 failed' })).toBeVisible()
  await page.getByRole('button', { name: /^Inspector/ }).click()
  const inspector = page.getByRole('complementary', { name: 'Inspector' })
  // the failed call's result row ("Errors only": the list is long and virtualized)
  await inspector.getByRole('button', { name: 'Errors only' }).click()
  await inspector.getByRole('button', { name: 'Show in conversation: read call' }).first().click()
  const card = log.getByRole('group', { name: 'Tool read' }).filter({ hasText: 'src/file-17.ts' })
  const head = card.getByRole('button', { name: /read/ })
  await expect(head).toHaveAttribute('aria-expanded', 'true')
  await expect(head).toBeFocused()
  await expect(card).toBeInViewport()
  // outlined for a moment
  await expect(page.locator('.row-found').filter({ hasText: 'src/file-17.ts' })).toHaveCount(1)
  await shot(page, 'tool-group-inspector-link')
  expect(errors).toEqual([])
})
