// Browser mode end to end: the built renderer served by a REAL headless gateway over the real runtime,
// whose model is the scripted OpenAI-compatible server (test/fixtures/model-server.ts). The page opens
// http://127.0.0.1:<port>/#token=… like `loopdesk dashboard` prints it and talks over the WebSocket bridge.
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test, type Page } from '@playwright/test'
import { shot } from './shots'
import { useBrowserGateway } from './browser-gateway'

/** e2e/ is type-checked without the DOM lib (tsconfig.node.json). */
type DomLike = { getAttribute(name: string): string | null; textContent: string | null }
const TOKEN = 'e2e-browser-token-0123456789abcdef'

test.describe.configure({ mode: 'serial' })
const env = useBrowserGateway(TOKEN, { text: 'Fallback answer.', chunks: 3 })

/** Records every text a status element or tool card showed, so transient states can be asserted. */
const RECORDER = `
  window.__seen = new Set();
  new MutationObserver(() => {
    for (const el of document.querySelectorAll('[role=status], [role=group][aria-label^="Tool "] .badge')) window.__seen.add(el.textContent);
  }).observe(document, { subtree: true, childList: true, characterData: true });
`

async function open(page: Page): Promise<void> {
  const errors: string[] = []
  page.on('pageerror', (e) => errors.push(e.message))
  await page.addInitScript({ content: RECORDER })
  await page.goto(`${env.origin}/#token=${TOKEN}`)
  await expect(page.getByRole('navigation', { name: 'Sessions' })).toBeVisible()
  // the token left the address bar
  expect(page.url()).not.toContain(TOKEN)
  await expect(page.getByRole('textbox', { name: 'Message' })).toBeVisible()
  expect(errors).toEqual([])
}

async function newSession(page: Page) {
  const before = await page.getByRole('navigation', { name: 'Sessions' }).getByRole('listitem').count()
  await page.getByRole('button', { name: 'New session' }).click()
  await expect(page.getByRole('navigation', { name: 'Sessions' }).getByRole('listitem')).toHaveCount(before + 1)
  await expect(page.getByText('Start a conversation')).toBeVisible()
}

const seen = (page: Page) => page.evaluate('[...window.__seen]') as Promise<string[]>
const log = (page: Page) => page.getByRole('log', { name: 'Conversation' })
const lastStatus = (page: Page) => log(page).getByRole('status').last()

async function send(page: Page, text: string) {
  const box = page.getByRole('textbox', { name: 'Message' })
  await box.fill(text)
  await box.press('Enter')
}

/** The conversation rows as text, durations masked (live they are measured from events, after a
 * reload from transcript timestamps). */
const snapshot = (page: Page) =>
  log(page)
    .locator('[data-msg]')
    .evaluateAll((els) =>
      els.map((e) => `${(e as unknown as DomLike).getAttribute('data-kind')}: ${((e as unknown as DomLike).textContent ?? '').replace(/\d+(\.\d+)? (ms|s)\b/g, '<t>')}`),
    )

test('send → streamed text → tool card running then done → lifecycle Done; inspector; reload restores', async ({ page }) => {
  await open(page)
  await newSession(page)
  env.model.push(
    { text: 'Let me look at the workspace first.', chunks: 6, delayMs: 60, toolCalls: [{ name: 'ls', args: { path: '.' } }] },
    { text: 'The workspace is **empty** — nothing to list yet.', chunks: 8, delayMs: 60, usage: { input: 300, output: 20 } },
  )
  await send(page, 'list the files in the workspace')
  await expect(log(page).getByText('list the files in the workspace')).toBeVisible()
  const tool = log(page).getByRole('group', { name: 'Tool ls' })
  await expect(tool).toBeVisible()
  await expect(log(page).getByText('Let me look at the workspace first.')).toBeVisible()
  await expect(log(page).getByText(/The workspace is/)).toBeVisible()
  await expect(tool).toContainText('Done')
  await expect(lastStatus(page)).toHaveText(/^Done · /)
  const states = await seen(page)
  expect(states).toContain('Running…') // the tool card's live state before Done
  expect(states.some((s) => s.startsWith('Running…'))).toBe(true) // the run status
  // text before the tool is above its card, the rest below
  const y = async (l: ReturnType<Page['getByText']>) => (await l.boundingBox())!.y
  expect(await y(log(page).getByText('Let me look at the workspace first.'))).toBeLessThan((await tool.boundingBox())!.y)
  expect((await tool.boundingBox())!.y).toBeLessThan(await y(log(page).getByText(/The workspace is/)))
  await tool.getByRole('button', { name: /ls/ }).click()
  await expect(tool.getByText('"path": "."')).toBeVisible()
  await shot(page, 'app-done')

  await page.getByRole('button', { name: 'Inspector' }).click()
  const panel = page.getByRole('complementary', { name: 'Inspector' })
  const events = panel.getByRole('list', { name: 'Events' })
  await expect(events.getByText('lifecycle').first()).toBeVisible()
  await expect(events.getByText(/result ls/).first()).toBeVisible()
  await expect(panel.getByRole('list', { name: /Timeline of run/ })).toContainText('Tool ls')
  await shot(page, 'app-inspector')
  await panel.getByRole('button', { name: 'Close inspector' }).click()
  await tool.getByRole('button', { name: /ls/ }).click() // collapse (expansion is view state)

  const before = await snapshot(page)
  expect(before.length).toBeGreaterThanOrEqual(4)
  await page.reload()
  await expect(log(page).getByRole('group', { name: 'Tool ls' })).toContainText('Done')
  await expect(lastStatus(page)).toHaveText(/^Done/)
  expect(await snapshot(page)).toEqual(before)
})

