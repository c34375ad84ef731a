// Model faults against the scripted model server, through the headless gateway (child process), for both
// wire APIs (OpenAI completions and Anthropic messages): HTTP 500, 429 with retry-after, a stream dropped
// mid-reply, malformed SSE JSON, a server that never answers, a tool call with invalid JSON arguments.
// Each run ends (lifecycle error, or end {aborted, stopReason timeout} for the hang within the run timeout
// + 1 s), the user gets a readable message (not a raw JSON dump, not empty, no secret), the lane is free for
// the next run on the same session, and the transcript stays consistent (every line parses, every tool call
// has a result).
import fs from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startModelServer, type CapturedRequest, type ModelServer, type Turn } from '../fixtures/model-server'
import type { AgentEvent, ChatEvent } from '../../src/shared/events'
import { openClient, type TestClient } from './support/client'
import { startGatewayChild, type GatewayChild } from './support/gateway-process'
import { findSecrets, LogSink } from './support/logs'
import { lastMessage, lastUserText, newApiKey, newToken, suiteConfig, tempStateDir, writeConfig } from './support/setup'
import { orphanToolCalls, parseJsonl, transcriptOf } from './support/transcripts'

const token = newToken()
const apiKey = newApiKey()
const logs = new LogSink()
let server: ModelServer
let stateDir: string
let gw: GatewayChild
let c: TestClient
const seenMessages: Array<[string, string]> = []

const RUN_TIMEOUT_S = 2
const onceCounters = new Map<string, number>()

function script(req: CapturedRequest): Turn {
  const last = lastMessage(req)
  const text = lastUserText(req)
  if (last.role === 'tool' || last.role === 'toolResult' || (req.api === 'anthropic' && isAnthropicToolResult(req))) {
    return { text: 'I could not use that tool, sorry.', chunks: 2 }
  }
  const fault = /FAULT=([\w-]+)/.exec(text)?.[1] ?? 'none'
  switch (fault) {
    case '500':
      return { status: 500, message: 'upstream exploded' }
    case '429':
      return { status: 429, message: 'Rate limit reached for requests', retryAfter: 1 }
    case '429once': {
      const n = (onceCounters.get(text) ?? 0) + 1
      onceCounters.set(text, n)
      return n === 1 ? { status: 429, message: 'slow down', retryAfter: 1 } : { text: 'answered after the retry', chunks: 2 }
    }
    case 'drop':
      return { text: 'this reply will be cut off in the middle', chunks: 8, dropAfterChunks: 3 }
    case 'malformed':
      return { text: 'this reply has a broken frame', chunks: 6, malformedAfterChunks: 2 }
    case 'hang':
      return { hang: true }
    case 'badargs':
      return { text: 'Reading it.', toolCalls: [{ name: 'read', args: '{"path": "notes.txt", "limit": ' }] }
    default:
      return { text: 'all good now', chunks: 3 }
  }
}

function isAnthropicToolResult(req: CapturedRequest): boolean {
  const m = (req.body?.messages ?? []).at(-1)
  return Array.isArray(m?.content) && m.content.some((b: { type?: string }) => b?.type === 'tool_result')
}

beforeAll(async () => {
  server = await startModelServer()
  server.script(script)
  stateDir = tempStateDir('model')
  const cfg = suiteConfig(server, { apiKey })
  cfg.models.providers.mockant = {
    baseUrl: server.anthropicBaseUrl,
    api: 'anthropic-messages',
    apiKey,
    models: [{ id: 'c1', contextWindow: 32000, maxTokens: 1024 }],
  }
  writeConfig(stateDir, cfg)
  gw = await startGatewayChild({ stateDir, token, logs, label: 'model-faults' })
  c = await openClient(gw.url, token)
})
afterAll(async () => {
  await c?.close()
  await gw?.stop()
  await server?.close()
  if (stateDir) fs.rmSync(stateDir, { recursive: true, force: true })
})

