// A message that waits in its session's lane behind the session's running reply (a second `agent`, or a
// chat.send without queue modes) and is stopped before it starts is kept like one stopped right after its ack:
// its user turn and an empty "Stopped" reply — written in the place it had in the lane, i.e. after the running
// reply's turns (never inside them) and before any later message's, exactly once (a restart brings nothing back).
import fs from 'node:fs'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { startModelServer, type ModelServer } from '../../../../test/fixtures/model-server'
import { tempDir } from '../../../../test/fixtures/temp-dir'
import { startTestRuntime, type TestRuntime } from '../../../../test/fixtures/test-runtime'
import { until } from '../../../../test/fixtures/until'

let server: ModelServer
beforeAll(async () => {
  server = await startModelServer()
})
afterAll(async () => {
  await server?.close()
})

const textOf = (m: unknown) => ((m as { content?: Array<{ text?: string }> }).content ?? []).map((c) => c.text ?? '').join('')

/** chat.history as `role:text[:stopReason]` lines */
async function rows(t: TestRuntime, sessionKey: string): Promise<string[]> {
  return (await t.call('chat.history', { sessionKey })).messages.map((m) => {
    const r = m as unknown as { role: string; stopReason?: string }
    return `${r.role}:${textOf(m)}${r.stopReason === 'aborted' ? ':stopped' : ''}`
  })
}

/** the transcript's message entries as `runId:role` */
function entries(t: TestRuntime, sessionKey: string): string[] {
  const store = t.runtime.core.store('main')
  const file = store.transcriptPath(store.get(sessionKey)!.sessionId)
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l: string) => JSON.parse(l))
    .filter((e: { type: string }) => e.type === 'message')
    .map((e: { runId: string; message: { role: string } }) => `${e.runId}:${e.message.role}`)
}

const openRecords = (t: TestRuntime) => [...t.runtime.core.accepted('main').pending()].map((r) => r.runId)

it('chat.send without queue modes: stopped behind the running reply, written after it as user + Stopped', async () => {
  const t = await startTestRuntime(server, { runtime: { extensions: false } })
  try {
    const key = 'agent:main:lane-stop-chat'
    server.script([{ text: 'the first answer', chunks: 6, delayMs: 80 }])
    await t.call('chat.send', { sessionKey: key, message: 'first', idempotencyKey: 'lc1' })
    await until(() => server.inFlight() === 1, 5000)
    expect(await t.call('chat.send', { sessionKey: key, message: 'second', idempotencyKey: 'lc2' })).toMatchObject({ status: 'queued' })
    expect((await t.call('chat.abort', { sessionKey: key, runId: 'lc2' })).aborted).toBe(true)
    // it ends at once, not when the running reply ends
    expect((await t.call('agent.wait', { runId: 'lc2', timeoutMs: 2000 })).status).toBe('timeout')
    expect(t.runtime.core.runner.activeRun('lc1')).toBeDefined()
    // until the running reply is written, its record stays open
    expect(openRecords(t)).toContain('lc2')
    expect((await t.call('agent.wait', { runId: 'lc1', timeoutMs: 10_000 })).status).toBe('ok')
    await until(async () => (await rows(t, key)).length === 4, 5000)
    expect(await rows(t, key)).toEqual(['user:first', 'assistant:the first answer', 'user:second', 'assistant::stopped'])
    expect(entries(t, key)).toEqual(['lc1:user', 'lc1:assistant', 'lc2:user', 'lc2:assistant'])
    const last = (await t.call('chat.history', { sessionKey: key })).messages.at(-1) as unknown as Record<string, unknown>
    expect(last).toMatchObject({ aborted: true, openclawAbort: { aborted: true, origin: 'rpc', runId: 'lc2' } })
    await until(() => openRecords(t).length === 0, 5000)
  } finally {
    await t.close()
  }
})