test('Stop mid-stream keeps the partial reply, marked stopped', async ({ page }) => {
  await open(page)
  await newSession(page)
  const long = Array.from({ length: 120 }, (_, i) => `word${i}`).join(' ')
  env.model.push({ text: long, chunks: 120, delayMs: 60 })
  await send(page, 'write a long text')
  await expect(log(page).getByText(/word5 /)).toBeVisible()
  await page.getByRole('button', { name: 'Stop', exact: true }).click()
  await expect(lastStatus(page)).toHaveText(/^Stopped/)
  // said once, by the run's status, not again on the message
  await expect(log(page).getByText('Stopped', { exact: true })).toHaveCount(0)
  const shown = (await log(page).locator('[data-kind="assistant"]').first().textContent()) ?? ''
  expect(shown).toContain('word5')
  expect(shown).not.toContain('word119')
  expect((await seen(page)).some((t) => t.startsWith('Stopping…'))).toBe(true)
  await expect(page.getByRole('button', { name: 'Send' })).toBeVisible()
  await shot(page, 'app-stopped')
  // the stop survives a reload
  await page.reload()
  await expect(lastStatus(page)).toHaveText(/^Stopped/)
})

test('Queue and Steer while running', async ({ page }) => {
  await open(page)
  await newSession(page)
  const long = Array.from({ length: 60 }, (_, i) => `part${i}`).join(' ')
  env.model.push(
    { text: long, chunks: 60, delayMs: 50 },
    { text: 'Steered: switching to bullet points.', chunks: 4, delayMs: 30 },
    { text: 'Follow-up: here is the summary.', chunks: 4, delayMs: 30 },
  )
  await send(page, 'explain something at length')
  await expect(log(page).getByText(/part3 /)).toBeVisible()
  const box = page.getByRole('textbox', { name: 'Message' })
  await box.fill('then summarize it')
  await page.getByRole('button', { name: 'Queue' }).click()
  const queue = page.getByRole('region', { name: 'Queued messages' })
  await expect(queue.getByText('then summarize it')).toBeVisible()
  await box.fill('use bullet points')
  await page.getByRole('button', { name: 'Steer' }).click()
  await expect(log(page).getByText('use bullet points')).toBeVisible()
  await shot(page, 'app-queue-steer')
  await expect(log(page).getByText('Steered: switching to bullet points.')).toBeVisible({ timeout: 20_000 })
  await expect(log(page).getByText('then summarize it')).toBeVisible({ timeout: 20_000 })
  await expect(log(page).getByText('Follow-up: here is the summary.')).toBeVisible({ timeout: 20_000 })
  await expect(lastStatus(page)).toHaveText(/^Done/)
  await expect(queue.getByText(/Started as the next run|Steered into the running reply/).first()).toBeVisible()
  // the steer and the follow-up went to the model
  const userTexts = JSON.stringify(env.model.requests.slice(-2).map((r) => r.body?.messages))
  expect(userTexts).toContain('use bullet points')
  expect(userTexts).toContain('then summarize it')
})

