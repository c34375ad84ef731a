// A command that prints far more than its caps (the audit's `seq 1 50000`, 1.2 MB) through the whole runtime:
// exec keeps 100,000 characters, the transcript 40,000, and both the model's next request and the stored tool
// result must still say how big the output really was — the transcript cap used to cut exec's own marker away
// and call the output "100046 characters". A binary stdout reaches neither as replacement characters.
import { afterAll, beforeAll, expect, it } from 'vitest'
import { startModelServer, type ModelServer } from '../../../test/fixtures/model-server'
import { startTestRuntime, testConfig, type TestRuntime } from '../../../test/fixtures/test-runtime'

let server: ModelServer
let t: TestRuntime

beforeAll(async () => {
  server = await startModelServer({ fallback: { text: 'ok' } })
  const config = testConfig(server, {
    tools: { exec: { allowlist: ['*'] } },
    // room for exec's 100,000 characters in the next request without compaction
    models: { providers: { mock: { baseUrl: server.openaiBaseUrl, api: 'openai-completions', models: [{ id: 'm1', contextWindow: 400_000, maxTokens: 1024 }] } } },
  })
  t = await startTestRuntime(server, { config })
})
afterAll(async () => {
  await t?.close()
  await server?.close()
})

const MARKER = /\[output truncated: ([\d,]+) lines, ([\d,]+) bytes; kept the first ([\d,]+) and last ([\d,]+) lines\]/g
const num = (s: string) => Number(s.replace(/,/g, ''))
// `seq 1 50000 | sed "s/^/noisy output line /"`: 50,000 lines of "noisy output line N\n"
const BYTES = Array.from({ length: 50_000 }, (_, i) => `noisy output line ${i + 1}\n`).reduce((n, l) => n + l.length, 0)

/** one marker with the command's real size, and the lines on either side of it are the ones it says are kept */
function expectHonest(text: string) {
  const found = [...text.matchAll(MARKER)]
  expect(found).toHaveLength(1)
  const [, lines, bytes, first, last] = found[0].map((s) => (/^[\d,]+$/.test(s) ? String(num(s)) : s))
  expect({ lines: Number(lines), bytes: Number(bytes) }).toEqual({ lines: 50_000, bytes: BYTES })
  const before = text.slice(0, found[0].index).split('\n').at(-2)
  const after = text.slice(found[0].index! + found[0][0].length + 1).split('\n')[0]
  expect(before).toBe(`noisy output line ${first}`)
  expect(after).toBe(`noisy output line ${50_000 - Number(last) + 1}`)
  expect(text.endsWith('noisy output line 50000\n')).toBe(true)
}

const toolResultTexts = (body: any): string[] =>
  body.messages.filter((m: any) => m.role === 'tool').map((m: any) => (typeof m.content === 'string' ? m.content : m.content.map((c: any) => c.text).join('')))

it('a 1.2 MB exec output says its real size in the model request and in the stored result', async () => {
  server.script([{ toolCalls: [{ name: 'exec', args: { command: 'seq 1 50000 | sed "s/^/noisy output line /"' } }] }, { text: 'done' }])
  const before = server.requests.length
  await t.call('agent', { message: 'noisy', idempotencyKey: 'noisy-1', sessionKey: 'agent:main:noisy' })
  expect((await t.call('agent.wait', { runId: 'noisy-1', timeoutMs: 20_000 })).status).toBe('ok')

  const sent = toolResultTexts(server.requests[before + 1].body)
  expect(sent).toHaveLength(1)
  expect(sent[0].length).toBeGreaterThan(90_000)
  expectHonest(sent[0])

  const hist = await t.call('chat.history', { sessionKey: 'agent:main:noisy' })
  const stored = hist.messages.find((m) => m.role === 'toolResult') as { content: Array<{ text: string }> }
  const text = stored.content.map((c) => c.text).join('')
  expect(text.length).toBeLessThanOrEqual(40_000)
  expectHonest(text)
}, 30_000)

it('binary exec output reaches the model as a short note, a text stderr beside it intact', async () => {
  server.script([{ toolCalls: [{ name: 'exec', args: { command: 'head -c 3000 /dev/urandom; echo done writing >&2' } }] }, { text: 'done' }])
  const before = server.requests.length
  await t.call('agent', { message: 'binary', idempotencyKey: 'bin-1', sessionKey: 'agent:main:bin' })
  expect((await t.call('agent.wait', { runId: 'bin-1', timeoutMs: 20_000 })).status).toBe('ok')
  expect(toolResultTexts(server.requests[before + 1].body)).toEqual(['done writing\n[binary output on stdout: 3,000 bytes, not shown]'])
}, 30_000)
