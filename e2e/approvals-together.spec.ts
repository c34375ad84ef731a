// Several exec approvals waiting in the open session, in Chromium against the in-page FakeBridge: listed
// together above the message box, each decidable, "Allow all N" / "Deny all" — by keyboard too.
import { expect, test, type Page } from '@playwright/test'
import { shot } from './shots'

const exec = (command: string) => ({ kind: 'tool', name: 'exec', args: { command }, result: { content: [{ type: 'text', text: `ran ${command}` }] }, approval: true, durationMs: 50 })

async function openApp(page: Page, extra: Record<string, unknown> = {}) {
  const errors: string[] = []
  page.on('pageerror', (e) => errors.push(e.message))
  await page.addInitScript((o) => {
    ;(globalThis as { __LOOPDESK_FAKE__?: unknown }).__LOOPDESK_FAKE__ = o
  }, {
    tickMs: 25,
    scripts: [{ steps: [{ kind: 'parallel', tools: [exec('make build'), exec('make test'), exec('rm -rf dist')] }, { kind: 'text', text: 'All three ran.' }] }],
    ...extra,
  })
  await page.goto('/')
  await expect(page.getByRole('navigation', { name: 'Sessions' })).toBeVisible()
  const box = page.getByRole('textbox', { name: 'Message' })
  await box.fill('build, test and clean')
  await box.press('Enter')
  return errors
}

test('three approvals of one run: listed together, one denied by keyboard, the rest with Allow all', async ({ page }) => {
  const errors = await openApp(page)
  // its name counts what waits: the same region under any count
  const batch = page.getByRole('region', { name: /^\d+ commands wait for approval$/ })
  await expect(page.getByRole('region', { name: '3 commands wait for approval' })).toBeVisible()
  await expect(batch.getByRole('listitem')).toHaveCount(3)
  await expect(page).toHaveTitle('(3) Approval needed — Loopdesk')
  await shot(page, 'stub-approvals-together')
  // the list sits between the conversation and the message box, all of it reachable without scrolling the page
  const listBox = (await batch.boundingBox())!
  const composerBox = (await page.getByRole('textbox', { name: 'Message' }).boundingBox())!
  expect(listBox.y + listBox.height).toBeLessThanOrEqual(composerBox.y)

  // keyboard: focus on "make test"'s Deny, Enter
  const test = batch.getByRole('group', { name: 'make test' })
  await test.getByRole('button', { name: 'Deny' }).focus()
  await page.keyboard.press('Enter')
  await expect(page.getByRole('region', { name: '2 commands wait for approval' })).toBeVisible()
  await expect(batch.getByRole('group', { name: 'make test' })).toHaveCount(0)
  // focus went on to the next approval's first button, not to <body>
  await expect(batch.getByRole('button', { name: 'Approve' }).first()).toBeFocused()
  // Tab reaches Allow all
  const allowAll = batch.getByRole('button', { name: 'Allow all 2' })
  const focused = () => allowAll.evaluate((el: unknown) => el === (globalThis as unknown as { document: { activeElement: unknown } }).document.activeElement)
  for (let i = 0; i < 6 && !(await focused()); i++) await page.keyboard.press('Tab')
  await expect(allowAll).toBeFocused()
  // Allow all approves only approvals on screen for a moment (ApprovalBatch's SEEN_FOR_MS): a user reads first
  await page.waitForTimeout(700)
  await page.keyboard.press('Enter')
  await expect(page.getByRole('region', { name: /wait for approval/ })).toHaveCount(0)
  await expect(page.getByRole('textbox', { name: 'Message' })).toBeFocused()
  const log = page.getByRole('log', { name: 'Conversation' })
  await expect(log.getByText('All three ran.')).toBeVisible()
  await expect(log.getByRole('group', { name: 'Tool exec' }).filter({ hasText: 'make test' })).toContainText('Denied')
  await expect(log.getByRole('group', { name: 'Tool exec' }).filter({ hasText: 'make build' })).toContainText('Approved once')
  await expect(page).toHaveTitle('Loopdesk')
  expect(errors).toEqual([])
})

test('Deny all: one answer refused by the gateway is said on that approval; the others are denied', async ({ page }) => {
  const errors = await openApp(page)
  const batch = page.getByRole('region', { name: '3 commands wait for approval' })
  await expect(batch).toBeVisible()
  await page.evaluate(() => {
    type Fake = { approvalResolve: (p: { id: string; decision: string }) => Promise<unknown>; pendingApprovals: () => Array<{ id: string; command: string }> }
    const fake = (globalThis as { __LOOPDESK_FAKE_BRIDGE__?: Fake }).__LOOPDESK_FAKE_BRIDGE__!
    const refused = new Set(fake.pendingApprovals().filter((r) => r.command !== 'make build').map((r) => r.id))
    const real = fake.approvalResolve.bind(fake)
    fake.approvalResolve = async (p) => (refused.has(p.id) ? { ok: false, error: { code: 'UNAVAILABLE', message: 'gateway busy' } } : real(p))
  })
  await batch.getByRole('button', { name: 'Deny all' }).click()
  const left = page.getByRole('region', { name: '2 commands wait for approval' })
  await expect(left).toBeVisible()
  await expect(left.getByRole('group', { name: 'make test' }).getByRole('alert')).toHaveText('Could not answer this one: gateway busy')
  await expect(left.getByRole('group', { name: 'rm -rf dist' }).getByRole('alert')).toHaveText('Could not answer this one: gateway busy')
  await expect(left.getByRole('group', { name: 'make build' })).toHaveCount(0)
  await shot(page, 'stub-approvals-together-failed')
  expect(errors).toEqual([])
})

test('approvals waiting in another session: named above the message box, its button opens the session at its first approval', async ({ page }) => {
  const errors = await openApp(page, {
    seed: [
      { key: 'agent:main:main', label: 'Main', messages: 2 },
      { key: 'agent:main:taxes', label: 'Tax questions', messages: 2 },
    ],
  })
  await expect(page.getByRole('region', { name: '3 commands wait for approval' })).toBeVisible()
  // the open session's own approvals are not "elsewhere"
  await expect(page.getByRole('region', { name: /in another session|in other sessions/ })).toHaveCount(0)
  const nav = page.getByRole('navigation', { name: 'Sessions' })
  await nav.getByText('Tax questions').click()
  const notice = page.getByRole('region', { name: '3 approvals wait in another session' })
  await expect(notice).toBeVisible()
  // above the message box, like the list it stands for
  const noticeBox = (await notice.boundingBox())!
  const composerBox = (await page.getByRole('textbox', { name: 'Message' }).boundingBox())!
  expect(noticeBox.y + noticeBox.height).toBeLessThanOrEqual(composerBox.y)
  await shot(page, 'stub-approvals-elsewhere')
  // keyboard: focus its button, Enter — Main opens with focus on its list's first Approve
  await notice.getByRole('button', { name: 'Open “Main”' }).focus()
  await page.keyboard.press('Enter')
  await expect(nav.locator('li.selected')).toContainText('Main')
  const batch = page.getByRole('region', { name: '3 commands wait for approval' })
  await expect(batch.getByRole('button', { name: 'Approve' }).first()).toBeFocused()
  await expect(page.getByRole('region', { name: /in another session|in other sessions/ })).toHaveCount(0)
  // decided from there: Enter approves that one, focus goes on to the next
  await page.keyboard.press('Enter')
  await expect(page.getByRole('region', { name: '2 commands wait for approval' })).toBeVisible()
  expect(errors).toEqual([])
})