test('collect mode: messages another client queued show as sent together in the run that answered them', async ({ page }) => {
  await open(page)
  const key = 'agent:main:collect-e2e'
  await env.rt.call('sessions.create', { key, label: 'Collected' })
  await env.rt.call('sessions.patch', { key, queueMode: 'collect', queueDebounceMs: 150 })
  await page.getByRole('navigation', { name: 'Sessions' }).getByText('Collected').click()
  await expect(page.getByText('Start a conversation')).toBeVisible()
  const long = Array.from({ length: 40 }, (_, i) => `piece${i}`).join(' ')
  env.model.push({ text: long, chunks: 40, delayMs: 50 }, { text: 'Both noted: the colour and the size.', chunks: 3, delayMs: 20 })
  await send(page, 'start a long answer')
  await expect(log(page).getByText(/piece3 /)).toBeVisible()
  // another client (a CLI, an OpenClaw app) sends two messages while the run is busy: the session collects them
  for (const [i, message] of ['make it blue', 'and larger'].entries()) {
    const r = await env.rt.call('chat.send', { sessionKey: key, message, idempotencyKey: `collect-e2e-${i}` })
    expect(r).toMatchObject({ status: 'queued' })
  }
  await expect(log(page).getByText('Both noted: the colour and the size.')).toBeVisible({ timeout: 20_000 })
  await expect(lastStatus(page)).toHaveText(/^Done/)
  // one model request answered both; each shows once, marked, and no run of its own ends empty
  expect(JSON.stringify(env.model.requests.at(-1)?.body?.messages?.at(-1)?.content)).toContain('Queued #2')
  const check = async () => {
    await expect(log(page).getByText('make it blue', { exact: true })).toHaveCount(1)
    await expect(log(page).getByText('and larger', { exact: true })).toHaveCount(1)
    await expect(log(page).getByText('Queued · sent together')).toHaveCount(2)
    await expect(log(page).getByRole('status')).toHaveCount(2) // the first run and the one that answered both
  }
  await check()
  await shot(page, 'app-collect')
  await page.reload()
  await expect(log(page).getByText('Both noted: the colour and the size.')).toBeVisible()
  await check()
})

