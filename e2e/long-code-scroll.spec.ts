// A finished reply holding a 120 kB code block between long prose (so its row unmounts and mounts again), scrolled
// back over: how long the longest main-thread task is (printed, not asserted — a shared box's timing is no test;
// LONG_CODE_TRACE=1 adds the rendering steps' times), and that the block still reads and copies as one.
// The block's lines are drawn in groups the browser may skip off-screen (markdown/code-lines.ts).
import { expect, test, type Page } from '@playwright/test'
import { openFakeApp, sendMessage } from './fake-app'

const LINES = 3000
const code = Array.from({ length: LINES }, (_, i) => `const value${i} = compute(${i}, 'line ${i} of the long file') // c${i}`).join('\n')
const prose = (n: number, what: string) => Array.from({ length: n }, (_, i) => `${what} paragraph ${i + 1}: some words about the file above and below.`).join('\n\n')
const reply = `${prose(300, 'Before')}\n\n\`\`\`ts\n${code}\n\`\`\`\n\n${prose(1200, 'After')}\n\nEnd of the reply.`

async function openWithReply(page: Page) {
  // (e2e/ has no DOM lib: in-page code as text)
  await page.addInitScript({
    content: `window.__long = []; new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__long.push(e.duration) }).observe({ type: 'longtask', buffered: true })`,
  })
  await openFakeApp(page, { tickMs: 5, chunkChars: 6000, scripts: [{ steps: [{ kind: 'text', text: reply }] }] })
  await sendMessage(page, 'show me the file')
  const log = page.getByRole('log', { name: 'Conversation' })
  await expect(log.getByText('End of the reply.')).toBeVisible({ timeout: 60_000 })
  await expect(log.getByRole('status').last()).toHaveText(/^Done/, { timeout: 20_000 })
  return log
}

/** Scrolls the conversation from its bottom to its top in steps, a frame or two apart; the longest task meanwhile. */
async function scrollBack(page: Page): Promise<{ longest: number; over50: number }> {
  return (await page.evaluate(`(async () => {
    const el = document.querySelector('.conversation-scroll')
    const frames = (n) => new Promise((r) => { const f = () => (n-- > 0 ? requestAnimationFrame(f) : r()); f() })
    el.scrollTop = el.scrollHeight
    await frames(10)
    await new Promise((r) => setTimeout(r, 300))
    const from = window.__long.length
    for (let guard = 0; el.scrollTop > 0 && guard < 2000; guard++) {
      el.scrollTop = Math.max(0, el.scrollTop - 500)
      await frames(2)
    }
    await new Promise((r) => setTimeout(r, 300))
    const tasks = window.__long.slice(from)
    return { longest: Math.round(Math.max(0, ...tasks)), over50: tasks.length }
  })()`)) as { longest: number; over50: number }
}

test('scrolling back over a finished reply with a 120 kB code block: longest task (printed); the block reads as one', async ({ page, context }) => {
  test.setTimeout(180_000)
  const log = await openWithReply(page)
  const runs = []
  for (let i = 0; i < 5; i++) runs.push(await scrollBack(page))
  if (process.env.LONG_CODE_TRACE) {
    // the rendering steps' time in a pass (layout, style, paint…), from a trace: a look, not a test
    const browser = page.context().browser()!
    await browser.startTracing(page, { categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline'] })
    await scrollBack(page)
    const trace = JSON.parse((await browser.stopTracing()).toString()) as { traceEvents: Array<{ name: string; ph: string; dur?: number }> }
    const sum = new Map<string, { ms: number; max: number }>()
    for (const e of trace.traceEvents)
      if (e.ph === 'X' && e.dur) {
        const s = sum.get(e.name) ?? { ms: 0, max: 0 }
        sum.set(e.name, { ms: s.ms + e.dur / 1000, max: Math.max(s.max, e.dur / 1000) })
      }
    const steps = ['RunTask', 'Layout', 'UpdateLayoutTree', 'PrePaint', 'Paint', 'Layerize', 'Commit', 'UpdateLayer', 'IntersectionObserverController::computeIntersections']
    console.log([...sum].filter(([k]) => steps.includes(k)).map(([k, v]) => `${k}: ${v.ms.toFixed(0)} ms in all, longest ${v.max.toFixed(0)} ms`).join('\n'))
  }
  console.log(`long code block scroll-back: longest task per pass ${runs.map((r) => `${r.longest} ms (${r.over50} over 50 ms)`).join(', ')}`)

  // scrolled to it: one header and one Copy for the whole block, its text whole in the DOM
  await page.locator('.conversation-scroll').evaluate((el) => ((el as unknown as { scrollTop: number }).scrollTop = 0))
  const first = log.getByText('const value0 = compute(0,', { exact: false })
  await expect(async () => {
    await page.mouse.wheel(0, 400)
    await expect(first).toBeVisible({ timeout: 300 })
  }).toPass({ timeout: 20_000 })
  await expect(log.locator('.code-head')).toHaveCount(1)
  const text = (await page.evaluate(`[...document.querySelectorAll('.code-block code')].map((c) => c.textContent).join('')`)) as string
  expect(text.startsWith('const value0 =')).toBe(true)
  // selection copies the real text: lines across a group's edge, one line end between them, none doubled
  const copied = await page.evaluate(`(() => {
    const codes = [...document.querySelectorAll('.code-block code')]
    const sel = getSelection()
    sel.selectAllChildren(codes[0])
    return sel.toString()
  })()`)
  expect(copied).toContain('// c199\nconst value200 =')
  expect(copied).not.toContain('\n\n')
  // Copy puts the whole block on the clipboard
  await context.grantPermissions(['clipboard-read', 'clipboard-write'])
  await log.getByRole('button', { name: 'Copy code' }).click()
  const clip = (await page.evaluate('navigator.clipboard.readText()')) as string
  expect(clip).toBe(code)
})
