// UI bench (`npm run bench:ui` = `tsx bench/ui.bench.ts`): the built renderer in Debian Chromium with
// the in-page FakeBridge.
//   1. streams a 100,000-token reply (markdown: paragraphs, lists, code; ~3,000 tokens/s, far faster
//      than a model) after the app's idle warm-up, and reports the longest main-thread task twice:
//      - WALL time, as the Long Tasks API measures it (the issue's target). It includes any time the OS
//        ran other programs in the middle of the task, so on a busy machine it grows with their load;
//      - CPU time of the same tasks, from a Chromium trace: the work the page itself did.
//      It also prints how many cores other programs used meanwhile, to read the wall times with.
//   2. opens a 10,000-message session and reports the time from click to the newest messages shown,
//      then pages back through all of history and reports the longest task while doing so;
//   3. reports the most message nodes ([data-msg]) that were in the DOM at any time;
//   4. first paint of each page: first contentful paint, the composer showing, and the script bytes
//      fetched before it (lazily loaded chunks — Settings, Inspector, highlighting — come after).
// Targets: no task over 50 ms while streaming; open < 500 ms; ≤ 300 message nodes.
// The probes stay off the measured thread: no per-frame loop, no Playwright role queries while streaming,
// the trace is read after the stream.
// Options: --tokens N  --messages N  --no-build  --strict (exit 1 when a target is missed)
import { spawnSync } from 'node:child_process'
import { cpus, loadavg } from 'node:os'
import { createReadStream, existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { extname, join, normalize, resolve } from 'node:path'
import { chromium, type CDPSession, type Page } from '@playwright/test'

const args = process.argv.slice(2)
const flag = (name: string) => args.includes(`--${name}`)
const num = (name: string, dflt: number) => {
  const i = args.indexOf(`--${name}`)
  return i >= 0 ? Number(args[i + 1]) : dflt
}
const TOKENS = num('tokens', 100_000)
const MESSAGES = num('messages', 10_000)
const root = resolve(import.meta.dirname, '..')
const outDir = join(root, 'out/renderer')

if (!flag('no-build') || !existsSync(join(outDir, 'index.html'))) {
  const r = spawnSync('npx', ['vite', 'build', '--config', 'src/renderer/vite.config.ts', '--logLevel', 'error'], { cwd: root, stdio: 'inherit' })
  if (r.status !== 0) throw new Error('renderer build failed')
}

const MIME: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml' }
const server = http.createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://x')
  const file = normalize(join(outDir, url.pathname === '/' ? 'index.html' : url.pathname))
  if (!file.startsWith(outDir) || !existsSync(file) || !statSync(file).isFile()) {
    res.writeHead(404).end()
    return
  }
  res.writeHead(200, { 'content-type': MIME[extname(file)] ?? 'application/octet-stream' })
  createReadStream(file).pipe(res)
})
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`

/** A realistic long markdown reply of about `tokens` tokens (≈4 chars per token). */
function longReply(tokens: number): string {
  const parts: string[] = []
  let chars = 0
  for (let i = 0; chars < tokens * 4; i++) {
    let block: string
    if (i % 7 === 3) block = `\`\`\`ts\nexport function step${i}(input: number): number {\n  // transform the value\n  return input * ${i} + 1\n}\n\`\`\``
    else if (i % 7 === 5) block = `- item **${i}.1** with \`code\`\n- item ${i}.2 and a [link](https://example.com/${i})\n- item ${i}.3`
    else if (i % 23 === 0) block = `## Section ${i}`
    else block = `Paragraph ${i}: the agent explains what it did and why, with *emphasis* and a few more words to make a realistic sentence length for a model reply.`
    parts.push(block)
    chars += block.length + 2
  }
  return parts.join('\n\n')
}

