import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { InternalHooks, isInternalHookKey, loadInternalHooks } from './internal'
import type { HookLogger } from './types'

const lines: string[] = []
const logger: HookLogger = {
  warn: (m) => lines.push(`warn ${m}`),
  error: (m) => lines.push(`error ${m}`),
}
beforeEach(() => {
  lines.length = 0
})

describe('InternalHooks', () => {
  it('a handler that never settles is skipped after the time limit; later handlers still run', async () => {
    const h = new InternalHooks({ logger, timeoutMs: 50 })
    h.on('command:new', () => new Promise<void>(() => {}), 'state/stuck')
    h.on('command:new', (ev) => void ev.messages.push('after the stuck one'))
    const t0 = Date.now()
    expect(await h.runCommand('new', 'agent:main:main')).toEqual(['after the stuck one'])
    expect(Date.now() - t0).toBeLessThan(1000)
    expect(lines).toEqual(['error [internal-hooks] command:new hook "state/stuck" timed out after 50 ms; skipped'])
  })

  it('a handler that computes synchronously past the limit is stopped there and skipped; the next one runs', async () => {
    const h = new InternalHooks({ logger, timeoutMs: 50 })
    h.on(
      'command:new',
      (ev) => {
        ev.messages.push('started')
        const until = Date.now() + 3000
        while (Date.now() < until) {
          /* spin: no timer can fire meanwhile; only the cut-off ends it early */
        }
        ev.messages.push('finished')
      },
      'state/spin',
    )
    h.on('command:new', (ev) => void ev.messages.push('next'), 'state/next')
    const started = Date.now()
    // what it pushed before it was stopped is dropped with its copy of the event
    expect(await h.runCommand('new', 'agent:main:main')).toEqual(['next'])
    expect(Date.now() - started).toBeLessThan(2000)
    expect(lines).toEqual([
      expect.stringMatching(/^warn \[internal-hooks\] command:new hook "state\/spin" ran synchronously for \d+ ms \(limit 50 ms\) and blocked the app meanwhile; one still running at its limit is stopped/),
      'error [internal-hooks] command:new hook "state/spin" timed out after 50 ms; skipped',
    ])
  })

  it('agent:bootstrap: a handler stopped (or failing) half-way through editing the file list leaves it as it was', async () => {
    const h = new InternalHooks({ logger, timeoutMs: 50 })
    h.on('agent:bootstrap', (ev) => {
      const files = ev.context.bootstrapFiles as Array<{ name: string; content: string }>
      files[0].content = 'half'
      files.splice(1)
      for (;;) {
        /* stopped by the watchdog */
      }
    }, 'state/stopped')
    h.on('agent:bootstrap', (ev) => {
      ;(ev.context.bootstrapFiles as unknown[]).length = 0
      throw new Error('oops')
    }, 'state/throws')
    h.on('agent:bootstrap', (ev) => void (ev.context.bootstrapFiles as Array<{ name: string; content: string }>).push({ name: 'EXTRA.md', content: 'x' }), 'state/adds')
    const files = [
      { name: 'AGENTS.md', content: 'rules' },
      { name: 'SOUL.md', content: 'tone' },
    ]
    const out = await h.runBootstrap({ workspaceDir: '/w', sessionKey: 'k', bootstrapFiles: files })
    expect(out.files).toEqual([...files, { name: 'EXTRA.md', content: 'x' }])
    expect(files).toEqual([
      { name: 'AGENTS.md', content: 'rules' },
      { name: 'SOUL.md', content: 'tone' },
    ])
  })

  it('validates keys', () => {
    expect(isInternalHookKey('command')).toBe(true)
    expect(isInternalHookKey('command:new')).toBe(true)
    expect(isInternalHookKey('agent:bootstrap')).toBe(true)
    expect(isInternalHookKey('bogus:new')).toBe(false)
    expect(isInternalHookKey('command:')).toBe(false)
    expect(() => new InternalHooks({ logger }).on('nope', () => {})).toThrow(/invalid internal hook event/)
  })

  it('runs type handlers then specific handlers sequentially, isolating errors, collecting messages', async () => {
    const h = new InternalHooks({ logger })
    const order: string[] = []
    h.on('command:new', async (ev) => {
      await new Promise((r) => setTimeout(r, 5))
      order.push('specific-1')
      ev.messages.push('Started a fresh session.')
    })
    h.on('command', (ev) => {
      order.push(`type:${ev.action}`)
      ;(ev.context as { touched?: boolean }).touched = true
    })
    h.on('command:new', () => {
      order.push('specific-2-throws')
      throw new Error('hook bug')
    })
    h.on('command:new', (ev) => {
      order.push('specific-3')
      ev.messages.push(42 as never, 'second')
    })
    h.on('command:reset', () => void order.push('reset-only'))
    const context: Record<string, unknown> = {}
    const ev = await h.trigger('command', 'new', 'agent:main:main', context)
    expect(order).toEqual(['type:new', 'specific-1', 'specific-2-throws', 'specific-3'])
    expect(ev.messages).toEqual(['Started a fresh session.', 'second'])
    // handlers edit their copy; the event handed back carries it (the caller's own object is left alone)
    expect(ev.context.touched).toBe(true)
    expect(context.touched).toBeUndefined()
    expect(ev.timestamp).toBeInstanceOf(Date)
    expect(lines.some((l) => l.includes('command:new') && l.includes('hook bug'))).toBe(true)
    expect(await h.runCommand('new', 'k')).toEqual(['Started a fresh session.', 'second'])
    expect(await h.runCommand('stop', 'k')).toEqual([])
  })

  it('agent:bootstrap handlers add, remove and replace bootstrap files; malformed entries dropped', async () => {
    const h = new InternalHooks({ logger })
    h.on('agent:bootstrap', (ev) => {
      const files = ev.context.bootstrapFiles as Array<{ name: string; content: string }>
      const i = files.findIndex((f) => f.name === 'TOOLS.md')
      files.splice(i, 1)
      files.push({ name: 'EXTRA.md', content: 'extra rules' })
    })
    h.on('agent:bootstrap', (ev) => {
      ev.context.bootstrapFiles = [
        ...(ev.context.bootstrapFiles as unknown[]),
        { name: 'broken' },
        { name: 'NOTE.md', path: '/ws/NOTE.md', content: 'n' },
      ]
      ev.messages.push('bootstrap adjusted')
    })
    const original = [
      { name: 'AGENTS.md', content: 'a' },
      { name: 'TOOLS.md', content: 't' },
    ]
    const res = await h.runBootstrap({ workspaceDir: '/ws', sessionKey: 'agent:main:main', bootstrapFiles: original })
    expect(res.files).toEqual([
      { name: 'AGENTS.md', content: 'a' },
      { name: 'EXTRA.md', content: 'extra rules' },
      { name: 'NOTE.md', path: '/ws/NOTE.md', content: 'n' },
    ])
    expect(res.messages).toEqual(['bootstrap adjusted'])
    expect(original).toHaveLength(2) // the caller's array is not mutated
    expect(lines.filter((l) => l.includes('malformed'))).toHaveLength(1)
  })

  it('bootstrap keeps extra fields of the caller\'s file objects', async () => {
    const h = new InternalHooks({ logger })
    h.on('agent:bootstrap', (ev) => void (ev.context.bootstrapFiles as unknown[]).reverse())
    const files = [
      { name: 'A.md', path: '/w/A.md', content: 'a', truncated: true, originalChars: 99, missing: false },
      { name: 'B.md', path: '/w/B.md', content: 'b', truncated: false, originalChars: 1, missing: false },
    ]
    const res = await h.runBootstrap({ workspaceDir: '/w', sessionKey: 'k', bootstrapFiles: files })
    expect(res.files).toEqual([files[1], files[0]])
    expect(res.files[1].originalChars).toBe(99)
  })

  it('bootstrap without handlers returns the files unchanged; a non-array replacement keeps the original', async () => {
    const h = new InternalHooks({ logger })
    const files = [{ name: 'A.md', content: 'x' }]
    expect((await h.runBootstrap({ workspaceDir: '/w', sessionKey: 'k', bootstrapFiles: files })).files).toEqual(files)
    h.on('agent', (ev) => {
      ev.context.bootstrapFiles = 'oops'
    })
    expect((await h.runBootstrap({ workspaceDir: '/w', sessionKey: 'k', bootstrapFiles: files })).files).toEqual(files)
  })
})

