// Block streaming end to end at both break points, over a real runtime and the scripted model server.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { AgentEvent, BlockData, ChatEvent } from '../../../shared/events'
import { startModelServer, type ModelServer } from '../../../../test/fixtures/model-server'
import { startTestRuntime, testConfig, type TestRuntime } from '../../../../test/fixtures/test-runtime'

let server: ModelServer
beforeAll(async () => {
  server = await startModelServer()
})
afterAll(() => server.close())

let t: TestRuntime
const quietExtensions = { logger: { warn: () => {}, error: () => {}, info: () => {} }, loadPlugins: false, loadInternalHooks: false }
const K = 'agent:main:main'

async function start(blockStreamingBreak: 'text_end' | 'message_end', blockStreamingDefault: 'on' | 'off' = 'on'): Promise<void> {
  t = await startTestRuntime(server, {
    config: testConfig(server, {
      models: {
        providers: {
          mock: {
            baseUrl: server.openaiBaseUrl,
            api: 'openai-completions',
            models: [{ id: 'm1', name: 'Mock', contextWindow: 32000, maxTokens: 1024, reasoning: true }],
          },
        },
      },
      agents: { defaults: { model: { primary: 'mock/m1' }, blockStreamingDefault, blockStreamingBreak } },
    }),
    runtime: { extensions: quietExtensions },
  })
}
afterEach(async () => {
  server.script([])
  await t?.close()
})

const agentEvents = (runId: string) => t.events.filter((e) => e.event === 'agent' && e.payload.runId === runId).map((e) => e.payload as AgentEvent)
const blocks = (runId: string) => agentEvents(runId).filter((e) => e.stream === 'block') as unknown as AgentEvent<BlockData>[]
const fences = (s: string) => s.split('\n').filter((l) => l.startsWith('```')).length

const para = (n: number, words: number) => `Paragraph ${n}: ` + Array.from({ length: words }, (_, i) => `w${n}_${i}`).join(' ') + '.'
const code = '```ts\n' + Array.from({ length: 30 }, (_, i) => `export const value${i} = ${i} // line ${i}`).join('\n') + '\n```'
const LONG = [para(1, 100), code, para(2, 100), para(3, 60)].join('\n\n')

async function runChat(id: string) {
  await t.call('chat.send', { sessionKey: K, message: 'go', idempotencyKey: id })
  await t.call('agent.wait', { runId: id, timeoutMs: 15_000 })
}

describe('block streaming', () => {
  for (const mode of ['text_end', 'message_end'] as const) {
    it(`${mode}: blocks cover the text, never split a code fence, and go out before the tool starts`, async () => {
      await start(mode)
      server.script([
        { text: 'Let me check the files first.', toolCalls: [{ id: 'c1', name: 'ls', args: { path: '.' } }] },
        { text: LONG, chunks: 40 },
      ])
      await runChat(`b-${mode}`)
      const evs = agentEvents(`b-${mode}`)
      const bl = blocks(`b-${mode}`)
      expect(bl.every((b) => b.data.source === 'stream')).toBe(true)
      // the first message's text is delivered before the tool's start event
      const toolStart = evs.find((e) => e.stream === 'tool' && (e.data as { phase: string }).phase === 'start')!
      expect(bl[0].data.text).toBe('Let me check the files first.')
      expect(bl[0].seq).toBeLessThan(toolStart.seq)
      // the second message: several blocks, each ≤ maxChars, fences balanced, nothing lost or repeated
      const second = bl.slice(1)
      expect(second.length).toBeGreaterThan(1)
      for (const b of second) {
        expect(b.data.text.length).toBeLessThanOrEqual(1200)
        expect(fences(b.data.text) % 2).toBe(0)
      }
      expect(second.map((b) => b.data.text).join('\n\n')).toBe(LONG)
      const lastDelta = evs.filter((e) => e.stream === 'assistant').at(-1)!
      if (mode === 'text_end') {
        // partial replies while the text still streams
        expect(second[0].seq).toBeLessThan(lastDelta.seq)
      } else {
        // everything held until the message ended
        expect(second.every((b) => b.seq > lastDelta.seq)).toBe(true)
      }
      // the chat projection does not repeat block text
      const final = t.events.find((e) => e.event === 'chat' && e.payload.runId === `b-${mode}` && (e.payload as ChatEvent).state === 'final')
      const finalText = (final!.payload as ChatEvent).message!.content[0].text
      expect(finalText).toBe(`Let me check the files first.\n\n${LONG}`)
    })
  }

  it('reasoning "on" goes out as its own block before the answer; "off" streaming emits no blocks', async () => {
    await start('message_end')
    await t.call('sessions.create', { key: K })
    await t.call('sessions.patch', { key: K, reasoningLevel: 'on' })
    server.script([{ reasoning: 'The user wants a greeting.', text: 'Hello there!' }])
    await runChat('r1')
    expect(blocks('r1').map((b) => b.data)).toEqual([
      { text: 'The user wants a greeting.', isReasoning: true, source: 'stream' },
      { text: 'Hello there!', source: 'stream' },
    ])
    await t.close()
    await start('text_end', 'off')
    server.script([{ text: 'no blocks please' }])
    await runChat('r2')
    expect(blocks('r2')).toEqual([])
  })
})
