// A message the runtime accepted is never lost when its run ends before pi sent it: stopped right after the
// ack (with or without attachments), or a setup error (no API key). The transcript keeps the user turn, closed by
// the stop or the error as a later stop or failure leaves it, so a reload shows the same.
import { expect, it } from 'vitest'
import { useTestRuntime } from '../../../../test/fixtures/use-test-runtime'
import { until } from '../../../../test/fixtures/until'

const env = useTestRuntime()

const rowsOf = async (sessionKey: string) =>
  (await env.t.call('chat.history', { sessionKey })).messages.map((m) => m as unknown as Record<string, unknown>)

const textOf = (m: Record<string, unknown>) =>
  (m.content as Array<{ type: string; text?: string }>).map((c) => c.text ?? '').join('')

it('a Stop right after the ack keeps the message and its attachment reference, closed as stopped', async () => {
  const key = 'agent:main:keep-attach'
  const content = Buffer.from('x'.repeat(1024 * 1024)).toString('base64')
  const before = env.server.requests.length
  const ack = await env.t.call('chat.send', {
    sessionKey: key,
    message: 'my carefully written question',
    idempotencyKey: 'keep1',
    attachments: [{ type: 'file', mimeType: 'text/plain', fileName: 'notes.txt', content }],
  })
  expect(ack.status).toBe('started')
  const abort = await env.t.call('chat.abort', { sessionKey: key, runId: 'keep1' })
  expect(abort.aborted).toBe(true)
  expect((await env.t.call('agent.wait', { runId: 'keep1', timeoutMs: 5000 })).status).toBe('timeout') // aborted
  expect(env.server.requests.length).toBe(before) // the model was never asked
  const rows = await rowsOf(key)
  expect(rows.map((m) => m.role)).toEqual(['user', 'assistant'])
  expect(textOf(rows[0])).toContain('my carefully written question')
  expect(textOf(rows[0])).toContain('notes.txt')
  expect(rows[1]).toMatchObject({ stopReason: 'aborted', aborted: true, openclawAbort: { aborted: true, origin: 'rpc', runId: 'keep1' } })
  expect(textOf(rows[1])).toBe('')
})

it('a Stop right after the ack without attachments keeps the message', async () => {
  for (const i of [0, 1, 2]) {
    const key = `agent:main:keep-plain-${i}`
    await env.t.call('chat.send', { sessionKey: key, message: `question ${i}`, idempotencyKey: `keepp${i}` })
    await env.t.call('chat.abort', { sessionKey: key, runId: `keepp${i}` })
    await env.t.call('agent.wait', { runId: `keepp${i}`, timeoutMs: 5000 })
    const rows = await rowsOf(key)
    expect(rows.map((m) => `${m.role}:${m.stopReason ?? ''}`)).toEqual(['user:', 'assistant:aborted'])
    expect(textOf(rows[0])).toBe(`question ${i}`)
  }
})

it('a setup error (no API key) keeps the message, closed by the error', async () => {
  const key = 'agent:main:nokey'
  const ack = await env.t.call('agent', { sessionKey: key, message: 'my carefully written question', idempotencyKey: 'nokey1', model: 'openai/gpt-4o' })
  expect(ack.status).toBe('accepted')
  const w = await env.t.call('agent.wait', { runId: 'nokey1', timeoutMs: 5000 })
  expect(w.status).toBe('error')
  const rows = await rowsOf(key)
  expect(rows.map((m) => m.role)).toEqual(['user', 'assistant'])
  expect(textOf(rows[0])).toBe('my carefully written question')
  expect(rows[1].stopReason).toBe('error')
  expect(String(rows[1].errorMessage)).toBe(w.error)
  // the next run's model request leaves the failed turn out and carries both messages
  env.server.script([{ text: 'fine' }])
  const before = env.server.requests.length
  await env.t.call('agent', { sessionKey: key, message: 'again', idempotencyKey: 'nokey2' })
  expect((await env.t.call('agent.wait', { runId: 'nokey2', timeoutMs: 5000 })).status).toBe('ok')
  await until(() => env.server.requests.length > before, 5000)
  const sent = JSON.stringify(env.server.requests.at(-1))
  expect(sent).toContain('my carefully written question')
  expect(sent).toContain('again')
})

