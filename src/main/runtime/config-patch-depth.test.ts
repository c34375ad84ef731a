// A config patch nested ~100k levels deep ran the runtime's stack out (UNAVAILABLE "Maximum call stack size
// exceeded"): now refused up front, as an object or as raw text, with the limit named and nothing written —
// likewise any method's params (sessions.patch) and `loopdesk config set` before it sends anything.
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCliCaptured } from '../../../test/fixtures/cli-io'
import { startModelServer, type ModelServer } from '../../../test/fixtures/model-server'
import { tempDir } from '../../../test/fixtures/temp-dir'
import { startTestRuntime, type TestRuntime } from '../../../test/fixtures/test-runtime'

const nested = (levels: number) => {
  let v: unknown = 1
  for (let i = 0; i < levels; i++) v = { a: v }
  return v as Record<string, unknown>
}

let server: ModelServer
let t: TestRuntime
beforeAll(async () => {
  server = await startModelServer({})
  t = await startTestRuntime(server)
})
afterAll(async () => {
  await t.close()
  await server.close()
})

describe('deeply nested params', () => {
  it('config.patch: a 100k-level patch, object or raw, and a raw one of too many values: INVALID_REQUEST naming the limit, file untouched', async () => {
    const file = path.join(t.stateDir, 'loopdesk.json')
    const before = fs.readFileSync(file, 'utf8')
    const asObject = await t.raw('config.patch', { patch: { agents: nested(100_000) } })
    expect(asObject).toMatchObject({ ok: false, error: { code: 'INVALID_REQUEST', details: { code: 'TOO_DEEP' } } })
    if (asObject.ok) return
    expect(asObject.error.message).toMatch(/^invalid config\.patch params: nested deeper than 64 levels \(the limit\) at \/patch\/agents\/a\//)

    const asRaw = await t.raw('config.patch', { raw: '{"agents":' + '{"a":'.repeat(100_000) + '1' + '}'.repeat(100_001) })
    expect(asRaw).toMatchObject({ ok: false, error: { code: 'INVALID_REQUEST', message: 'config.patch raw: nested deeper than 64 levels (the limit)' } })
    const wide = await t.raw('config.patch', { raw: `{"plugins":{"x":[${new Array(120_000).fill(0).join(',')}]}}` })
    expect(wide).toMatchObject({ ok: false, error: { code: 'INVALID_REQUEST', message: 'config.patch raw: more than 100,000 values (the limit)' } })
    expect(fs.readFileSync(file, 'utf8')).toBe(before)
    // a patch of ordinary depth still goes through
    expect(await t.call('config.patch', { patch: { agents: { defaults: { timeoutSeconds: 90 } } } })).toMatchObject({ ok: true })
  })

  it('sessions.patch and any other method: refused the same way before the schema walks it', async () => {
    const r = await t.raw('sessions.patch', { key: 'agent:main:deep', label: nested(100_000) })
    expect(r).toMatchObject({ ok: false, error: { code: 'INVALID_REQUEST', details: { code: 'TOO_DEEP' } } })
  })

  it('loopdesk config set: a value nested too deep is refused before any request, with the limit', async () => {
    const deep = '{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000)
    // a gateway URL nothing listens on: the refusal comes first
    const r = await runCliCaptured(['config', 'set', 'plugins.x', deep, '--url', 'ws://127.0.0.1:1', '--token', 'x'.repeat(24), '--state-dir', tempDir('ld-deep-cli-')], {})
    expect(r.err).toContain('config set: the value is nested deeper than 64 levels (the limit)')
    expect(r.code).toBe(2)
  })
})