/** Readable: some words, not a JSON dump, bounded, no secret. */
function readable(msg: string | undefined): string | undefined {
  if (!msg || !msg.trim()) return 'empty'
  if (/^\s*[[{]/.test(msg) || /"(error|type|message)"\s*:/.test(msg)) return `raw JSON: ${msg}`
  if (msg.length > 1000) return `too long (${msg.length})`
  if (msg.includes(apiKey) || msg.includes(token)) return 'contains a secret'
  if (!/[a-z]{3,}/i.test(msg)) return `no words: ${msg}`
  return undefined
}

interface FaultCase {
  fault: string
  /** expected lifecycle end: error, or timeout (aborted end) */
  expect: 'error' | 'timeout' | 'ok'
  /** what the user-visible message must mention */
  mention?: RegExp
}

const CASES: FaultCase[] = [
  { fault: '500', expect: 'error', mention: /500|upstream exploded/ },
  { fault: '429', expect: 'error', mention: /429|rate limit/i },
  { fault: 'drop', expect: 'error' },
  { fault: 'malformed', expect: 'error' },
  { fault: 'hang', expect: 'timeout', mention: /timed out/i },
  // the model gets the argument error as the tool's result and answers: the run ends normally
  { fault: 'badargs', expect: 'ok' },
]

const MODELS = [
  ['openai', 'mock/m1'],
  ['anthropic', 'mockant/c1'],
] as const

describe('model faults', () => {
  const figures: string[] = []
  afterAll(() => {
    console.log(`FAULTS model-faults: ${figures.join(' ')}`)
    for (const [where, msg] of seenMessages) console.log(`FAULTS model-faults message ${where}: ${msg}`)
  })

  for (const [api, model] of MODELS) {
    for (const fc of CASES) {
      it(`${api}: ${fc.fault} → ${fc.expect}, readable message, lane free, transcript consistent`, async () => {
        const sessionKey = `agent:main:fault-${api}-${fc.fault}`
        const runId = `${api}-${fc.fault}`
        const started = Date.now()
        // only the hang runs under the short run timeout (429 retries wait out retry-after)
        const timeout = fc.expect === 'timeout' ? RUN_TIMEOUT_S : 60
        const call = c.agent({ message: `please answer FAULT=${fc.fault} (${runId})`, idempotencyKey: runId, sessionKey, model, timeout })
        await call.accepted
        const end = await c.lifecycleEnd(runId, 60_000)
        const final = await call.final
        const data = end.data as { phase: string; aborted?: boolean; stopReason?: string; error?: string; startedAt?: number; endedAt: number }
        const chatEnd = c.chatEvents(runId).find((e) => e.state !== 'delta') as ChatEvent | undefined
        const wait = await c.request('agent.wait', { runId, timeoutMs: 5000 })

        if (fc.expect === 'error') {
          expect(data.phase).toBe('error')
          expect(readable(data.error)).toBeUndefined()
          expect(chatEnd?.state).toBe('error')
          expect(readable(chatEnd?.errorMessage)).toBeUndefined()
          // the call completes with the error as the reply's isError payload (OpenClaw's embedded run does the
          // same); the run's own outcome, error, is what lifecycle and agent.wait say
          expect(final.ok).toBe(true)
          const result = final.payload?.result as { payloads?: Array<{ text?: string; isError?: boolean }>; meta?: { error?: { message?: string } } } | undefined
          const shown = result?.payloads?.find((p) => p.isError)?.text
          expect(readable(shown)).toBeUndefined()
          expect(readable(result?.meta?.error?.message)).toBeUndefined()
          expect(wait.status).toBe('error')
          if (fc.mention) expect(chatEnd?.errorMessage).toMatch(fc.mention)
          seenMessages.push([`${runId} chat`, chatEnd?.errorMessage ?? ''], [`${runId} final`, shown ?? ''])
        } else if (fc.expect === 'timeout') {
          expect(data).toMatchObject({ phase: 'end', aborted: true, stopReason: 'timeout' })
          // within the run timeout + 1 s of the run's start
          expect(data.endedAt - (data.startedAt ?? started)).toBeLessThan(RUN_TIMEOUT_S * 1000 + 1000)
          expect(data.endedAt - (data.startedAt ?? started)).toBeGreaterThanOrEqual(RUN_TIMEOUT_S * 1000 - 50)
          expect(wait.status).toBe('timeout')
          expect(chatEnd?.state).toBe('aborted')
          const shown = chatEnd?.errorMessage ?? final.payload?.result?.payloads?.map((p: { text?: string }) => p.text).join('\n')
          expect(readable(shown)).toBeUndefined()
          if (fc.mention) expect(shown).toMatch(fc.mention)
          seenMessages.push([`${runId} timeout`, shown ?? ''])
          // the hanging model request was abandoned (the socket closed), not leaked
          await expect.poll(() => server.inFlight(), { timeout: 10_000 }).toBe(0)
        } else {
          expect(data.phase).toBe('end')
          expect(final.ok).toBe(true)
          expect(wait.status).toBe('ok')
          // the tool call got an error result telling what was wrong with the arguments
          const toolResult = c.agentEvents(runId).find((e: AgentEvent) => e.stream === 'tool' && (e.data as { phase?: string }).phase === 'result')
          expect(toolResult?.data).toMatchObject({ isError: true })
          const text = JSON.stringify((toolResult?.data as { result?: unknown }).result)
          expect(text).toMatch(/not valid JSON/)
          seenMessages.push([`${runId} tool`, text])
        }

        // the lane is free: the next run on the same session succeeds
        const next = c.agent({ message: `and now FAULT=none (${runId}-next)`, idempotencyKey: `${runId}-next`, sessionKey, model, timeout: 30 })
        const nf = await next.final
        expect(nf.ok).toBe(true)
        expect(nf.payload.result.payloads.map((p: { text?: string }) => p.text).join('')).toContain('all good now')

        // the transcript is consistent
        const file = transcriptOf(stateDir, sessionKey)!
        const parsed = parseJsonl(fs.readFileSync(file, 'utf8'))
        expect(parsed.bad).toEqual([])
        expect(orphanToolCalls(parsed.entries)).toEqual([])
        figures.push(`${api}/${fc.fault}=${data.phase}${data.aborted ? '(aborted)' : ''}:${Date.now() - started}ms`)
      })
    }
  }

  it('a 429 with retry-after is retried after the server-given delay and the run succeeds', async () => {
    const runId = 'retry-after-ok'
    const before = server.requests.length
    const call = c.agent({ message: `FAULT=429once (${runId})`, idempotencyKey: runId, sessionKey: 'agent:main:fault-429once' })
    const final = await call.final
    expect(final.ok).toBe(true)
    const reqs = server.requests.slice(before)
    expect(reqs).toHaveLength(2)
    expect(reqs[1].receivedAt - reqs[0].receivedAt).toBeGreaterThanOrEqual(900)
  })

  it('no secret reached the user or the logs', () => {
    expect(findSecrets([apiKey, token], { logs, texts: seenMessages, stateDirs: [stateDir] })).toEqual([])
  })
})