it('agent: a stopped message keeps its place between the running reply and a later message; a restart adds nothing', async () => {
  const stateDir = tempDir('ld-lane-stop-')
  const key = 'agent:main:lane-stop-agent'
  let t = await startTestRuntime(server, { stateDir })
  try {
    server.script([{ text: 'answer one', chunks: 6, delayMs: 80 }, { text: 'answer three' }])
    await t.call('agent', { sessionKey: key, message: 'one', idempotencyKey: 'la1' })
    await until(() => server.inFlight() === 1, 5000)
    await t.call('agent', { sessionKey: key, message: 'two', idempotencyKey: 'la2' })
    await t.call('agent', { sessionKey: key, message: 'three', idempotencyKey: 'la3' })
    expect((await t.call('sessions.abort', { key, runId: 'la2' })).status).toBe('aborted')
    expect((await t.call('agent.wait', { runId: 'la2', timeoutMs: 2000 })).status).toBe('timeout')
    expect((await t.call('agent.wait', { runId: 'la3', timeoutMs: 10_000 })).status).toBe('ok')
    const want = ['user:one', 'assistant:answer one', 'user:two', 'assistant::stopped', 'user:three', 'assistant:answer three']
    expect(await rows(t, key)).toEqual(want)
    expect(entries(t, key)).toEqual(['la1:user', 'la1:assistant', 'la2:user', 'la2:assistant', 'la3:user', 'la3:assistant'])
    // the third run's model request carries the stopped message (its closing turn left out, as for any stop)
    expect(JSON.stringify(server.requests.at(-1))).toContain('two')
    await until(() => openRecords(t).length === 0, 5000)
    await t.close()
    t = await startTestRuntime(server, { stateDir })
    expect(await rows(t, key)).toEqual(want)
    expect(t.runtime.core.store('main').get(key)?.status).not.toBe('interrupted')
  } finally {
    await t.close()
  }
})

it('/stop stops the reply and the message behind it: both kept in order, with the stop-command origin', async () => {
  const t = await startTestRuntime(server)
  try {
    const key = 'agent:main:lane-stop-cmd'
    server.script([{ hang: true }])
    await t.call('agent', { sessionKey: key, message: 'one', idempotencyKey: 'ls1' })
    await until(() => server.inFlight() === 1, 5000)
    await t.call('agent', { sessionKey: key, message: 'two', idempotencyKey: 'ls2' })
    expect(await t.call('chat.send', { sessionKey: key, message: '/stop', idempotencyKey: 'ls-stop' })).toMatchObject({ status: 'command', aborted: true })
    await t.call('agent.wait', { runId: 'ls1', timeoutMs: 5000 })
    await until(async () => (await rows(t, key)).length === 4, 5000)
    expect(await rows(t, key)).toEqual(['user:one', 'assistant::stopped', 'user:two', 'assistant::stopped'])
    const last = (await t.call('chat.history', { sessionKey: key })).messages.at(-1) as unknown as Record<string, unknown>
    expect(last).toMatchObject({ openclawAbort: { origin: 'stop-command', runId: 'ls2' } })
  } finally {
    await t.close()
  }
})

it('a shutdown while the stopped message waits for its place writes it before the journal closes: a restart adds nothing', async () => {
  const stateDir = tempDir('ld-lane-stop-')
  const key = 'agent:main:lane-stop-shutdown'
  let t = await startTestRuntime(server, { stateDir })
  try {
    server.script([{ hang: true }])
    await t.call('agent', { sessionKey: key, message: 'one', idempotencyKey: 'lx1' })
    await until(() => server.inFlight() === 1, 5000)
    await t.call('agent', { sessionKey: key, message: 'two', idempotencyKey: 'lx2' })
    await t.call('chat.abort', { sessionKey: key, runId: 'lx2' })
    await t.call('agent.wait', { runId: 'lx2', timeoutMs: 2000 })
    await t.runtime.shutdown({ drainMs: 0 })
    t = await startTestRuntime(server, { stateDir })
    expect(await rows(t, key)).toEqual(['user:one', 'assistant::stopped', 'user:two', 'assistant::stopped'])
  } finally {
    await t.close()
  }
})