// Instrumentation installed before the app loads: long tasks and the peak number of message nodes.
// Nodes are counted when the DOM changes (a MutationObserver), not every animation frame: a rAF loop
// would make the browser produce a frame 60 times a second and add work to the thread we measure.
const PROBE = `
  window.__bench = { longtasks: [], maxNodes: 0, marks: {}, composerAt: 0 };
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__bench.longtasks.push({ start: e.startTime, duration: e.duration });
    }).observe({ type: 'longtask', buffered: true });
  } catch (e) { window.__bench.noLongtask = String(e) }
  new MutationObserver(() => {
    const n = document.querySelectorAll('[data-msg]').length;
    if (n > window.__bench.maxNodes) window.__bench.maxNodes = n;
    if (!window.__bench.composerAt && document.querySelector('textarea[aria-label="Message"]')) window.__bench.composerAt = performance.now();
  }).observe(document, { childList: true, subtree: true });
`

interface Bench {
  longtasks: Array<{ start: number; duration: number }>
  maxNodes: number
  noLongtask?: string
  /** performance.now() when the composer was first in the DOM */
  composerAt: number
}

/** First paint of one page load. */
interface FirstPaint {
  /** first contentful paint (ms after navigation start) */
  fcp: number
  /** the composer in the DOM (ms after navigation start) */
  composer: number
  /** script bytes (encoded body) fetched before the composer showed, and the number of files */
  scriptBytes: number
  scripts: number
}
const firstPaints: FirstPaint[] = []

/** What the bench reads in the page (this file is type-checked without the DOM library). */
interface PageGlobals {
  document: { querySelector(selector: string): { textContent: string | null } | null }
  performance: { getEntriesByName(name: string): unknown[] }
}
/** How long each page's idle warm-up took after its composer showed (ms). */
const warmUpMs: number[] = []

interface TraceEvent {
  ph: string
  name: string
  pid: number
  tid: number
  ts: number
  /** wall time, µs */
  dur?: number
  /** thread (CPU) time, µs */
  tdur?: number
  /** thread name (metadata events); the task's origin (RunTask events) */
  args?: { name?: string; src_func?: string }
}

/** Reads a trace returned as a stream (Tracing.start with transferMode 'ReturnAsStream'). */
async function readTrace(cdp: CDPSession, handle: string | undefined): Promise<TraceEvent[]> {
  if (!handle) throw new Error('the trace came back without a stream handle')
  const chunks: string[] = []
  for (;;) {
    const r = await cdp.send('IO.read', { handle, size: 1 << 22 })
    chunks.push(r.base64Encoded ? Buffer.from(r.data, 'base64').toString('utf8') : r.data)
    if (r.eof) break
  }
  await cdp.send('IO.close', { handle })
  const text = chunks.join('')
  const parsed = JSON.parse(text) as { traceEvents?: TraceEvent[] } | TraceEvent[]
  return Array.isArray(parsed) ? parsed : (parsed.traceEvents ?? [])
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-quic', '--no-first-run'],
})

async function newPage(fake: Record<string, unknown>): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } })
  page.on('pageerror', (e) => console.error('page error:', e.message))
  await page.addInitScript({ content: `window.__LOOPDESK_FAKE__ = ${JSON.stringify(fake)};\n${PROBE}` })
  await page.goto(base)
  await page.getByRole('textbox', { name: 'Message' }).waitFor()
  // the paint entry is reported once the frame is presented, which can be after the composer is found
  firstPaints.push((await page.evaluate(`new Promise((resolve) => {
    const composer = window.__bench.composerAt;
    const scripts = performance.getEntriesByType('resource').filter((e) => /\\.js$/.test(e.name) && e.startTime <= composer);
    const done = (fcp) => resolve({ fcp, composer, scriptBytes: scripts.reduce((n, e) => n + e.encodedBodySize, 0), scripts: scripts.length });
    new PerformanceObserver((list) => {
      const e = list.getEntriesByName('first-contentful-paint')[0];
      if (e) done(e.startTime);
    }).observe({ type: 'paint', buffered: true });
    setTimeout(() => done(NaN), 5000);
  })`)) as FirstPaint)
  // The app compiles grammars and renders its views once while idle (warm-up.tsx); a user types for
  // a moment before the first message, so measure from there.
  const warm = Date.now()
  await page.waitForFunction(() => (globalThis as unknown as PageGlobals).performance.getEntriesByName('loopdesk:warm-up-done').length > 0, undefined, { timeout: 30_000 })
  warmUpMs.push(Date.now() - warm)
  return page
}

