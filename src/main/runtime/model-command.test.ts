// `/model` through chat.send: shows the session's model, chooses one for its next runs, goes back to the default.
import { describe, expect, it } from 'vitest'
import { useTestRuntimePerTest } from '../../../test/fixtures/use-test-runtime'
import { paramScope } from '../gateway/scopes'

const env = useTestRuntimePerTest()

const send = (sessionKey: string, message: string, idempotencyKey: string) => env.t.call('chat.send', { sessionKey, message, idempotencyKey })

describe('/model', () => {
  it('bare: says the default is in use and lists the configured models, writing nothing', async () => {
    const c = await env.t.call('sessions.create', { label: 'x' })
    const r = await send(c.key, '/model', 'm0')
    expect(r).toMatchObject({ status: 'command', ok: true, sessionKey: c.key })
    const text = (r as { messages: string[] }).messages.join('\n')
    expect(text).toContain('uses the default model, mock/m1')
    expect(text).toContain('mock/m1 (default)')
    expect(text).toContain('mockant/c1')
    expect(text).toContain('/model <provider/model>')
    expect((await env.t.call('sessions.list', {})).sessions.find((s) => s.key === c.key)?.modelOverride).toBeUndefined()
  })

  it('/model <ref> is the next run’s model and shows on the row; /model default clears it', async () => {
    const c = await env.t.call('sessions.create', { label: 'x' })
    const r = await send(c.key, '/model mockant/c1', 'm1')
    expect((r as { messages: string[] }).messages[0]).toBe('This session now uses mockant/c1.')
    const row = (await env.t.call('sessions.list', {})).sessions.find((s) => s.key === c.key)!
    expect(row).toMatchObject({ modelOverride: 'mockant/c1', modelProvider: 'mockant', model: 'c1' })
    env.server.script([{ text: 'from c1' }])
    await send(c.key, 'hi', 'r1')
    await env.t.call('agent.wait', { runId: 'r1', timeoutMs: 10_000 })
    expect(env.server.requests.at(-1)!.api).toBe('anthropic')
    // the command itself is no message in the transcript
    expect((await env.t.call('chat.history', { sessionKey: c.key })).messages.map((m) => m.role)).toEqual(['user', 'assistant'])

    const d = await send(c.key, '/model default', 'm2')
    expect((d as { messages: string[] }).messages[0]).toBe('This session now uses the default model, mock/m1.')
    expect((await env.t.call('sessions.list', {})).sessions.find((s) => s.key === c.key)?.modelOverride).toBeUndefined()
    env.server.script([{ text: 'from m1' }])
    await send(c.key, 'again', 'r2')
    await env.t.call('agent.wait', { runId: 'r2', timeoutMs: 10_000 })
    expect(env.server.requests.at(-1)!.api).toBe('openai')
  })

  it('an unknown model is refused with the reason and changes nothing', async () => {
    const c = await env.t.call('sessions.create', { label: 'x', model: 'mockant/c1' })
    const r = await send(c.key, '/model gone/zz', 'm3')
    expect((r as { messages: string[] }).messages[0]).toMatch(/^Could not choose gone\/zz: unknown model provider "gone"/)
    expect((await env.t.call('sessions.list', {})).sessions.find((s) => s.key === c.key)?.modelOverride).toBe('mockant/c1')
  })

  it('while a reply runs, says the change applies from the next message', async () => {
    const c = await env.t.call('sessions.create', { label: 'x' })
    env.server.script([{ text: 'slow reply', chunks: 10, delayMs: 80 }])
    const n = env.server.requests.length
    await send(c.key, 'go', 'r3')
    await env.server.waitForRequests(n + 1) // the run has asked its model
    const r = await send(c.key, '/model mockant/c1', 'm4')
    expect((r as { messages: string[] }).messages[0]).toMatch(/applies from the next message/)
    await env.t.call('agent.wait', { runId: 'r3', timeoutMs: 10_000 })
    expect(env.server.requests.at(-1)!.api).toBe('openai')
  })

  it('a change applies to the messages accepted after it: one queued before it runs on the old model, one after on the new', async () => {
    const c = await env.t.call('sessions.create', { label: 'x' })
    env.server.script([{ text: 'slow reply', chunks: 10, delayMs: 80 }, { text: 'queued before' }, { text: 'sent after' }, { text: 'agent after' }])
    const n = env.server.requests.length
    await send(c.key, 'go', 'q1')
    await env.server.waitForRequests(n + 1)
    // accepted while q1 runs: it waits its turn, and starts only after the change below
    expect(await env.t.call('chat.send', { sessionKey: c.key, message: 'before the change', idempotencyKey: 'q2', queueMode: 'followup' })).toMatchObject({ status: 'queued' })
    await send(c.key, '/model mockant/c1', 'm5')
    await env.t.call('chat.send', { sessionKey: c.key, message: 'after the change', idempotencyKey: 'q3', queueMode: 'followup' })
    for (const id of ['q1', 'q2', 'q3']) await env.t.call('agent.wait', { runId: id, timeoutMs: 10_000 })
    const apis = env.server.requests.slice(n).map((r) => r.api)
    expect(apis).toEqual(['openai', 'openai', 'anthropic'])
    // the header's picker (sessions.patch) is ordered the same way, and so is an `agent` message
    env.server.script([{ text: 'slow again', chunks: 10, delayMs: 80 }, { text: 'queued' }, { text: 'after' }])
    const m = env.server.requests.length
    await send(c.key, 'go again', 'q4')
    await env.server.waitForRequests(m + 1)
    await env.t.call('agent', { sessionKey: c.key, message: 'agent before', idempotencyKey: 'q5' })
    await env.t.call('sessions.patch', { key: c.key, model: 'mock/m1' })
    await env.t.call('agent', { sessionKey: c.key, message: 'agent after', idempotencyKey: 'q6' })
    for (const id of ['q4', 'q5', 'q6']) await env.t.call('agent.wait', { runId: id, timeoutMs: 10_000 })
    expect(env.server.requests.slice(m).map((r) => r.api)).toEqual(['anthropic', 'anthropic', 'openai'])
  })

  it('choosing needs admin scope on the gateway (sessions.patch does it); showing does not; agent takes /model as text', () => {
    expect(paramScope('chat.send', { message: '/model mock/m1' })).toMatchObject({ scope: 'operator.admin' })
    expect(paramScope('chat.send', { message: '/model default' })).toMatchObject({ scope: 'operator.admin' })
    expect(paramScope('chat.send', { message: '/model' })).toBeUndefined()
    expect(paramScope('chat.send', { message: '/model status' })).toBeUndefined()
    expect(paramScope('agent', { message: '/model mock/m1' })).toBeUndefined()
  })

  it('a control character the runtime removes does not hide /model <ref> from the scope check', async () => {
    // the runtime strips C0 controls from chat.send's text and then acts on the command…
    const c = await env.t.call('sessions.create', {})
    const r = await send(c.key, '\u0001/model mockant/c1', 'm5')
    expect(r).toMatchObject({ status: 'command' })
    // …so the gateway must see the command in it too
    expect(paramScope('chat.send', { message: '\u0001/model mock/m1' })).toMatchObject({ scope: 'operator.admin' })
    expect(paramScope('chat.send', { message: '/mo\u0002del mock/m1' })).toMatchObject({ scope: 'operator.admin' })
    expect(paramScope('chat.send', { message: '\u0001/model mock/m1', suppressCommandInterpretation: true })).toBeUndefined()
  })

  it('sessions.send and sessions.steer act on /model too (they go through chat.send), so they need admin for it', async () => {
    const c = await env.t.call('sessions.create', {})
    await env.t.call('sessions.send', { key: c.key, message: '/model mockant/c1' })
    expect((await env.t.call('sessions.list', {})).sessions.find((s) => s.key === c.key)?.modelOverride).toBe('mockant/c1')
    expect(paramScope('sessions.send', { key: c.key, message: '/model mock/m1' })).toMatchObject({ scope: 'operator.admin' })
    expect(paramScope('sessions.steer', { key: c.key, message: '\u0001/model mock/m1' })).toMatchObject({ scope: 'operator.admin' })
    expect(paramScope('sessions.send', { key: c.key, message: '/model' })).toBeUndefined()
  })
})
