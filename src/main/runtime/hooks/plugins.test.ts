import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { loadPlugins } from './plugins'
import { HookRegistry } from './registry'
import type { HookLogger } from './types'

let dir: string
const lines: string[] = []
const logger: HookLogger = {
  info: (m) => lines.push(`info ${m}`),
  warn: (m) => lines.push(`warn ${m}`),
  error: (m) => lines.push(`error ${m}`),
}

function plugin(id: string, files: Record<string, string>) {
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, id, name)), { recursive: true })
    writeFileSync(join(dir, id, name), text)
  }
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'loopdesk-plugins-'))
  lines.length = 0
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

describe('loadPlugins', () => {
  it('returns empty results when the plugins folder does not exist', async () => {
    const r = new HookRegistry({ logger })
    expect(await loadPlugins(r, { dir: join(dir, 'missing'), logger })).toEqual({ loaded: [], failed: [], skipped: [] })
  })

  it('loads good plugins (index.mjs, index.js, package.json main, default export) and isolates every kind of broken one', async () => {
    plugin('a-good', {
      'index.mjs': `export function register(api) {
        api.logger.info('hello from ' + api.id)
        api.register('before_tool_call', (ev) => ev.toolName === 'exec' ? { block: true, blockReason: 'a-good says no' } : undefined, { priority: 5 })
      }`,
    })
    plugin('b-js', {
      'package.json': JSON.stringify({ type: 'module' }),
      'index.js': `export const register = (api) => api.on('before_agent_start', () => ({ prependContext: 'from b' }))`,
    })
    plugin('c-main', {
      'package.json': JSON.stringify({ type: 'module', main: 'lib/entry.mjs' }),
      'lib/entry.mjs': `export default { register(api) { api.register('agent_end', () => {}) } }`,
    })
    plugin('d-async', {
      'index.mjs': `export async function register(api) { await new Promise(r => setTimeout(r, 5)); api.register('message_sending', () => ({ content: 'async ok' })) }`,
    })
    // broken kinds
    plugin('e-syntax', { 'index.mjs': `export function register(api) { this is not javascript` })
    plugin('f-throws', {
      'index.mjs': `export function register(api) {
        api.register('before_agent_start', () => ({ systemPrompt: 'SHOULD NOT SURVIVE' }))
        throw new Error('register exploded')
      }`,
    })
    plugin('g-noexport', { 'index.mjs': `export const notRegister = 1` })
    plugin('h-rejects', {
      'index.mjs': `export async function register(api) {
        api.register('agent_end', () => {})
        throw new Error('async register failed')
      }`,
    })
    plugin('i-noentry', { 'README.md': 'nothing here' })
    writeFileSync(join(dir, 'not-a-folder.mjs'), 'export function register() {}')
    plugin('j-badpkg', { 'package.json': '{ not json' })
    plugin('k-import-throws', { 'index.mjs': `throw new Error('top-level boom'); export function register() {}` })
    plugin('l-unknown-hook', {
      'index.mjs': `export function register(api) { api.register('llm_input', () => {}); api.register('agent_end', () => {}) }`,
    })

    const r = new HookRegistry({ logger })
    const res = await loadPlugins(r, { dir, logger })
    expect(res.loaded).toEqual(['a-good', 'b-js', 'c-main', 'd-async', 'l-unknown-hook'])
    const failed = Object.fromEntries(res.failed.map((f) => [f.id, f.error]))
    expect(Object.keys(failed).sort()).toEqual(['e-syntax', 'f-throws', 'g-noexport', 'h-rejects', 'i-noentry', 'j-badpkg', 'k-import-throws'])
    expect(failed['e-syntax']).toMatch(/failed to import/)
    expect(failed['f-throws']).toMatch(/register exploded/)
    expect(failed['g-noexport']).toMatch(/does not export register/)
    expect(failed['h-rejects']).toMatch(/async register failed/)
    expect(failed['i-noentry']).toMatch(/no entry module/)
    expect(failed['j-badpkg']).toMatch(/package.json is not valid JSON/)
    expect(failed['k-import-throws']).toMatch(/top-level boom/)

    // Hooks from failed plugins were removed; good ones work.
    expect(await r.runBeforeAgentStart({ prompt: 'x' }, {})).toEqual({ prependContext: 'from b' })
    expect(r.count('agent_end')).toBe(2) // c-main + l-unknown-hook
    const blocked = await r.runBeforeToolCall({ toolName: 'exec', params: {} }, { toolName: 'exec' })
    expect(blocked).toMatchObject({ block: true, blockReason: 'a-good says no' })
    expect((await r.runMessageSending({ to: 'u', content: 'x' }, {})).content).toBe('async ok')
    expect(lines).toContain('info [plugin a-good] hello from a-good')
    expect(lines.some((l) => l.startsWith('warn [plugin l-unknown-hook]') && l.includes('llm_input'))).toBe(true)
    expect(lines.filter((l) => l.startsWith('error [plugins]'))).toHaveLength(7)
  })

  it('skips disabled plugins and times out a register that never settles', async () => {
    plugin('off', { 'index.mjs': `export function register(api) { api.register('agent_end', () => {}) }` })
    plugin('hangs', {
      'index.mjs': `export function register(api) { return new Promise(() => {}) }`,
    })
    const r = new HookRegistry({ logger })
    const res = await loadPlugins(r, { dir, logger, disabled: ['off'], timeoutMs: 50 })
    expect(res.skipped).toEqual(['off'])
    expect(res.loaded).toEqual([])
    expect(res.failed).toEqual([
      { id: 'hangs', error: 'register(api) did not finish within the time limit (50 ms)', timedOut: { phase: 'register', timeoutMs: 50 } },
    ])
    expect(r.count()).toBe(0)
  })

  it('stops a register(api) that loops: the plugin fails to load (named, with the limit), its hooks are removed, the next plugins load', async () => {
    plugin('a-loops', {
      'index.mjs': `export function register(api) {
        api.register('before_agent_start', () => ({ systemPrompt: 'SHOULD NOT SURVIVE' }))
        for (;;) {}
      }`,
    })
    // after its first await: the promise is bounded; what it registers late is refused
    plugin('b-late', {
      'index.mjs': `export async function register(api) {
        await new Promise((r) => setTimeout(r, 400))
        try { api.register('agent_end', () => {}) } catch (e) { globalThis.__ldLateRefused = String(e.message) }
      }`,
    })
    plugin('c-fine', { 'index.mjs': `export function register(api) { api.register('before_agent_start', () => ({ prependContext: 'fine' })) }` })
    const r = new HookRegistry({ logger })
    const started = Date.now()
    const res = await loadPlugins(r, { dir, logger, timeoutMs: 200 })
    expect(Date.now() - started).toBeLessThan(3000)
    expect(res.loaded).toEqual(['c-fine'])
    expect(res.failed).toEqual([
      { id: 'a-loops', error: 'register(api) ran past the time limit (200 ms) and was stopped', timedOut: { phase: 'register', timeoutMs: 200 } },
      { id: 'b-late', error: 'register(api) did not finish within the time limit (200 ms)', timedOut: { phase: 'register', timeoutMs: 200 } },
    ])
    expect(lines).toContain('error [plugins] plugin "a-loops" failed to load and was skipped: register(api) ran past the time limit (200 ms) and was stopped')
    expect(await r.runBeforeAgentStart({ prompt: 'x' }, {})).toEqual({ prependContext: 'fine' })
    await new Promise((res) => setTimeout(res, 400))
    expect((globalThis as { __ldLateRefused?: string }).__ldLateRefused).toMatch(/plugin "b-late" failed to load; late hook registration refused/)
    expect(r.count()).toBe(1)
  })

  it('a register(api) that settles past the limit (its code after an await held the thread) fails to load too', async () => {
    plugin('late', {
      'index.mjs': `export async function register(api) {
        await null
        const until = Date.now() + 300
        while (Date.now() < until) {}
        api.on('agent_end', () => {})
      }`,
    })
    const r = new HookRegistry({ logger })
    const res = await loadPlugins(r, { dir, logger, timeoutMs: 100 })
    expect(res.failed).toEqual([
      { id: 'late', error: 'register(api) did not finish within the time limit (100 ms)', timedOut: { phase: 'register', timeoutMs: 100 } },
    ])
    expect(r.count()).toBe(0)
  })

  it("stops a module whose top level loops; it is evaluated once, and not again in this process", async () => {
    plugin('a-spins', { 'index.mjs': `globalThis.__ldSpins = (globalThis.__ldSpins ?? 0) + 1\nfor (;;) {}\nexport function register() {}` })
    // the loop in a module it imports counts too
    plugin('b-dep-spins', { 'index.mjs': `import './lib.mjs'\nexport function register() {}`, 'lib.mjs': `while (true) {}` })
    plugin('c-fine', { 'index.mjs': `export function register(api) { api.register('agent_end', () => {}) }` })
    const r = new HookRegistry({ logger })
    const started = Date.now()
    const res = await loadPlugins(r, { dir, logger, timeoutMs: 200 })
    expect(Date.now() - started).toBeLessThan(3000)
    expect(res.loaded).toEqual(['c-fine'])
    const stopped = "its module's top level ran past the time limit (200 ms) and was stopped"
    expect(res.failed).toEqual([
      { id: 'a-spins', error: stopped, timedOut: { phase: 'module', timeoutMs: 200 } },
      { id: 'b-dep-spins', error: stopped, timedOut: { phase: 'module', timeoutMs: 200 } },
    ])
    expect(lines).toContain(`error [plugins] plugin "a-spins" failed to load and was skipped: ${stopped}`)
    const again = await loadPlugins(new HookRegistry({ logger }), { dir, logger, timeoutMs: 200 })
    expect(again.loaded).toEqual(['c-fine'])
    expect(again.failed.map((f) => [f.id, f.error])).toEqual([
      ['a-spins', expect.stringMatching(/stopped at its time limit earlier in this process; restart Loopdesk/)],
      ['b-dep-spins', expect.stringMatching(/stopped at its time limit earlier in this process; restart Loopdesk/)],
    ])
    expect((globalThis as { __ldSpins?: number }).__ldSpins).toBe(1)
  })

  it('runs each top level once; a CommonJS plugin loads as import() would show it; top-level await loads unbounded, named in the log first', async () => {
    plugin('a-esm', { 'index.mjs': `globalThis.__ldOnce = (globalThis.__ldOnce ?? 0) + 1\nexport function register(api) { api.on('agent_end', () => {}) }` })
    plugin('b-cjs', {
      'package.json': JSON.stringify({ type: 'commonjs' }),
      'index.js': `module.exports = function register(api) { api.on('agent_end', () => {}) }`,
    })
    plugin('c-tla', {
      'index.mjs': `globalThis.__ldTla = (globalThis.__ldTla ?? 0) + 1\nawait new Promise((r) => setTimeout(r, 5))\nexport function register(api) { api.on('agent_end', () => {}) }`,
    })
    const r = new HookRegistry({ logger })
    const res = await loadPlugins(r, { dir, logger, timeoutMs: 2000 })
    expect(res).toEqual({ loaded: ['a-esm', 'b-cjs', 'c-tla'], failed: [], skipped: [] })
    expect(r.count('agent_end')).toBe(3)
    // loaded again (a second runtime in this process): the same modules, not evaluated again
    expect((await loadPlugins(new HookRegistry({ logger }), { dir, logger, timeoutMs: 2000 })).loaded).toHaveLength(3)
    const g = globalThis as { __ldOnce?: number; __ldTla?: number }
    expect([g.__ldOnce, g.__ldTla]).toEqual([1, 1])
    expect(lines.filter((l) => l.includes('without a time limit'))).toEqual([
      'warn [plugins] loading plugin "c-tla" without a time limit on its top level: it uses top-level await',
      'warn [plugins] loading plugin "c-tla" without a time limit on its top level: it uses top-level await',
    ])
  })

  it('refuses a package.json main that escapes the plugin folder', async () => {
    writeFileSync(join(dir, 'outside.mjs'), `export function register() {}`)
    plugin('escape', { 'package.json': JSON.stringify({ main: '../outside.mjs' }) })
    const res = await loadPlugins(new HookRegistry({ logger }), { dir, logger })
    expect(res.failed[0]).toMatchObject({ id: 'escape', error: expect.stringMatching(/outside the plugin folder/) })
  })
})