test('a model error shows a readable error', async ({ page }) => {
  await open(page)
  await newSession(page)
  env.model.push({ status: 401, message: 'Incorrect API key provided: sk-wrong' })
  await send(page, 'this will fail')
  await expect(lastStatus(page)).toContainText('Error:')
  const text = (await lastStatus(page).textContent()) ?? ''
  expect(text).toMatch(/401|API key|Unauthorized/i)
  expect(text).not.toMatch(/^\s*Error:\s*(undefined|\[object|\{)/)
  // a wrong key: the error leads to where it is fixed
  await expect(log(page).getByRole('button', { name: 'Check model setup' })).toBeVisible()
  const nav = page.getByRole('navigation', { name: 'Sessions' })
  await expect(nav.locator('li.selected')).toContainText('Error')
  await shot(page, 'app-error')
})

test('settings persist across a reload', async ({ page }) => {
  await open(page)
  await page.getByRole('button', { name: 'Settings', exact: true }).click()
  let dialog = page.getByRole('dialog', { name: 'Settings' })
  await expect(dialog.getByLabel('Anthropic API key not set')).toBeVisible()
  await dialog.getByRole('button', { name: 'Agent' }).click()
  await dialog.getByLabel('Run timeout (seconds)').fill('900')
  await dialog.getByRole('button', { name: 'Save', exact: true }).click()
  await expect.poll(async () => (await env.rt.call('config.get', {})).config).toMatchObject({ agents: { defaults: { timeoutSeconds: 900 } } })
  await dialog.getByRole('button', { name: 'Appearance' }).click()
  await dialog.getByText('Dark').click()
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark')
  await dialog.getByRole('button', { name: 'Gateway' }).click()
  await expect(dialog.getByText(new RegExp(`--url ws://127\\.0\\.0\\.1:${new URL(env.origin).port} --token ${TOKEN}`))).toBeVisible()
  // the runtime's status (through this gateway) reports where it really listens
  await expect(dialog.getByRole('status', { name: 'Gateway address' })).toContainText(`Listening on ws://127.0.0.1:${env.gw.port}`)
  await shot(page, 'app-settings')
  await page.reload()
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark')
  await page.getByRole('button', { name: 'Settings', exact: true }).click()
  dialog = page.getByRole('dialog', { name: 'Settings' })
  await dialog.getByRole('button', { name: 'Agent' }).click()
  await expect(dialog.getByLabel('Run timeout (seconds)')).toHaveValue('900')
})

test('pin and archive through the real runtime: pinned first, archived behind "Show archived", both survive a reload', async ({ page }) => {
  await open(page)
  const nav = page.getByRole('navigation', { name: 'Sessions' })
  await newSession(page)
  const item = nav.locator('li.selected')
  const title = ((await item.locator('.session-title').textContent()) ?? '').trim()
  const menu = async (name: string) => {
    await nav.getByRole('button', { name: `Actions for ${title}` }).click()
    await page.getByRole('menuitem', { name }).click()
  }
  await menu('Pin')
  await expect(nav.getByRole('listitem').first()).toHaveAttribute('data-pinned', 'true')
  await expect(nav.getByRole('listitem').first()).toContainText(title)
  const key = (await env.rt.call('sessions.list', { search: title })).sessions[0]?.key
  expect((await env.rt.call('sessions.list', {})).sessions.find((s) => s.key === key)).toMatchObject({ pinned: true })

  await menu('Archive')
  await expect(nav.getByText(title, { exact: true })).toHaveCount(0)
  expect((await env.rt.call('sessions.list', { archived: true })).sessions.map((s) => s.key)).toContain(key)
  await page.reload()
  await expect(nav.getByRole('button', { name: /^Show archived \(\d+\)$/ })).toBeVisible()
  await expect(nav.getByText(title, { exact: true })).toHaveCount(0)
  await nav.getByRole('button', { name: /^Show archived/ }).click()
  const archived = nav.getByRole('listitem').filter({ hasText: title })
  await expect(archived).toHaveAttribute('data-archived', 'true')
  await expect(archived).toContainText('Archived')
  await shot(page, 'app-archived')
  await menu('Unarchive')
  await expect(archived).not.toHaveAttribute('data-archived', 'true')
  expect((await env.rt.call('sessions.list', {})).sessions.find((s) => s.key === key)).toMatchObject({ archived: false, pinned: false })
})

test('Export as Markdown downloads the conversation from the real runtime, with its tool call', async ({ page }) => {
  await open(page)
  await newSession(page)
  env.model.push({ toolCalls: [{ name: 'read', args: { path: 'export-me.txt' } }] })
  env.model.push({ text: 'Nothing to read, so here is a fresh start.', chunks: 2 })
  await send(page, 'read export-me.txt for me')
  await expect(log(page).getByText('Nothing to read, so here is a fresh start.')).toBeVisible()
  const nav = page.getByRole('navigation', { name: 'Sessions' })
  const title = ((await nav.locator('li.selected .session-title').textContent()) ?? '').trim()
  await nav.getByRole('button', { name: `Actions for ${title}` }).click()
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('menuitem', { name: 'Export as Markdown' }).click()])
  expect(download.suggestedFilename()).toBe(`${title}.md`)
  const text = readFileSync((await download.path())!, 'utf8')
  expect(text).toContain(`# ${title}`)
  expect(text).toContain('read export-me.txt for me')
  expect(text).toContain('**Tool** `read` — export-me.txt')
  expect(text).toContain('Nothing to read, so here is a fresh start.')
  await expect(page.getByText(/^Exported “.*” \(4 messages\)$/)).toBeVisible()
})

test('Fork through the real runtime: a new session with the conversation so far; a reply there leaves the original alone', async ({ page }) => {
  await open(page)
  await newSession(page)
  env.model.push({ text: 'The original answer.', chunks: 2 })
  await send(page, 'first question')
  await expect(log(page).getByText('The original answer.')).toBeVisible()
  const nav = page.getByRole('navigation', { name: 'Sessions' })
  const title = ((await nav.locator('li.selected .session-title').textContent()) ?? '').trim()
  await nav.getByRole('button', { name: `Actions for ${title}` }).click()
  await page.getByRole('menuitem', { name: 'Fork' }).click()
  await expect(nav.locator('li.selected .session-title')).toHaveText(`${title} (fork)`)
  await expect(log(page).getByText('The original answer.')).toBeVisible()
  env.model.push({ text: 'A different direction.', chunks: 2 })
  await send(page, 'try another way')
  await expect(log(page).getByText('A different direction.')).toBeVisible()
  // the model saw the copied turn
  expect(JSON.stringify(env.model.requests.at(-1)!.body.messages)).toContain('The original answer.')
  await nav.getByTitle(title, { exact: true }).click() // (the fork's row shows the same name before its "(fork)")
  await expect(log(page).getByText('The original answer.')).toBeVisible()
  await expect(log(page).getByText('A different direction.')).toHaveCount(0)
})

