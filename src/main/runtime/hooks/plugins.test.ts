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
    const res = await loadPlugins(r, { dir, logger, disabled: ['off'], registerTimeoutMs: 50 })
    expect(res.skipped).toEqual(['off'])
    expect(res.loaded).toEqual([])
    expect(res.failed).toEqual([{ id: 'hangs', error: expect.stringMatching(/did not finish within 50 ms/) }])
    expect(r.count()).toBe(0)
  })

  it('refuses a package.json main that escapes the plugin folder', async () => {
    writeFileSync(join(dir, 'outside.mjs'), `export function register() {}`)
    plugin('escape', { 'package.json': JSON.stringify({ main: '../outside.mjs' }) })
    const res = await loadPlugins(new HookRegistry({ logger }), { dir, logger })
    expect(res.failed[0]).toMatchObject({ id: 'escape', error: expect.stringMatching(/outside the plugin folder/) })
  })
})
