// Over the wire (gateway + real runtime + scripted model): find lists a reply by what the window shows of it —
// `AT&amp;T` in the model's markdown shows "AT&T", `a \* b` shows "a * b" — and the sidebar's search finds the
// session by it too.
import { describe, expect, it } from 'vitest'
import { useRuntimeGateway } from '../../../test/fixtures/runtime-gateway'
import { connectGateway } from '../../cli/gateway-client'
import { generateNodeDeviceIdentity } from '../../cli/identity'

const TOKEN = 'find-rendered-token-0123456789'
const env = useRuntimeGateway(TOKEN, { fallback: { text: 'ok' } })

describe('loopdesk.chat.find over the gateway: what the window shows is what find finds', () => {
  it('lists and counts a reply whose markdown source lacks the query but whose rendered text has it', async () => {
    const c = await connectGateway({ url: env.stack.gw.url, token: TOKEN, identity: generateNodeDeviceIdentity() })
    try {
      const sessionKey = 'agent:main:rendered-find'
      env.server.push({ text: 'AT&amp;T merged with **AT&amp;T**; compute a \\* b, not &lt;div&gt;.' })
      await c.request('agent', { message: 'what about the merger?', sessionKey, idempotencyKey: 'rf1' }, { expectFinal: true })
      const found = (await c.request('loopdesk.chat.find', { sessionKey, query: 'AT&T' })) as any
      expect(found).toMatchObject({ total: 1, occurrences: 2, partial: false, matches: [{ role: 'assistant', count: 2 }] })
      const history = (await c.request('chat.history', { sessionKey })) as any
      const reply = history.messages.find((m: any) => m.role === 'assistant')
      expect(found.matches[0].messageId).toBe(reply.__openclaw.id)
      expect(await c.request('loopdesk.chat.find', { sessionKey, query: 'a * b' })).toMatchObject({ total: 1, occurrences: 1 })
      expect(await c.request('loopdesk.chat.find', { sessionKey, query: '<div>' })).toMatchObject({ total: 1, occurrences: 1 })
      // the source's escapes are not shown, so not found
      expect(await c.request('loopdesk.chat.find', { sessionKey, query: '&amp;' })).toMatchObject({ total: 0, occurrences: 0 })
      // the sidebar's content search finds the session by it, with a snippet as shown
      const search = (await c.request('loopdesk.sessions.search', { query: 'at&t merged' })) as any
      expect(search.matches).toEqual([{ key: sessionKey, messageId: reply.__openclaw.id, role: 'assistant', snippet: 'AT&T merged with AT&T; compute a * b, not <div>.' }])
    } finally {
      await c.close()
    }
  })
})
