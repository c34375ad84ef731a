// A paused (held) follow-up across a restart: it comes back held and, once released, runs the way its request
// asked (thinking level, timeout), and a steered message that came back to the queue while it was held is
// kept held too. The real runtime twice on one state dir, the real pi client and the scripted model server.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startModelServer, type ModelServer } from '../../../../test/fixtures/model-server'
import { startTestRuntime, testConfig, type TestRuntime } from '../../../../test/fixtures/test-runtime'
import { until } from '../../../../test/fixtures/until'

let server: ModelServer
beforeAll(async () => {
  server = await startModelServer()
})
afterAll(() => server.close())

const K = 'agent:main:main'
const quietExtensions = { logger: { warn: () => {}, error: () => {}, info: () => {} }, loadPlugins: false, loadInternalHooks: false }

function stateDirWithConfig(): string {
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ld-paused-'))
  // a reasoning model: the thinking level shows in the request (reasoning_effort)
  const config = testConfig(server, {
    models: { providers: { mock: { baseUrl: server.openaiBaseUrl, api: 'openai-completions', models: [{ id: 'm1', contextWindow: 32000, maxTokens: 1024, reasoning: true }] } } },
  })
  fs.writeFileSync(path.join(stateDir, 'loopdesk.json'), JSON.stringify(config))
  return stateDir
}

const start = (stateDir: string) => startTestRuntime(server, { stateDir, runtime: { extensions: quietExtensions } })

/** A slow first reply is streaming in `t` (the session is busy). */
async function busy(t: TestRuntime, runId: string): Promise<void> {
  server.script([{ text: 'a b c d e f g h i j k l m n o p', chunks: 16, delayMs: 200 }])
  await t.call('chat.send', { sessionKey: K, message: 'tell me a long story', idempotencyKey: runId })
  await until(() => t.events.some((e) => e.event === 'agent' && e.payload.runId === runId && e.payload.stream === 'assistant'), 10_000)
}

/** The window's Stop: hold what waits, then abort the running reply. */
async function stop(t: TestRuntime, runId: string): Promise<void> {
  await t.call('loopdesk.queue.hold', { sessionKey: K })
  await t.call('chat.abort', { sessionKey: K, runId })
  await t.call('agent.wait', { runId, timeoutMs: 10_000 })
}

describe('a paused message across a restart', () => {
  it('released after the restart, it runs with the thinking level and timeout its chat.send asked for', async () => {
    const stateDir = stateDirWithConfig()
    const first = await start(stateDir)
    try {
      await busy(first, 'first')
      const q = await first.call('chat.send', { sessionKey: K, message: 'the PAUSED one', idempotencyKey: 'second', queueMode: 'followup', thinking: 'high', timeoutMs: 800 })
      expect(q).toMatchObject({ status: 'queued' })
      await stop(first, 'first')
    } finally {
      await first.close()
    }
    const t = await start(stateDir)
    try {
      expect((await t.call('loopdesk.queue.list', { sessionKey: K })).items).toMatchObject([{ text: 'the PAUSED one', status: 'queued', held: true }])
      // the model never answers: only the request's own timeout ends the run (the default is minutes)
      server.script([{ hang: true }])
      const before = server.requests.length
      const startedAt = Date.now()
      expect((await t.call('loopdesk.queue.release', { sessionKey: K })).ids).toHaveLength(1)
      const w = await t.call('agent.wait', { runId: 'second', timeoutMs: 15_000 })
      expect(w.status).not.toBe('ok')
      expect(w.status).not.toBe('pending')
      expect(Date.now() - startedAt).toBeLessThan(8_000)
      expect(server.requests[before].body.reasoning_effort).toBe('high')
      const end = t.events.find((e) => e.event === 'agent' && e.payload.runId === 'second' && e.payload.stream === 'lifecycle' && (e.payload.data as { phase?: string }).phase === 'end')
      expect(end?.payload).toMatchObject({ data: { aborted: true } })
    } finally {
      await t.close()
      fs.rmSync(stateDir, { recursive: true, force: true })
    }
  }, 60_000)

  it('a steered message the stopped run never took comes back to the queue held, and stays held after a restart', async () => {
    const stateDir = stateDirWithConfig()
    const first = await start(stateDir)
    try {
      await busy(first, 'first')
      const s = await first.call('chat.send', { sessionKey: K, message: 'and STEERED in', idempotencyKey: 'steer-1', queueMode: 'steer', thinking: 'low' })
      expect(s).toMatchObject({ status: 'steered' })
      await stop(first, 'first')
      // the run ended before its next model call: the steered message is queued again, held by the Stop
      await until(async () => (await first.call('loopdesk.queue.list', { sessionKey: K })).items.some((i) => i.status === 'queued'), 5_000)
      expect((await first.call('loopdesk.queue.list', { sessionKey: K })).items).toMatchObject([{ text: 'and STEERED in', status: 'queued', held: true, runId: 'steer-1' }])
    } finally {
      await first.close()
    }
    const t = await start(stateDir)
    try {
      expect(t.runtime.recovered).toEqual([])
      expect((await t.call('loopdesk.queue.list', { sessionKey: K })).items).toMatchObject([{ text: 'and STEERED in', status: 'queued', held: true, runId: 'steer-1' }])
      const hist = await t.call('chat.history', { sessionKey: K })
      expect(JSON.stringify(hist.messages)).not.toContain('STEERED')
      server.script([{ text: 'answering the steered one' }])
      const before = server.requests.length
      await t.call('loopdesk.queue.release', { sessionKey: K })
      expect((await t.call('agent.wait', { runId: 'steer-1', timeoutMs: 15_000 })).status).toBe('ok')
      expect(server.requests[before].body.reasoning_effort).toBe('low')
    } finally {
      await t.close()
      fs.rmSync(stateDir, { recursive: true, force: true })
    }
  }, 60_000)
})
