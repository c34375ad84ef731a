// A plugin file edited after this process loaded it (a runtime created again in the same process) is loaded again,
// not served from require's cache; an unchanged one is the module already loaded (its top level runs once).
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { expect, it } from 'vitest'
import { loadModuleBounded } from './load-module'

it('an entry edited since it was required is imported again (said first, unbounded); an unchanged one is not', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ld-load-module-'))
  try {
    const entry = path.join(dir, 'index.mjs')
    fs.writeFileSync(entry, 'globalThis.__ldLoads = (globalThis.__ldLoads ?? 0) + 1\nexport const version = 1\n')
    const said: string[] = []
    const opts = { timeoutMs: 5000, onUnbounded: (why: string) => said.push(why) }
    expect((await loadModuleBounded(entry, opts)).version).toBe(1)
    expect((await loadModuleBounded(entry, opts)).version).toBe(1)
    expect((globalThis as { __ldLoads?: number }).__ldLoads).toBe(1)
    expect(said).toEqual([])
    fs.writeFileSync(entry, 'export const version = 2\n')
    const later = new Date(Date.now() + 5000)
    fs.utimesSync(entry, later, later)
    expect((await loadModuleBounded(entry, opts)).version).toBe(2)
    expect(said).toEqual(['the file changed since this process first loaded it'])
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
})
