// chat.history says which reasoning level the session's runs use now (its own, else the configured default), so the
// window shows stored reasoning at a reload exactly when a live run shows it: never at `off`. The rows keep their
// thinking blocks either way (OpenClaw clients, `loopdesk sessions export --thinking`).
import { describe, expect, it } from 'vitest'
import { useTestRuntime } from '../../../test/fixtures/use-test-runtime'

const env = useTestRuntime()
const SK = 'agent:main:hrl'

describe('chat.history reasoningLevel', () => {
  it('is the level runs use: the default off, a patched level, the default again once cleared — in pages and windows', async () => {
    env.server.push({ reasoning: ['plan'], textChunks: ['done'] })
    await env.t.call('agent', { message: 'go', idempotencyKey: 'hrl1', sessionKey: SK })
    expect(await env.t.call('agent.wait', { runId: 'hrl1', timeoutMs: 10_000 })).toMatchObject({ status: 'ok' })

    const page = await env.t.call('chat.history', { sessionKey: SK })
    expect(page.reasoningLevel).toBe('off')
    // the stored reasoning is still in the row
    expect(page.messages.at(-1)!.content).toMatchObject([
      { type: 'thinking', thinking: 'plan' },
      { type: 'text', text: 'done' },
    ])

    await env.t.call('sessions.patch', { key: SK, reasoningLevel: 'stream' })
    expect((await env.t.call('chat.history', { sessionKey: SK })).reasoningLevel).toBe('stream')
    const window = await env.t.call('chat.history', { sessionKey: SK, messageId: page.messages.at(-1)!.id })
    expect(window.reasoningLevel).toBe('stream')
    // OpenClaw's delta result is closed: none there (the window keeps its page's)
    const delta = await env.t.call('chat.history', { sessionKey: SK, cursor: page.deltaCursor! })
    expect(delta).toMatchObject({ kind: 'delta' })
    expect(delta).not.toHaveProperty('reasoningLevel')

    await env.t.call('sessions.patch', { key: SK, reasoningLevel: null })
    expect((await env.t.call('chat.history', { sessionKey: SK })).reasoningLevel).toBe('off')
  })
})