test('Read-only through the real runtime: the next run offers the model no write tools; a write it calls anyway changes nothing', async ({ page }) => {
  await open(page)
  await newSession(page)
  const lock = page.getByRole('switch', { name: /read-only/i }) // "Changes allowed (read-only off)" / "Read-only"
  await lock.click()
  await expect(lock).toHaveAttribute('aria-checked', 'true')
  await expect(page.getByText('Read-only: no file changes or commands')).toBeVisible()
  env.model.push({ toolCalls: [{ name: 'write', args: { path: 'e2e-made.txt', content: 'x' } }] }, { text: 'I cannot change files here.', chunks: 2 })
  await send(page, 'create a file')
  await expect(log(page).getByText('I cannot change files here.')).toBeVisible()
  const asked = env.model.requests.at(-2)!.body as { tools?: Array<{ function: { name: string } }> }
  expect((asked.tools ?? []).map((t) => t.function.name).sort()).toEqual(['glob', 'grep', 'ls', 'message', 'read', 'web_fetch'])
  expect(existsSync(join(env.rt.workspace, 'e2e-made.txt'))).toBe(false)
  await page.mouse.move(0, 0) // the lock as it stays, not hovered
  await shot(page, 'app-read-only')
  // allowed again: the next run gets every tool
  await lock.click()
  await expect(lock).toHaveAttribute('aria-checked', 'false')
  env.model.push({ text: 'Tools are back.', chunks: 2 })
  await send(page, 'and now?')
  await expect(log(page).getByText('Tools are back.')).toBeVisible()
  const again = env.model.requests.at(-1)!.body as { tools?: Array<{ function: { name: string } }> }
  expect((again.tools ?? []).map((t) => t.function.name)).toEqual(expect.arrayContaining(['write', 'edit', 'exec']))
})

test('rename an endpoint through the real runtime: its key moves inside the runtime, its models are edited in the same save', async ({ page }) => {
  await env.rt.call('config.patch', { patch: { models: { providers: { mockant: { apiKey: 'sk-e2e-mockant' } } } } })
  await open(page)
  await page.getByRole('button', { name: 'Settings', exact: true }).click()
  const dialog = page.getByRole('dialog', { name: 'Settings' })
  await dialog.getByRole('button', { name: 'Edit mockant' }).click()
  const form = dialog.getByRole('group', { name: 'Edit endpoint mockant' })
  await form.getByLabel('Name').fill('openai')
  await form.getByRole('button', { name: 'Save endpoint' }).click()
  await expect(form.getByRole('alert')).toContainText('“openai” is the name of a built-in provider')
  await form.getByLabel('Name').fill('claude-lab')
  await form.getByRole('button', { name: 'Add a model' }).click()
  await form.getByLabel('Model id').nth(1).fill('c2')
  await form.getByLabel('Context window (tokens)').nth(1).fill('65536')
  await form.getByRole('button', { name: 'Save endpoint' }).click()
  await expect(dialog.getByText('Renamed “mockant” to “claude-lab”: its models are claude-lab/… now.')).toBeVisible()
  await expect(dialog.getByRole('listitem', { name: 'Endpoint claude-lab' })).toContainText('Key set')
  await expect(dialog.getByRole('listitem', { name: 'Endpoint mockant' })).toHaveCount(0)
  expect(env.rt.runtime.core.credentials.get('claude-lab')).toBe('sk-e2e-mockant')
  expect(env.rt.runtime.core.credentials.get('mockant')).toBeUndefined()
  const cfg = (await env.rt.call('config.get', {})).config as { models: { providers: Record<string, { models: unknown[] }> } }
  expect(Object.keys(cfg.models.providers)).toEqual(['mock', 'claude-lab'])
  expect(cfg.models.providers['claude-lab'].models).toEqual([{ id: 'c1', contextWindow: 32000, maxTokens: 1024 }, { id: 'c2', contextWindow: 65536 }])
  // its models are offered under the new name
  await expect(dialog.getByLabel('Default model').locator('option[value="claude-lab/c2"]')).toHaveCount(1)
  await shot(page, 'app-settings-rename')
})