describe('loadInternalHooks', () => {
  let root: string
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'loopdesk-ihooks-'))
  })
  afterEach(() => rmSync(root, { recursive: true, force: true }))

  function hook(base: string, name: string, file: string, text: string) {
    mkdirSync(join(root, base, name), { recursive: true })
    writeFileSync(join(root, base, name, file), text)
  }

  it('loads handler.mjs / handler.js from state and workspace roots and reports broken hooks', async () => {
    hook('state', 'greeter', 'handler.mjs', `export const events = ['command:new']
      export default function (ev) { ev.messages.push('hello from state ' + ev.sessionKey) }`)
    hook('ws', 'greeter', 'handler.js', `export const events = ['command:new', 'agent:bootstrap']
      export default async function (ev) {
        if (ev.type === 'agent') ev.context.bootstrapFiles.push({ name: 'WS.md', content: 'ws' })
        else ev.messages.push('hello from workspace')
      }`)
    writeFileSync(join(root, 'ws', 'package.json'), JSON.stringify({ type: 'module' }))
    hook('state', 'no-events', 'handler.mjs', `export default function () {}`)
    hook('state', 'bad-events', 'handler.mjs', `export const events = ['nope:x']; export default function () {}`)
    hook('state', 'syntax', 'handler.mjs', `export default function ( {`)
    hook('state', 'empty', 'README.md', 'x')
    hook('state', 'no-default', 'handler.mjs', `export const events = ['command:stop']`)

    const h = new InternalHooks({ logger })
    const res = await loadInternalHooks(h, {
      roots: [
        { label: 'state', dir: join(root, 'state') },
        { label: 'workspace', dir: join(root, 'ws') },
        { label: 'missing', dir: join(root, 'does-not-exist') },
      ],
      logger,
    })
    expect(res.loaded).toEqual(['state/greeter', 'workspace/greeter'])
    expect(res.failed.map((f) => f.id).sort()).toEqual([
      'state/bad-events',
      'state/empty',
      'state/no-default',
      'state/no-events',
      'state/syntax',
    ])
    expect(res.failed.find((f) => f.id === 'state/no-events')?.error).toMatch(/must export `events`/)
    expect(await h.runCommand('new', 'agent:main:main')).toEqual(['hello from state agent:main:main', 'hello from workspace'])
    const boot = await h.runBootstrap({ workspaceDir: '/w', sessionKey: 'k', bootstrapFiles: [] })
    expect(boot.files).toEqual([{ name: 'WS.md', content: 'ws' }])
  })

  it("stops a hook module whose top level loops (hooks.timeoutMs): reported as failed, the other hooks load", async () => {
    hook('state', 'spins', 'handler.mjs', `export const events = ['command:new']\nfor (;;) {}\nexport default function () {}`)
    hook('state', 'fine', 'handler.mjs', `export const events = ['command:new']\nexport default function (ev) { ev.messages.push('fine') }`)
    const h = new InternalHooks({ logger })
    const started = Date.now()
    const res = await loadInternalHooks(h, { roots: [{ label: 'state', dir: join(root, 'state') }], logger, timeoutMs: 200 })
    expect(Date.now() - started).toBeLessThan(3000)
    expect(res).toEqual({
      loaded: ['state/fine'],
      failed: [{ id: 'state/spins', error: 'failed to import: its top level ran past the time limit (200 ms) and was stopped' }],
    })
    expect(lines).toContain('error [internal-hooks] hook "state/spins" failed to load and was skipped: failed to import: its top level ran past the time limit (200 ms) and was stopped')
    expect(await h.runCommand('new', 'agent:main:main')).toEqual(['fine'])
  })
})
