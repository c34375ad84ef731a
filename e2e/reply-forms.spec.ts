// Browser mode against the real stack, replies that are not plain text: a model that answers only NO_REPLY
// ends with a quiet "Done · No reply" (live and after a reload); <think>…</think> reasoning before the answer
// reads "Thinking…" and then shows only the answer (the reasoning collapsed at reasoning level on); and a
// server whose template opened the block sends only the closing tag: what showed first is replaced by the
// answer, never both on screen at once.
import { expect, test, type Page } from '@playwright/test'
import type { CapturedRequest } from '../test/fixtures/model-server'
import { useBrowserGateway } from './browser-gateway'

const TOKEN = 'e2e-reply-forms-token-0123456789abcdef'

function lastUser(req: CapturedRequest): string {
  const msgs = (req.body?.messages ?? []) as Array<{ role: string; content: unknown }>
  const c = [...msgs].reverse().find((m) => m.role === 'user')?.content
  return typeof c === 'string' ? c : Array.isArray(c) ? c.map((p: { text?: string }) => p.text ?? '').join('') : ''
}

const plan = (word: string) => Array.from({ length: 12 }, (_, i) => `step ${i} of the ${word} plan. `)

const env = useBrowserGateway(TOKEN, (req) => {
  const q = lastUser(req)
  if (/stay silent/.test(q)) return { textChunks: ['NO', '_RE', 'PLY'], delayMs: 150 }
  if (/think then silent/.test(q)) return { textChunks: ['<think>', ...plan('quiet'), '</think>', 'NO_', 'REPLY'], delayMs: 100 }
  if (/silent envelope/.test(q)) return { textChunks: ['{"act', 'ion": "NO', '_REPLY"}'], delayMs: 150 }
  if (/tagged thinking/.test(q)) return { textChunks: ['<think>', ...plan('private'), '</think>', 'The answer ', 'is 42.'], delayMs: 150 }
  if (/template at level on/.test(q)) return { textChunks: [...plan('open'), '</think>', 'The answer ', 'is 45.'], delayMs: 150 }
  if (/template again/.test(q)) return { textChunks: [...plan('second hidden'), '</think>', 'The answer ', 'is 44.'], delayMs: 150 }
  if (/template opened/.test(q)) return { textChunks: [...plan('hidden'), '</think>', 'The answer ', 'is 43.'], delayMs: 150 }
  return { text: 'ok' }
})

/** e2e/ is type-checked without the DOM lib (tsconfig.node.json): the page-side code goes through `globalThis`. */
type Node_ = { cloneNode(deep: boolean): Node_; querySelectorAll(s: string): ArrayLike<{ remove(): void }>; textContent: string | null }
type Win = { __logTexts?: string[]; document: { querySelector(s: string): Node_ | null } }

/**
 * Records every text the conversation log shows (on each DOM change), to catch a flash of both texts. A
 * collapsed reasoning section's content is not on screen: it is left out.
 */
async function recordLog(page: Page): Promise<void> {
  await page.evaluate(() => {
    const w = globalThis as unknown as Win & { MutationObserver: new (cb: () => void) => { observe(n: unknown, o: unknown): void } }
    w.__logTexts = []
    const snap = () => {
      const log = w.document.querySelector('[role="log"]')
      const copy = log?.cloneNode(true)
      if (copy) Array.from(copy.querySelectorAll('details.reasoning:not([open]) > .reasoning-text')).forEach((d) => d.remove())
      const t = copy?.textContent ?? ''
      const all = w.__logTexts!
      if (all[all.length - 1] !== t) all.push(t)
    }
    new w.MutationObserver(snap).observe(w.document, { subtree: true, childList: true, characterData: true, attributes: true })
  })
}
const logTexts = (page: Page) => page.evaluate(() => (globalThis as unknown as Win).__logTexts ?? [])

async function openNewSession(page: Page): Promise<string> {
  await page.goto(`${env.origin}/#token=${TOKEN}`)
  await expect(page.getByRole('textbox', { name: 'Message' })).toBeVisible()
  const before = await page.locator('li.session').count()
  await page.keyboard.press('Control+Shift+O')
  await expect(page.locator('li.session')).toHaveCount(before + 1)
  await expect(page.locator('li.session.selected')).toHaveCount(1)
  const key = await page.locator('li.session.selected').getAttribute('data-key')
  expect(key).toBeTruthy()
  return key!
}

/** After a reload the stored reasoning (thinking blocks in chat.history) may show, but only collapsed. */
async function reasoningOnlyCollapsed(page: Page, phrase: string) {
  const log = page.getByRole('log', { name: 'Conversation' })
  const outside = await log.evaluate((el, p) => {
    const copy = (el as unknown as Node_).cloneNode(true)
    Array.from(copy.querySelectorAll('details.reasoning')).forEach((d) => d.remove())
    return (copy.textContent ?? '').includes(p)
  }, phrase)
  expect(outside).toBe(false)
  for (const d of await log.locator('details.reasoning').all()) {
    await expect(d).not.toHaveAttribute('open', /.*/)
    await expect(d.locator('.reasoning-text')).toBeHidden()
  }
}

