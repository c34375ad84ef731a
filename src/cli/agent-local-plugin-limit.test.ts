// `loopdesk agent --local` with a plugin that loops (in register(api), or at its module's top level): the runtime
// starts without it, at hooks.timeoutMs, and the message is answered — it used to hang before the first line.
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, expect, it, vi } from 'vitest'
import { runCliCaptured } from '../../test/fixtures/cli-io'
import { startModelServer, type ModelServer } from '../../test/fixtures/model-server'
import { tempDir } from '../../test/fixtures/temp-dir'
import { testConfig } from '../../test/fixtures/test-runtime'

let server: ModelServer
beforeAll(async () => {
  server = await startModelServer({ fallback: { text: 'answered' } })
})
afterAll(() => server.close())

it('a looping plugin fails to load (named in the log with the limit); the agent answers', async () => {
  const state = tempDir('loopdesk-cli-plugin-limit-')
  fs.writeFileSync(path.join(state, 'loopdesk.json'), JSON.stringify(testConfig(server, { hooks: { timeoutMs: 300 } })))
  const plugin = (id: string, text: string) => {
    fs.mkdirSync(path.join(state, 'plugins', id), { recursive: true })
    fs.writeFileSync(path.join(state, 'plugins', id, 'index.mjs'), text)
  }
  plugin('spins-in-register', `export function register(api) { for (;;) {} }`)
  plugin('spins-at-top', `while (true) {}\nexport function register() {}`)
  const logged: string[] = []
  const spy = vi.spyOn(console, 'error').mockImplementation((m: unknown) => void logged.push(String(m)))
  try {
    const started = Date.now()
    const r = await runCliCaptured(['agent', '--local', '-m', 'hi', '--session-key', 'agent:main:plugins', '--state-dir', state], {})
    expect(r.code, r.err).toBe(0)
    expect(r.out).toBe('answered\n')
    expect(Date.now() - started).toBeLessThan(10_000)
  } finally {
    spy.mockRestore()
  }
  expect(logged).toContain('[plugins] plugin "spins-in-register" failed to load and was skipped: register(api) ran past the time limit (300 ms) and was stopped')
  expect(logged).toContain('[plugins] plugin "spins-at-top" failed to load and was skipped: its module\'s top level ran past the time limit (300 ms) and was stopped')
})
