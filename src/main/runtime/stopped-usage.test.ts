// A stopped run used tokens (the turns it finished before the stop): its chat `aborted` event reports
// them and the session's totals — the window header's token count — include them.
import { afterAll, beforeAll, expect, it } from 'vitest'
import type { ChatEvent } from '../../shared/events'
import { startModelServer, type ModelServer } from '../../../test/fixtures/model-server'
import { startTestRuntime, type TestRuntime } from '../../../test/fixtures/test-runtime'
import { until } from '../../../test/fixtures/until'

let server: ModelServer
let t: TestRuntime
beforeAll(async () => {
  server = await startModelServer()
  t = await startTestRuntime(server)
})
afterAll(async () => {
  await t?.close()
  await server?.close()
})

it("a stopped run's usage is reported and counted in the session's totals", async () => {
  const K = 'agent:main:main'
  server.script([{ toolCalls: [{ name: 'read', args: { path: 'notes.txt' } }], usage: { input: 100, output: 20 } }, { hang: true }])
  await t.call('chat.send', { sessionKey: K, message: 'go', idempotencyKey: 'st1' })
  await until(() => server.requests.length === 2, 8000)
  await t.call('chat.abort', { sessionKey: K, runId: 'st1' })
  await t.call('agent.wait', { runId: 'st1', timeoutMs: 5000 })
  const aborted = t.events.find((e) => e.event === 'chat' && e.payload.runId === 'st1' && (e.payload as ChatEvent).state === 'aborted')
  expect((aborted?.payload as ChatEvent | undefined)?.usage).toMatchObject({ input: 100, output: 20, totalTokens: 120 })
  await until(() => t.events.some((e) => e.event === 'sessions.changed' && e.payload.reason === 'end'), 5000)
  const row = (await t.call('sessions.list', {})).sessions.find((s) => s.key === K)
  expect(row).toMatchObject({ inputTokens: 100, outputTokens: 20, totalTokens: 120 })
})