async function send(page: Page, text: string) {
  const box = page.getByRole('textbox', { name: 'Message' })
  await box.fill(text)
  await box.press('Enter')
}

test('a NO_REPLY answer ends with a quiet "Done · No reply", live and after a reload, never the token', async ({ page }) => {
  const errors: string[] = []
  page.on('pageerror', (e) => errors.push(e.message))
  await openNewSession(page)
  await recordLog(page)
  await send(page, 'please stay silent')
  const log = page.getByRole('log', { name: 'Conversation' })
  const footer = log.getByRole('status').last()
  await expect(footer).toHaveText(/^Done · No reply/, { timeout: 15_000 })
  await page.waitForTimeout(1000) // the reconcile with chat.history after the run's end
  await expect(footer).toHaveText(/^Done · No reply/)
  await expect(log.getByRole('alert')).toHaveCount(0)
  expect((await logTexts(page)).filter((t) => /NO_?R?E?P?L?Y?|Error/.test(t.replace('please stay silent', '')))).toEqual([])
  await page.reload()
  await expect(log.getByText('please stay silent')).toBeVisible()
  await expect(log.getByRole('status').last()).toHaveText(/^Done · No reply/)
  await expect(log).not.toContainText('NO_REPLY')
  await expect(log).not.toContainText('Error')
  expect(errors).toEqual([])
})

