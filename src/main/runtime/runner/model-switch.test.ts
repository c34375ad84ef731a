// A session whose last model was removed moves to the default model: its next run says so, once, and history
// keeps the note with that run's reply.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { AgentEvent } from '../../../shared/events'
import { startModelServer, type ModelServer } from '../../../../test/fixtures/model-server'
import { startTestRuntime, testConfig, type TestRuntime } from '../../../../test/fixtures/test-runtime'
import { modelSwitchOf } from './model-switch'

describe('modelSwitchOf', () => {
  const known = (refs: string[]) => (ref: string) => refs.includes(ref)
  const providers = (ids: string[]) => (p: string) => ids.includes(p)
  it('only when the last model is gone and nothing was chosen or asked for', () => {
    const last = { modelProvider: 'gone', model: 'm1' }
    expect(modelSwitchOf(last, 'mock/big', false, providers(['mock']), known(['mock/big']))).toEqual({
      from: 'gone/m1',
      to: 'mock/big',
      message: 'Model changed: gone/m1 → mock/big (its provider was removed). This session now uses the default model.',
    })
    expect(modelSwitchOf({ modelProvider: 'mock', model: 'old' }, 'mock/big', false, providers(['mock']), known(['mock/big']))?.message).toContain('(that model is no longer configured)')
    // still configured: following the default is no switch to point out; a choice or a request is no silent switch
    expect(modelSwitchOf({ modelProvider: 'mock', model: 'm1' }, 'mock/big', false, providers(['mock']), known(['mock/m1', 'mock/big']))).toBeUndefined()
    expect(modelSwitchOf({ ...last, modelOverride: 'mock/big' }, 'mock/big', false, providers(['mock']), known(['mock/big']))).toBeUndefined()
    expect(modelSwitchOf(last, 'mock/big', true, providers(['mock']), known(['mock/big']))).toBeUndefined()
    expect(modelSwitchOf({}, 'mock/big', false, providers(['mock']), known(['mock/big']))).toBeUndefined()
  })
})

let server: ModelServer
beforeAll(async () => {
  server = await startModelServer()
})
afterAll(() => server.close())
let t: TestRuntime
beforeEach(async () => {
  server.script([])
  t = await startTestRuntime(server, {
    config: testConfig(server, { models: { providers: { lab: { baseUrl: server.openaiBaseUrl, api: 'openai-completions', models: [{ id: 'x' }] } } } }),
  })
})
afterEach(() => t.close())

describe('a run after its session’s provider was removed', () => {
  it('uses the default model, emits model_changed once and stores the note with its reply', async () => {
    const c = await t.call('sessions.create', { label: 'local', model: 'lab/x' })
    server.script([{ text: 'from lab' }, { text: 'from the default' }, { text: 'again' }])
    await t.call('chat.send', { sessionKey: c.key, message: 'one', idempotencyKey: 'r1' })
    await t.call('agent.wait', { runId: 'r1', timeoutMs: 10_000 })
    // back to the default, then its provider goes: the row still says it last ran on lab/x
    await t.call('sessions.patch', { key: c.key, model: null })
    const cfg = await t.call('config.get', {})
    await t.call('config.patch', { patch: { models: { providers: { lab: null } } }, baseHash: cfg.hash })
    expect((await t.call('sessions.list', {})).sessions.find((s) => s.key === c.key)).toMatchObject({ modelProvider: 'lab', model: 'x' })

    await t.call('chat.send', { sessionKey: c.key, message: 'two', idempotencyKey: 'r2' })
    expect(await t.call('agent.wait', { runId: 'r2', timeoutMs: 10_000 })).toMatchObject({ status: 'ok' })
    const notes = (runId: string) =>
      t.events.filter((e) => e.event === 'agent' && (e.payload as AgentEvent).runId === runId && (e.payload as AgentEvent).stream === 'error').map((e) => (e.payload as AgentEvent).data)
    expect(notes('r2')).toEqual([{ reason: 'model_changed', from: 'lab/x', to: 'mock/m1', message: expect.stringContaining('Model changed: lab/x → mock/m1 (its provider was removed)') }])
    const history = (await t.call('chat.history', { sessionKey: c.key })).messages
    const replies = history.filter((m) => m.role === 'assistant')
    expect(replies.map((m) => m.modelChanged?.from)).toEqual([undefined, 'lab/x'])
    expect((await t.call('sessions.list', {})).sessions.find((s) => s.key === c.key)).toMatchObject({ modelProvider: 'mock', model: 'm1' })

    // said once: the next run is on the default already
    await t.call('chat.send', { sessionKey: c.key, message: 'three', idempotencyKey: 'r3' })
    await t.call('agent.wait', { runId: 'r3', timeoutMs: 10_000 })
    expect(notes('r3')).toEqual([])
  })
})
