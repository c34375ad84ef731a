// A stopped run used tokens (the turns it finished before the stop): its chat `aborted` event reports
// them and the session's totals — the window header's token count — include them.
import { expect, it } from 'vitest'
import type { ChatEvent } from '../../shared/events'
import { useTestRuntime } from '../../../test/fixtures/use-test-runtime'
import { until } from '../../../test/fixtures/until'

const env = useTestRuntime()

it("a stopped run's usage is reported and counted in the session's totals", async () => {
  const K = 'agent:main:main'
  env.server.script([{ toolCalls: [{ name: 'read', args: { path: 'notes.txt' } }], usage: { input: 100, output: 20 } }, { hang: true }])
  await env.t.call('chat.send', { sessionKey: K, message: 'go', idempotencyKey: 'st1' })
  await until(() => env.server.requests.length === 2, 8000)
  await env.t.call('chat.abort', { sessionKey: K, runId: 'st1' })
  await env.t.call('agent.wait', { runId: 'st1', timeoutMs: 5000 })
  const aborted = env.t.events.find((e) => e.event === 'chat' && e.payload.runId === 'st1' && (e.payload as ChatEvent).state === 'aborted')
  expect((aborted?.payload as ChatEvent | undefined)?.usage).toMatchObject({ input: 100, output: 20, totalTokens: 120 })
  await until(() => env.t.events.some((e) => e.event === 'sessions.changed' && e.payload.reason === 'end'), 5000)
  const row = (await env.t.call('sessions.list', {})).sessions.find((s) => s.key === K)
  expect(row).toMatchObject({ inputTokens: 100, outputTokens: 20, totalTokens: 120 })
})