test('the lazily loaded parts (highlighting, Settings, Inspector) load from the gateway under its CSP', async ({ page }) => {
  // the gateway's CSP (script-src 'self'), as the page reports any refusal
  await page.addInitScript({
    content: `window.__csp = []; document.addEventListener('securitypolicyviolation', (e) => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI));`,
  })
  const scripts: Array<{ path: string; status: number; csp: string | undefined }> = []
  page.on('response', (r) => {
    if (r.request().resourceType() === 'script') scripts.push({ path: new URL(r.url()).pathname, status: r.status(), csp: r.headers()['content-security-policy'] })
  })
  await open(page)
  await newSession(page)
  env.model.push({ text: 'Here:\n\n```ts\nconst answer: number = 42\n```\n', chunks: 2 })
  await send(page, 'show me code')
  await expect(log(page).locator('code .hljs-keyword').first()).toHaveText('const')
  await page.getByRole('button', { name: 'Settings', exact: true }).click()
  await expect(page.getByRole('dialog', { name: 'Settings' })).toBeVisible()
  await page.keyboard.press('Escape')
  await expect(page.getByRole('dialog', { name: 'Settings' })).toHaveCount(0)
  await page.getByRole('button', { name: 'Inspector' }).click()
  await expect(page.getByRole('complementary', { name: 'Inspector' })).toBeVisible()
  await page.getByRole('button', { name: 'Close inspector' }).click()
  for (const chunk of ['highlight', 'Settings', 'Inspector']) {
    const served = scripts.find((s) => s.path.startsWith(`/assets/${chunk}-`))
    expect(served, chunk).toMatchObject({ status: 200, csp: expect.stringContaining("script-src 'self'") })
  }
  expect(await page.evaluate('window.__csp')).toEqual([])
})

test("a model's Advanced switch reaches the real runtime: its server is no longer asked for stream_options", async ({ page }) => {
  await open(page)
  await page.getByRole('button', { name: 'Settings', exact: true }).click()
  const dialog = page.getByRole('dialog', { name: 'Settings' })
  await dialog.getByRole('button', { name: 'Edit mock', exact: true }).click()
  const form = dialog.getByRole('group', { name: 'Edit endpoint mock' })
  const row = form.getByRole('listitem', { name: 'Model 1', exact: true })
  const usage = row.getByRole('checkbox', { name: /Ask for token usage while streaming/ })
  await expect(usage).toBeHidden() // inside the closed Advanced part
  await row.getByText('Advanced', { exact: true }).click()
  await usage.uncheck()
  await expect(row.getByText('Advanced (1 set)')).toBeVisible()
  await form.getByRole('button', { name: 'Save endpoint' }).click()
  await expect(dialog.getByText('Saved the endpoint “mock”.')).toBeVisible()
  const models = async () => ((await env.rt.call('config.get', {})).config as { models: { providers: Record<string, { models: Array<Record<string, unknown>> }> } }).models.providers.mock.models
  expect((await models())[0]).toMatchObject({ id: 'm1', compat: { supportsUsageInStreaming: false } })
  await shot(page, 'app-settings-model-advanced')
  await dialog.getByRole('button', { name: 'Close', exact: true }).click()
  await expect(dialog).toHaveCount(0)

  await newSession(page)
  env.model.push({ text: 'Asked plainly.', chunks: 2 })
  await send(page, 'no usage please')
  await expect(log(page).getByText('Asked plainly.')).toBeVisible()
  expect('stream_options' in (env.model.requests.at(-1)!.body as object)).toBe(false)

  // switched back on: the entry loses its compat again
  await page.getByRole('button', { name: 'Settings', exact: true }).click()
  await dialog.getByRole('button', { name: 'Edit mock', exact: true }).click()
  await expect(row.getByText('Advanced (1 set)')).toBeVisible() // open: it has a switch set
  await usage.check()
  await form.getByRole('button', { name: 'Save endpoint' }).click()
  // (the first save's toast may still be up: the file says when this one landed)
  await expect.poll(async () => (await models())[0]).toEqual({ id: 'm1', name: 'Mock', contextWindow: 32000, maxTokens: 1024, cost: { input: 1, output: 2 } })
})