test('a NO_REPLY JSON envelope is as quiet: no flash of its first characters, nor the envelope once history has the reply', async ({ page }) => {
  const errors: string[] = []
  page.on('pageerror', (e) => errors.push(e.message))
  await openNewSession(page)
  await recordLog(page)
  await send(page, 'a silent envelope')
  const log = page.getByRole('log', { name: 'Conversation' })
  await expect(log.getByRole('status').last()).toHaveText(/^Done · No reply/, { timeout: 15_000 })
  await page.waitForTimeout(1000)
  await expect(log.getByRole('status').last()).toHaveText(/^Done · No reply/)
  expect((await logTexts(page)).filter((t) => /\{|action|NO_/.test(t))).toEqual([])
  await page.reload()
  await expect(log.getByText('a silent envelope')).toBeVisible()
  await expect(log.getByRole('status').last()).toHaveText(/^Done · No reply/)
  expect(errors).toEqual([])
})

test('<think>-tagged reasoning at level off: "Thinking…" while inside the block, then only the answer', async ({ page }) => {
  const errors: string[] = []
  page.on('pageerror', (e) => errors.push(e.message))
  await openNewSession(page)
  await recordLog(page)
  await send(page, 'show tagged thinking')
  const log = page.getByRole('log', { name: 'Conversation' })
  await expect(log.getByRole('status').last()).toHaveText(/^Thinking…/, { timeout: 10_000 })
  await expect(log.getByText('The answer is 42.')).toBeVisible({ timeout: 20_000 })
  await expect(log.getByRole('status').last()).toHaveText(/^Done/)
  await page.waitForTimeout(1000) // the reconcile with chat.history after the run's end
  // nothing of the block on screen, nor after the reconcile or a reload: chat.history keeps the reasoning as a
  // thinking block (as for a server's reasoning_content), but at level off the window leaves it out, as live
  const texts = await logTexts(page)
  expect(texts.filter((t) => /private plan/.test(t))).toEqual([])
  expect(texts.filter((t) => /<\/?think>/.test(t))).toEqual([])
  await expect(log.locator('details.reasoning')).toHaveCount(0)
  await page.reload()
  await expect(log.getByText('The answer is 42.')).toBeVisible()
  await expect(log.locator('details.reasoning')).toHaveCount(0)
  await expect(log).not.toContainText('private plan')
  await expect(log).not.toContainText('think>')
  expect(errors).toEqual([])
})

test('<think>-tagged reasoning at level on: the answer, with the reasoning in a collapsed section', async ({ page }) => {
  const errors: string[] = []
  page.on('pageerror', (e) => errors.push(e.message))
  const key = await openNewSession(page)
  await env.rt.call('sessions.patch', { key, reasoningLevel: 'on' })
  await recordLog(page)
  await send(page, 'show tagged thinking again')
  const log = page.getByRole('log', { name: 'Conversation' })
  await expect(log.getByRole('status').last()).toHaveText(/^Thinking…/, { timeout: 10_000 })
  await expect(log.getByText('The answer is 42.')).toBeVisible({ timeout: 20_000 })
  await expect(log.getByRole('status').last()).toHaveText(/^Done/)
  const check = async () => {
    const section = log.locator('details.reasoning')
    await expect(section).toHaveCount(1)
    await expect(section).not.toHaveAttribute('open', /.*/)
    await expect(section.locator('summary')).toHaveText('Reasoning')
    await expect(section.locator('.reasoning-text')).toBeHidden()
    await expect(section.locator('.reasoning-text')).toContainText('step 11 of the private plan.')
    await expect(log).not.toContainText('think>')
  }
  await check()
  expect((await logTexts(page)).filter((t) => /think>/.test(t))).toEqual([])
  await page.reload()
  await expect(log.getByText('The answer is 42.')).toBeVisible()
  await check()
  expect(errors).toEqual([])
})

test('only a closing </think> (the template opened the block): the text shown first gives way to the answer, never both', async ({ page }) => {
  const errors: string[] = []
  page.on('pageerror', (e) => errors.push(e.message))
  await openNewSession(page)
  await recordLog(page)
  await send(page, 'the template opened it')
  const log = page.getByRole('log', { name: 'Conversation' })
  await expect(log.getByText('The answer is 43.')).toBeVisible({ timeout: 20_000 })
  await expect(log.getByRole('status').last()).toHaveText(/^Done/)
  await page.waitForTimeout(1000) // the reconcile with chat.history after the run's end
  await reasoningOnlyCollapsed(page, 'hidden plan')
  const texts = await logTexts(page)
  // the reasoning did show first (nothing said it was reasoning yet) …
  expect(texts.some((t) => t.includes('hidden plan'))).toBe(true)
  // … but never next to the answer, nor the tag itself
  expect(texts.filter((t) => t.includes('hidden plan') && /The answer/.test(t))).toEqual([])
  expect(texts.filter((t) => t.includes('think>'))).toEqual([])
  await page.reload()
  await expect(log.getByText('The answer is 43.')).toBeVisible()
  await reasoningOnlyCollapsed(page, 'hidden plan')
  await expect(log).not.toContainText('think>')

  // the model is remembered as opening inside the block: its next reply never shows the reasoning
  await recordLog(page)
  await send(page, 'the template again')
  await expect(log.getByText('The answer is 44.')).toBeVisible({ timeout: 20_000 })
  await expect(log.getByRole('status').last()).toHaveText(/^Done/)
  await page.waitForTimeout(1000)
  const again = await logTexts(page)
  expect(again.some((t) => /Thinking…/.test(t))).toBe(true)
  expect(again.filter((t) => t.includes('second hidden plan') || t.includes('think>'))).toEqual([])
  expect(errors).toEqual([])
})

test('reasoning in tags, then NO_REPLY: "Done · No reply", live and after the reload', async ({ page }) => {
  const errors: string[] = []
  page.on('pageerror', (e) => errors.push(e.message))
  await openNewSession(page)
  await recordLog(page)
  await send(page, 'think then silent')
  const log = page.getByRole('log', { name: 'Conversation' })
  await expect(log.getByRole('status').last()).toHaveText(/^Done · No reply/, { timeout: 15_000 })
  await page.waitForTimeout(1000)
  await expect(log.getByRole('status').last()).toHaveText(/^Done · No reply/)
  expect((await logTexts(page)).filter((t) => /NO_|quiet plan|think>/.test(t))).toEqual([])
  await page.reload()
  await expect(log.getByText('think then silent')).toBeVisible()
  await expect(log.getByRole('status').last()).toHaveText(/^Done · No reply/)
  await reasoningOnlyCollapsed(page, 'quiet plan')
  expect(errors).toEqual([])
})

test('only a closing </think> at level on: the taken-back text becomes the collapsed reasoning, never next to the answer', async ({ page }) => {
  const errors: string[] = []
  page.on('pageerror', (e) => errors.push(e.message))
  const key = await openNewSession(page)
  await env.rt.call('sessions.patch', { key, reasoningLevel: 'on' })
  await recordLog(page)
  await send(page, 'the template at level on')
  const log = page.getByRole('log', { name: 'Conversation' })
  await expect(log.getByText('The answer is 45.')).toBeVisible({ timeout: 20_000 })
  await expect(log.getByRole('status').last()).toHaveText(/^Done/)
  await page.waitForTimeout(1000)
  const texts = await logTexts(page)
  expect(texts.filter((t) => t.includes('open plan') && /The answer/.test(t))).toEqual([])
  expect(texts.filter((t) => t.includes('think>'))).toEqual([])
  const section = log.locator('details.reasoning')
  await expect(section).toHaveCount(1)
  await expect(section.locator('.reasoning-text')).toContainText('step 11 of the open plan.')
  await reasoningOnlyCollapsed(page, 'open plan')
  expect(errors).toEqual([])
})
