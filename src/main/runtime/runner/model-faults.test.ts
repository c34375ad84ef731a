// Regressions found by the faults suite (test/faults/model-faults.test.ts):
// - a tool call whose argument JSON was invalid (truncated) ran anyway: pi completes such JSON with a
//   partial parser, so `write` wrote half a file and `exec` would run a cut-off command;
// - a run stopped by its timeout showed the user nothing (no payload, chat `aborted` like a user stop);
// - a provider error echoing the API key it was sent reached the user, the transcript and sessions.json;
// - a reply that could not be written to the transcript (disk full) still ended the run "ok": the user
//   saw an answer that was gone after a reload.
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, afterEach, describe, expect, it, vi } from 'vitest'
import type { ChatEvent } from '../../../shared/events'
import { startModelServer, type ModelServer } from '../../../../test/fixtures/model-server'
import { startTestRuntime, testConfig, type TestRuntime } from '../../../../test/fixtures/test-runtime'
import { Transcript } from '../sessions'

let server: ModelServer
let t: TestRuntime | undefined
beforeAll(async () => {
  server = await startModelServer()
})
afterAll(() => server.close())
afterEach(async () => {
  server.script([])
  await t?.close()
  t = undefined
})

const toolResults = (t: TestRuntime, runId: string) =>
  t.events
    .flatMap((e) => (e.event === 'agent' && e.payload.runId === runId && e.payload.stream === 'tool' ? [e.payload.data as { phase?: string; isError: boolean; result: unknown }] : []))
    .filter((d) => d.phase === 'result')

describe('tool calls with invalid JSON arguments', () => {
  it('are not run; the model gets an error result saying why, and the run continues', async () => {
    t = await startTestRuntime(server)
    server.script([
      { text: 'Writing.', toolCalls: [{ id: 'w1', name: 'write', args: '{"path": "out.txt", "content": "the first half of the fi' }] },
      { text: 'The write failed, sorry.' },
    ])
    await t.call('agent', { message: 'write the file', idempotencyKey: 'bad-args' })
    expect((await t.call('agent.wait', { runId: 'bad-args', timeoutMs: 15_000 })).status).toBe('ok')
    expect(fs.existsSync(path.join(t.workspace, 'out.txt'))).toBe(false)
    const [r] = toolResults(t, 'bad-args')
    expect(r.isError).toBe(true)
    expect(JSON.stringify(r.result)).toContain('not valid JSON')
    // what the model was told on the next request
    const toolMsg = server.requests.at(-1)!.body.messages.find((m: { role: string }) => m.role === 'tool')
    expect(JSON.stringify(toolMsg)).toContain('not valid JSON')
  })

  it('valid JSON (also with a raw newline inside a string) still runs', async () => {
    t = await startTestRuntime(server)
    server.script([{ text: '', toolCalls: [{ id: 'w2', name: 'write', args: '{"path": "ok.txt", "content": "line 1\nline 2"}' }] }, { text: 'done' }])
    await t.call('agent', { message: 'write it', idempotencyKey: 'good-args' })
    expect((await t.call('agent.wait', { runId: 'good-args', timeoutMs: 15_000 })).status).toBe('ok')
    expect(fs.readFileSync(path.join(t.workspace, 'ok.txt'), 'utf8')).toBe('line 1\nline 2')
  })
})

describe('run timeout', () => {
  it('tells the user the run timed out (final payload and chat event)', async () => {
    t = await startTestRuntime(server)
    server.script([{ hang: true }])
    await t.call('agent', { message: 'hello?', idempotencyKey: 'hangs', timeout: 1 })
    expect((await t.call('agent.wait', { runId: 'hangs', timeoutMs: 15_000 })).status).toBe('timeout')
    const final = await t.runtime.agentFinal('hangs')
    expect(final.result?.payloads).toEqual([{ text: '⚠️ The run timed out after 1 s and was stopped.', isError: true }])
    const chat = t.events.find((e) => e.event === 'chat' && e.payload.runId === 'hangs' && e.payload.state !== 'delta')?.payload as ChatEvent
    expect(chat).toMatchObject({ state: 'aborted', stopReason: 'timeout', errorMessage: 'The run timed out and was stopped.' })
  })
})

describe('provider errors that echo the API key', () => {
  it('are redacted before the user, the transcript or the session row see them', async () => {
    const key = 'sk-test-0123456789abcdefSECRET'
    const config = testConfig(server, {
      models: { providers: { mock: { baseUrl: server.openaiBaseUrl, api: 'openai-completions', apiKey: key, models: [{ id: 'm1', contextWindow: 32000, maxTokens: 1024 }] } } },
    })
    t = await startTestRuntime(server, { config })
    server.script((req) => ({ status: 401, message: `Incorrect API key provided: ${String(req.headers.authorization)}` }))
    await t.call('agent', { message: 'hi', idempotencyKey: 'echo-key' })
    const w = await t.call('agent.wait', { runId: 'echo-key', timeoutMs: 15_000 })
    expect(w.status).toBe('error')
    expect(server.requests.at(-1)!.headers.authorization).toBe(`Bearer ${key}`)
    const chat = t.events.find((e) => e.event === 'chat' && e.payload.runId === 'echo-key' && e.payload.state === 'error')?.payload as ChatEvent
    expect(chat.errorMessage).toContain('Incorrect API key provided: Bearer [redacted]')
    const final = await t.runtime.agentFinal('echo-key')
    const dir = path.join(t.stateDir, 'agents/main/sessions')
    const onDisk = fs.readdirSync(dir).map((f) => fs.readFileSync(path.join(dir, f), 'utf8'))
    for (const text of [JSON.stringify(t.events), JSON.stringify(final), ...onDisk]) expect(text).not.toContain(key)
  })
})

describe('a transcript write that fails mid-run', () => {
  it('ends the run with a storage error instead of an answer that was never saved', async () => {
    t = await startTestRuntime(server)
    server.script([{ text: 'an answer that cannot be stored' }])
    const append = Transcript.prototype.append
    const spy = vi.spyOn(Transcript.prototype, 'append').mockImplementation(function (this: Transcript, entry) {
      if (entry.type === 'message' && entry.message.role === 'assistant') {
        throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' })
      }
      return append.call(this, entry)
    })
    try {
      await t.call('agent', { message: 'hi', idempotencyKey: 'disk-full' })
      const w = await t.call('agent.wait', { runId: 'disk-full', timeoutMs: 15_000 })
      expect(w).toMatchObject({ status: 'error', error: expect.stringContaining('Storage error (ENOSPC): the disk is full') })
      const final = await t.runtime.agentFinal('disk-full')
      expect(final.status).toBe('error')
      expect(final.summary).toContain('could not be saved')
      const chat = t.events.find((e) => e.event === 'chat' && e.payload.runId === 'disk-full' && e.payload.state !== 'delta')?.payload as ChatEvent
      expect(chat).toMatchObject({ state: 'error', errorMessage: expect.stringContaining('Storage error') })
    } finally {
      spy.mockRestore()
    }
    // space is back: the session runs again
    server.script([{ text: 'stored now' }])
    await t.call('agent', { message: 'again', idempotencyKey: 'disk-ok' })
    expect((await t.call('agent.wait', { runId: 'disk-ok', timeoutMs: 15_000 })).status).toBe('ok')
  })
})
