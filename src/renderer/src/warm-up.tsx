// One-time costs paid while the app is idle, so the first reply streams as smoothly as the tenth:
// the highlighter's chunk loads (it is not part of first paint), highlight.js compiles each grammar
// on first use (10–40 ms each), marked builds its rules, the first number formatter loads ICU data
// (~20 ms, the moment a run's token count first shows), and the JIT compiles the message views the
// first time they render. Last, the chunks of Settings and the Inspector are fetched, so opening them
// does not wait. Each step runs in its own idle callback, so the warm-up itself never makes a long task.
import { Lexer } from 'marked'
import { flushSync } from 'react-dom'
import { createRoot } from 'react-dom/client'
import { AppContext, type AppContextValue } from './app-context'
import { ItemView } from './components/Messages'
import { formatInt } from './lib/format'
import {
  preloadApprovalBatch,
  preloadOtherApprovals,
  preloadEditMessage,
  preloadFileChange,
  preloadFindBar,
  preloadForkOrigin,
  preloadInspector,
  preloadModelList,
  preloadSessionMenu,
  preloadSettings,
  preloadToolGroup,
} from './lazy-views'
import { loadHighlighter, type Highlighter } from './markdown/highlighter'
import { LANGUAGE_NAMES } from './markdown/languages'
import type { Item } from './state/types'

const SAMPLE_MARKDOWN = [
  '## Heading',
  'A paragraph with **bold**, *emphasis*, `code` and a [link](https://example.com).',
  '- item one\n- item two with `code`\n- [x] a task',
  '1. first\n2. second',
  '> a quote',
  '| a | b |\n|---|---|\n| 1 | 2 |',
  '```ts\nexport function f(x: number): number {\n  return x * 2 // double\n}\n```',
].join('\n\n')

/** What a conversation shows: rendered once, off-screen, to warm up the views. */
function sampleItems(): Item[] {
  const runId = 'warm-up'
  return [
    { kind: 'user', key: 'warm-up:user', runId, ts: 0, text: 'warm up' },
    { kind: 'assistant', key: 'warm-up:a0', runId, ts: 0, text: SAMPLE_MARKDOWN, streaming: true },
    { kind: 'assistant', key: 'warm-up:a1', runId, ts: 0, text: SAMPLE_MARKDOWN, streaming: false },
    { kind: 'tool', key: 'warm-up:tool', runId, ts: 0, toolCallId: 'warm-up', name: 'exec', args: { command: 'ls' }, status: 'done', result: { content: [{ type: 'text', text: 'a' }] } },
    { kind: 'run', key: 'warm-up:run', runId, ts: 0, status: 'done', startedAt: 0, endedAt: 1000 },
  ]
}

/** Renders the sample into a detached element (no layout, no paint) and throws it away. */
export function renderSample(ctx: AppContextValue): void {
  const host = document.createElement('div')
  const root = createRoot(host)
  try {
    flushSync(() =>
      root.render(
        <AppContext.Provider value={ctx}>
          {sampleItems().map((item) => (
            <ItemView key={item.key} item={item} sessionKey="warm-up" />
          ))}
        </AppContext.Provider>,
      ),
    )
  } finally {
    root.unmount()
  }
}

type Idle = (cb: () => void) => void

const onIdle: Idle = (cb) => {
  if (typeof requestIdleCallback === 'function') requestIdleCallback(cb, { timeout: 3000 })
  else setTimeout(cb, 200)
}

/** User Timing mark set when the warm-up is complete (the UI bench waits for it, as a user would
 * type for a moment before the first message). */
export const WARM_UP_DONE_MARK = 'loopdesk:warm-up-done'

/** Queues the warm-up steps, one per idle period (a step that loads a chunk: once it is here). */
export function warmUp(ctx: AppContextValue, idle: Idle = onIdle): void {
  let hl: Highlighter | undefined
  const steps: Array<() => void | Promise<unknown>> = [
    async () => {
      hl = await loadHighlighter()
    },
    ...LANGUAGE_NAMES.map((name) => () => hl?.warmUpLanguage(name)),
    () => void formatInt(12345),
    () => void Lexer.lex(SAMPLE_MARKDOWN),
    () => renderSample(ctx),
    () =>
      Promise.all([
        preloadSettings(),
        preloadInspector(),
        preloadFindBar(),
        preloadModelList(),
        preloadFileChange(),
        preloadToolGroup(),
        preloadForkOrigin(),
        preloadApprovalBatch(),
        preloadOtherApprovals(),
        preloadSessionMenu(),
        preloadEditMessage(),
      ]),
  ]
  const next = () => {
    const step = steps.shift()
    if (!step) {
      performance.mark?.(WARM_UP_DONE_MARK)
      return
    }
    let pending: void | Promise<unknown> = undefined
    try {
      pending = step()
    } catch {
      // warming up is best effort: the real render reports real problems
    }
    if (pending) void pending.catch(() => undefined).then(() => idle(next))
    else idle(next)
  }
  idle(next)
}
