// The built renderer's first paint: what index.html loads (the entry chunk and the chunks it imports
// statically) stays under Vite's 500 kB chunk warning, and the views not needed at first paint —
// Settings, the Inspector, the find bar, syntax highlighting — are chunks loaded later by dynamic import.
import { resolve } from 'node:path'
import { build, type Rollup } from 'vite'
import { beforeAll, describe, expect, it } from 'vitest'

const root = resolve(import.meta.dirname, '..')
let chunks: Rollup.OutputChunk[] = []

beforeAll(async () => {
  // as `npx vite build` does: under Vitest NODE_ENV is "test", which would bundle React's development build
  const env = process.env.NODE_ENV
  process.env.NODE_ENV = 'production'
  try {
    const out = (await build({ configFile: resolve(root, 'src/renderer/vite.config.ts'), mode: 'production', logLevel: 'silent', build: { write: false } })) as Rollup.RollupOutput
    chunks = out.output.filter((o): o is Rollup.OutputChunk => o.type === 'chunk')
  } finally {
    process.env.NODE_ENV = env
  }
}, 120_000)

/** The entry chunk and every chunk it imports statically: what loads before the first paint. */
function firstPaint(): Rollup.OutputChunk[] {
  const byName = new Map(chunks.map((c) => [c.fileName, c]))
  const seen = new Set<Rollup.OutputChunk>()
  const visit = (c: Rollup.OutputChunk) => {
    if (seen.has(c)) return
    seen.add(c)
    for (const f of c.imports) visit(byName.get(f)!)
  }
  for (const c of chunks) if (c.isEntry) visit(c)
  return [...seen]
}

/**
 * Modules only lazy chunks use, split off modules first paint needs: a module shared by the entry and a lazy chunk
 * is bundled whole into the entry, whatever part of it the entry uses.
 */
const onlyLazyUse = [
  '/shared/session-organisation.ts', // the FakeBridge's organisation patches (the sidebar's order: sidebar-order.ts)
  '/shared/message-search.ts', // the FakeBridge's message search (the conversation's find counts: search-text.ts)
  '/state/run-timelines.ts', // the Inspector's timelines (event-log.ts records from the start)
  '/components/picker-options.ts', // the model list's options (ModelPicker.tsx is the header's button)
]

/** Loaded after first paint by a dynamic import of their own (the idle warm-up or the start fetches them). */
const splitOff = [
  '/state/pairing.ts', // the pairing requests' logic, fetched at start (state/pairing-lazy.ts)
  '/components/SessionMenu.tsx', // a session row's "…" menu
  '/state/config-writes.ts', // config writes and their retries, loaded by the first save
  '/components/EditMessage.tsx', // a user message being edited in place
  '/components/OtherApprovals.tsx', // "N approvals wait in other sessions" above the message box
  '/renderer/src/warm-up.tsx', // the idle warm-up itself (main.tsx imports it after the start)
]

const modulesOf = (list: Rollup.OutputChunk[]) => list.flatMap((c) => c.moduleIds).map((id) => id.replaceAll('\\', '/'))

describe('renderer bundle', () => {
  it('no chunk is over 500 kB; what first paint loads is under it too', () => {
    for (const c of chunks) expect(c.code.length, c.fileName).toBeLessThan(500_000)
    const total = firstPaint().reduce((n, c) => n + c.code.length, 0)
    expect(total).toBeLessThan(500_000)
  })

  it('Settings, the Inspector and highlight.js load after first paint, the chat view before it', () => {
    const first = modulesOf(firstPaint())
    const later = modulesOf(chunks.filter((c) => !firstPaint().includes(c)))
    for (const lazy of ['/components/Settings.tsx', '/components/Inspector.tsx', '/components/FindBar.tsx', '/markdown/highlight.ts', '/node_modules/highlight.js/', '/node_modules/typebox/', ...onlyLazyUse, ...splitOff]) {
      expect(first.filter((id) => id.includes(lazy)), lazy).toEqual([])
    }
    for (const lazy of ['/components/Settings.tsx', '/components/Inspector.tsx', '/node_modules/highlight.js/', ...onlyLazyUse, ...splitOff]) {
      expect(later.some((id) => id.includes(lazy)), lazy).toBe(true)
    }
    for (const now of ['/components/Conversation.tsx', '/components/Composer.tsx', '/components/Onboarding.tsx', '/markdown/CodeBlock.tsx', '/node_modules/marked/']) {
      expect(first.some((id) => id.includes(now)), now).toBe(true)
    }
  })
})
