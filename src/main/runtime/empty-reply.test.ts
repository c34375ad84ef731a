// A run whose model wrote nothing ends with lifecycle `emptyReply: true`, so the window can say so instead of
// a bare "Done"; a reply cut at the output limit keeps pi's stopReason "length" on lifecycle end.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startModelServer, type ModelServer } from '../../../test/fixtures/model-server'
import { startTestRuntime, type TestRuntime } from '../../../test/fixtures/test-runtime'

let server: ModelServer
let t: TestRuntime
beforeAll(async () => {
  server = await startModelServer({ fallback: { text: 'ok' } })
  t = await startTestRuntime(server)
})
afterAll(async () => {
  await t?.close()
  await server?.close()
})

const endOf = (runId: string) =>
  t.events.find((e) => e.event === 'agent' && e.payload.runId === runId && e.payload.stream === 'lifecycle' && e.payload.data.phase === 'end')
    ?.payload as { data: Record<string, unknown> } | undefined

async function run(id: string) {
  await t.call('agent', { message: 'hi', idempotencyKey: id, sessionKey: 'agent:main:empty' })
  return t.call('agent.wait', { runId: id, timeoutMs: 10_000 })
}

describe('lifecycle end says what kind of reply it was', () => {
  it('empty: emptyReply; text: none; NO_REPLY: none (a deliberate silence)', async () => {
    server.push({ text: '' })
    expect((await run('e1')).status).toBe('ok')
    expect(endOf('e1')?.data).toMatchObject({ phase: 'end', emptyReply: true })
    server.push({ text: 'Here you go.' })
    await run('e2')
    expect(endOf('e2')?.data.emptyReply).toBeUndefined()
    server.push({ text: 'NO_REPLY' })
    await run('e3')
    expect(endOf('e3')?.data.emptyReply).toBeUndefined()
  })
})