const bench = (page: Page) => page.evaluate('window.__bench') as Promise<Bench>
const round = (n: number) => Math.round(n * 10) / 10

const loadBefore = loadavg()[0]

/**
 * CPU time (ms) used so far by the whole machine and by the browser under test (Linux /proc; zeros
 * elsewhere). The difference over the stream is what other programs took meanwhile: the main thread
 * waits for a core while they run, and its tasks' wall time grows by that wait.
 */
function cpuUse(): { machine: number; browser: number } {
  if (!existsSync('/proc/stat')) return { machine: 0, browser: 0 }
  const tick = 10 // ms per clock tick (USER_HZ = 100 on Linux)
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number)
  const machine = (f[0] + f[1] + f[2] + f[5] + f[6] + f[7]) * tick // user nice system irq softirq steal
  let browser = 0
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
      const m = /\((.*)\) (.*)$/s.exec(stat)
      if (!m || !/^chrom/.test(m[1])) continue
      const rest = m[2].split(' ')
      browser += (Number(rest[11]) + Number(rest[12])) * tick // utime stime
    } catch {
      // the process exited meanwhile
    }
  }
  return { machine, browser }
}

// ------------------------------------------------------------------ 1. streaming
const text = longReply(TOKENS)
const streamPage = await newPage({
  tickMs: 16,
  chunkChars: 4, // one token per assistant event
  deltasPerTick: 60, // ≈3,750 tokens/s: far faster than a real model, to stress the renderer
  scripts: [{ steps: [{ kind: 'text', text }] }],
})
await streamPage.waitForTimeout(500)
// Playwright compiles its in-page helper on first use (a ~20 ms task): pay that before measuring.
await streamPage.waitForFunction(() => true)
// Trace the renderer's main-thread tasks: each task's wall time (what the Long Tasks API reports) and
// its CPU (thread) time. On a busy machine a task's wall time stretches while the OS runs other
// threads; CPU time is the work the page itself did. The trace is returned as a stream at the end, so
// nothing is shipped to (and parsed by) this process while the reply streams.
const cdp = await streamPage.context().newCDPSession(streamPage)
const traced = new Promise<{ stream?: string }>((r) => cdp.once('Tracing.tracingComplete', r))
await cdp.send('Tracing.start', { categories: 'toplevel', transferMode: 'ReturnAsStream', streamFormat: 'json' })
const cpu0 = cpuUse()
const t0 = (await streamPage.evaluate('performance.now()')) as number
await streamPage.getByRole('textbox', { name: 'Message' }).fill('write the long report')
await streamPage.keyboard.press('Enter')
// A cheap in-page check: Playwright's role/text locators walk the accessibility tree on every poll,
// which would itself put 10–15 ms tasks on the main thread being measured.
await streamPage.waitForFunction(
  () => !!(globalThis as unknown as PageGlobals).document.querySelector('[role=log] [role=status]')?.textContent?.startsWith('Done'),
  undefined,
  { polling: 500, timeout: 15 * 60_000 },
)
const t1 = (await streamPage.evaluate('performance.now()')) as number
const cpu1 = cpuUse()
await cdp.send('Tracing.end')
const traceEvents = await readTrace(cdp, (await traced).stream)
// The page's main thread: the renderer main thread (CrRendererMain) that ran the most tasks. The trace
// spans Enter … Done (it starts right before the message is sent and ends once Done shows).
const mainThreads = new Set(traceEvents.filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain').map((e) => `${e.pid}:${e.tid}`))
const tasksOf = new Map<string, TraceEvent[]>()
for (const e of traceEvents) {
  const thread = `${e.pid}:${e.tid}`
  if (e.ph !== 'X' || e.name !== 'ThreadControllerImpl::RunTask' || !mainThreads.has(thread)) continue
  const list = tasksOf.get(thread)
  if (list) list.push(e)
  else tasksOf.set(thread, [e])
}
const mainTasks = [...tasksOf.values()].sort((a, b) => b.length - a.length)[0] ?? []
const byWall = [...mainTasks].sort((a, b) => (b.dur ?? 0) - (a.dur ?? 0))
const byCpu = [...mainTasks].sort((a, b) => (b.tdur ?? 0) - (a.tdur ?? 0))
const ms = (us: number | undefined) => (us ?? 0) / 1000
const longestCpu = ms(byCpu[0]?.tdur)
const cpuBusy = mainTasks.reduce((n, e) => n + ms(e.tdur), 0)
const overWall = byWall.filter((e) => ms(e.dur) > 50)
const overCpu = byCpu.filter((e) => ms(e.tdur) > 50)
const s = await bench(streamPage)
const during = s.longtasks.filter((t) => t.start >= t0 && t.start <= t1)
const longestStream = during.reduce((m, t) => Math.max(m, t.duration), 0)
const shownChars = (await streamPage.evaluate(`document.querySelector('[role=log]').textContent.length`)) as number
const streamNodes = s.maxNodes
await streamPage.screenshot({ path: join(root, 'test-results/screenshots/bench-stream-end.png') }).catch(() => {})
await streamPage.close()

// ------------------------------------------------------------------ 2. open a 10,000-message session
const openPage = await newPage({
  tickMs: 16,
  seed: [
    { key: 'agent:main:main', label: 'Small session', messages: 4 },
    { key: 'agent:main:huge', label: 'Huge session', messages: MESSAGES },
  ],
})
await openPage.waitForTimeout(300)
const lastQuestion = `Question ${MESSAGES / 2}:`
const openMs = (await openPage.evaluate(`new Promise((resolve) => {
  const start = performance.now();
  const btn = [...document.querySelectorAll('nav[aria-label="Sessions"] button')].find((b) => b.textContent.includes('Huge session'));
  btn.click();
  const check = () => {
    const log = document.querySelector('[role=log]');
    if (log && log.textContent.includes(${JSON.stringify(lastQuestion)}) && log.textContent.includes('Answer ${MESSAGES / 2}.')) {
      // wait for the frame that paints it
      requestAnimationFrame(() => resolve(performance.now() - start));
    } else requestAnimationFrame(check);
  };
  check();
})`)) as number
const o = await bench(openPage)
const openNodes = o.maxNodes
// Page back through the whole history (older pages load at the top).
const p0 = (await openPage.evaluate('performance.now()')) as number
let pages = 0
for (; pages < 200; pages++) {
  const done = (await openPage.evaluate(`(() => {
    const el = document.querySelector('.conversation-scroll');
    el.scrollTop = 0;
    return document.querySelector('[role=log]').textContent.includes('Question 1:');
  })()`)) as boolean
  if (done) break
  await openPage.waitForTimeout(120)
}
const p1 = (await openPage.evaluate('performance.now()')) as number
const o2 = await bench(openPage)
const longestPaging = o2.longtasks.filter((t) => t.start >= p0 && t.start <= p1).reduce((m, t) => Math.max(m, t.duration), 0)
const maxNodes = Math.max(streamNodes, o2.maxNodes)
await openPage.screenshot({ path: join(root, 'test-results/screenshots/bench-history-top.png') }).catch(() => {})
await openPage.close()
await browser.close()
server.close()

const longestPagingText = longestPaging ? `${round(longestPaging)} ms` : 'none over 50 ms'
const results = [
  // The issue's target, as the Long Tasks API measures it: wall-clock time, which includes any time
  // the OS spent running other threads/processes in the middle of the task.
  {
    name: 'longest main-thread task while streaming, WALL time (Long Tasks API)',
    // The API reports only tasks over 50 ms that it attributes to the page; the trace has every task
    // of the thread (also V8's GC tasks), so its longest can be a little over while the API saw none.
    value: during.length ? `${round(longestStream)} ms` : `none over 50 ms (the trace's longest task of any kind, GC included: ${round(ms(byWall[0]?.dur))} ms wall)`,
    ok: longestStream <= 50,
    target: '≤ 50 ms',
  },
  // The same tasks' CPU (thread) time from the trace: the work the page itself did.
  { name: 'longest main-thread task while streaming, CPU time (trace)', value: `${round(longestCpu)} ms`, ok: longestCpu <= 50, target: '≤ 50 ms' },
  { name: `session open (${MESSAGES.toLocaleString()} messages)`, value: `${round(openMs)} ms`, ok: openMs < 500, target: '< 500 ms' },
  { name: 'max message nodes in the DOM', value: String(maxNodes), ok: maxNodes <= 300, target: '≤ 300' },
]
/** What posted a task, in a word: a frame, a timer, a message (IPC/MessageChannel), V8's GC, … */
function origin(e: TraceEvent): string {
  const f = e.args?.src_func ?? ''
  if (/BeginMainFrame/.test(f)) return 'frame'
  if (/GC|Sweeper|Marking|Scavenge/i.test(f)) return 'GC'
  if (/DOMTimer/.test(f)) return 'timer'
  if (/PostTaskToMainThread|Input/.test(f)) return 'input'
  if (/Accept|Mojo|Watcher|Pipe|PostMessage|Notify/i.test(f)) return 'message'
  return f ? f.replace(/^.*::/, '').slice(0, 24) : '?'
}
const fmtTask = (e: TraceEvent) => `${round(ms(e.dur))} wall/${round(ms(e.tdur))} CPU (${origin(e)})`
console.log(`\nUI bench — Chromium ${browser.version()}, ${TOKENS.toLocaleString()}-token reply, ${MESSAGES.toLocaleString()}-message session`)
console.log(`machine: ${cpus().length} cores, load average ${loadBefore.toFixed(1)} → ${loadavg()[0].toFixed(1)} (1 min)`)
if (cpu1.machine) {
  const span = t1 - t0
  const others = Math.max(0, cpu1.machine - cpu0.machine - (cpu1.browser - cpu0.browser))
  console.log(`  while streaming: the browser used ${((cpu1.browser - cpu0.browser) / span).toFixed(2)} cores, other programs ${(others / span).toFixed(2)} of ${cpus().length} cores`)
}
console.log(`first paint: ${firstPaints.map((f) => `FCP ${round(f.fcp)} ms, composer ${round(f.composer)} ms, ${(f.scriptBytes / 1000).toFixed(1)} kB of script in ${f.scripts} files before it`).join('; ')}`)
console.log(`idle warm-up after the composer showed: ${warmUpMs.map((v) => `${v} ms`).join(', ')} (measured after it)`)
console.log(`streaming: ${(text.length / 1000).toFixed(0)}k chars in ${round((t1 - t0) / 1000)} s (${Math.round(TOKENS / ((t1 - t0) / 1000))} tokens/s), ${(shownChars / 1000).toFixed(0)}k chars shown, peak ${streamNodes} message nodes`)
if (s.noLongtask) console.log(`(longtask observer unavailable: ${s.noLongtask})`)
console.log(`  Long Tasks API (wall time, tasks > 50 ms): ${during.length}${during.length ? ` — ms after Enter: duration ${during.slice(0, 10).map((t) => `${Math.round(t.start - t0)}: ${Math.round(t.duration)}`).join(', ')}${during.length > 10 ? ', …' : ''}` : ''}`)
console.log(`  trace, main thread: ${mainTasks.length} tasks, CPU busy ${Math.round((cpuBusy / (t1 - t0)) * 100)}% of the stream`)
console.log(`    longest by wall: ${byWall.slice(0, 5).map(fmtTask).join(', ')}`)
console.log(`    longest by CPU:  ${byCpu.slice(0, 5).map(fmtTask).join(', ')}`)
console.log(`    over 50 ms wall: ${overWall.length}; over 50 ms CPU: ${overCpu.length}${overWall.length ? ` (a task with far less CPU than wall time was preempted: the OS ran something else meanwhile)` : ''}`)
console.log(`history: open ${round(openMs)} ms with ${openNodes} message nodes; paged back through ${pages} older pages in ${round((p1 - p0) / 1000)} s, longest task while paging ${longestPagingText}`)
for (const r of results) console.log(`${r.ok ? 'PASS' : 'MISS'}  ${r.name}: ${r.value} (target ${r.target})`)
if (flag('strict') && results.some((r) => !r.ok)) process.exit(1)
