// A model server that goes quiet, over the gateway of a REAL runtime and the scripted server (short thresholds
// from the config, no long sleeps): a client with `loopdesk.model-silence` hears the `silence` stream — before
// the first token (a server that never answers) and mid-reply (a stalled stream) — an OpenClaw client does not;
// a reply stalled past `agents.defaults.llm.idleTimeoutSeconds` fails with an error naming the provider, while a
// silent start is only noticed (a reasoning model may be silent that long).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startGateway, type GatewayHandle } from './server'
import { connectGateway, type EventFrameIn } from '../../cli/gateway-client'
import { generateNodeDeviceIdentity } from '../../cli/identity'
import { MODEL_SILENCE_CAP } from '../../shared/events'
import { startModelServer, type ModelServer, type ReplyTurn } from '../../../test/fixtures/model-server'
import { startTestRuntime, testConfig, type TestRuntime } from '../../../test/fixtures/test-runtime'
import { until } from '../../../test/fixtures/until'

const TOKEN = 'model-silence-wire-token-0123456789'
const identity = generateNodeDeviceIdentity()
let server: ModelServer
let rt: TestRuntime
let gw: GatewayHandle

beforeAll(async () => {
  server = await startModelServer()
  rt = await startTestRuntime(server, { config: testConfig(server, { agents: { defaults: { llm: { silenceNoticeSeconds: 0.3, idleTimeoutSeconds: 0.8 } } } }) })
  gw = await startGateway({ host: rt.runtime, port: 0, token: TOKEN, stateDir: rt.stateDir, staticDir: null })
})
afterAll(async () => {
  await gw?.close()
  await rt?.close()
  await server?.close()
})

const connect = (caps: string[] = []) => connectGateway({ url: gw.url, token: TOKEN, identity, caps })
type AgentPayload = { runId: string; stream: string; data: Record<string, unknown>; seq?: number }
const silenceFrames = (events: EventFrameIn[], runId: string) =>
  events.filter((e) => e.event === 'agent' && (e.payload as AgentPayload).runId === runId && (e.payload as AgentPayload).stream === 'silence')
const silenceOf = (events: EventFrameIn[], runId: string) => silenceFrames(events, runId).map((e) => e.payload as AgentPayload)

describe('a silent model server over the gateway', () => {
  it('never answering: the cap client is told (since the request), the run is not failed for it, Stop ends it', async () => {
    const loopdesk = await connect(['tool-events', MODEL_SILENCE_CAP])
    const openclaw = await connect(['tool-events'])
    const [el, eo]: EventFrameIn[][] = [[], []]
    loopdesk.onEvent((e) => el.push(e))
    openclaw.onEvent((e) => eo.push(e))
    server.push({ hang: true })
    await loopdesk.request('agent', { sessionKey: 'ms-hang', message: 'HANGHEAD', idempotencyKey: 'ms-hang' })
    await until(() => silenceOf(el, 'ms-hang').length > 0, 5000)
    const [notice] = silenceOf(el, 'ms-hang')
    expect(notice.data).toMatchObject({ phase: 'silent', since: 'request', provider: 'mock' })
    expect(notice.data.silentMs).toBeGreaterThanOrEqual(300)
    // targeted: no frame seq for the OpenClaw client to miss
    expect(silenceFrames(el, 'ms-hang')[0].seq).toBeUndefined()
    // past the idle timeout with no first token: still running (only the run timeout applies before the reply)
    await new Promise((r) => setTimeout(r, 1000))
    await expect(loopdesk.request('agent.wait', { runId: 'ms-hang', timeoutMs: 10 })).resolves.toMatchObject({ status: 'timeout' })
    await loopdesk.request('chat.abort', { sessionKey: 'ms-hang' })
    const ended = () => el.some((e) => e.event === 'agent' && (e.payload as AgentPayload).runId === 'ms-hang' && (e.payload as AgentPayload).data.phase === 'end')
    await until(ended, 5000)
    // the call ended: the notice is withdrawn
    await until(() => silenceOf(el, 'ms-hang').some((p) => p.data.phase === 'resumed'), 5000)
    expect(silenceOf(eo, 'ms-hang')).toEqual([])
    await loopdesk.close()
    await openclaw.close()
  })

  it('stalled mid-reply: told since the reply, then failed past the idle timeout with an error naming the provider; the text so far is kept', async () => {
    const c = await connect(['tool-events', MODEL_SILENCE_CAP])
    const events: EventFrameIn[] = []
    c.onEvent((e) => events.push(e))
    server.push({ textChunks: ['Line 1 of a long reply.', ' never sent'], firstDelayMs: 0, delayMs: 600_000 })
    const final = await c.request('agent', { sessionKey: 'ms-stall', message: 'STALLMID', idempotencyKey: 'ms-stall' }, { expectFinal: true })
    const notices = silenceOf(events, 'ms-stall').map((p) => p.data)
    expect(notices[0]).toMatchObject({ phase: 'silent', since: 'reply', provider: 'mock', idleTimeoutMs: 800 })
    expect(final.result.payloads[0]).toEqual({ text: 'Line 1 of a long reply.' })
    expect(final.result.meta.error.message).toBe(
      'The model server (mock) stopped sending: no data for 0.8 s in the middle of its reply. Retry, or raise agents.defaults.llm.idleTimeoutSeconds if the model pauses that long.',
    )
    await expect(c.request('agent.wait', { runId: 'ms-stall', timeoutMs: 1000 })).resolves.toMatchObject({ status: 'error' })
    await c.close()
  })

  it("stalled mid-reply on Anthropic's API: the same error (its SDK, too, passes the stall on as the call's failure)", async () => {
    const c = await connect(['tool-events', MODEL_SILENCE_CAP])
    // Anthropic's stream opens with several frames before its first text: stalled after that text's frame
    server.push({ textChunks: ['Half of it.', ' never sent'], stallAfterChunks: 3 })
    const final = await c.request('agent', { sessionKey: 'ms-stall-ant', message: 'STALLMID', model: 'mockant/c1', idempotencyKey: 'ms-stall-ant' }, { expectFinal: true })
    expect(final.result.payloads[0]).toEqual({ text: 'Half of it.' })
    expect(final.result.meta.error.message).toMatch(/^The model server \(mockant\) stopped sending: no data for 0\.8 s in the middle of its reply\./)
    await c.close()
  })

  // a content block began (here an empty tool call whose arguments never come) and then nothing: stuck, though
  // no text came — on either API
  const began: Array<[string, string, ReplyTurn]> = [
    ['Anthropic: after a content block began', 'mockant/c1', { textChunks: ['never sent'], stallAfterChunks: 2 }],
    [
      'OpenAI: after a tool call began',
      'mock/m1',
      { toolCalls: [{ id: 'c1', name: 'read', args: { path: 'a.txt' } }], openWithRole: true, stallAfterChunks: 2, firstDelayMs: 0 },
    ],
  ]
  for (const [api, model, turn] of began) {
    it(`${api}: the idle timeout applies (the notice says since the reply); the stall fails the run`, async () => {
      const c = await connect(['tool-events', MODEL_SILENCE_CAP])
      const events: EventFrameIn[] = []
      c.onEvent((e) => events.push(e))
      const runId = `ms-open-${model.split('/')[0]}`
      server.push(turn)
      const final = await c.request('agent', { sessionKey: runId, message: 'OPENED', model, idempotencyKey: runId }, { expectFinal: true })
      expect(silenceOf(events, runId)[0]?.data).toMatchObject({ phase: 'silent', since: 'reply', idleTimeoutMs: 800 })
      expect(final.result.meta.error.message).toMatch(/stopped sending: no data for 0\.8 s/)
      await c.close()
    })
  }

  // only the envelope came (Anthropic's message_start, OpenAI's role-only chunk — both sent before a reasoning
  // model's silent thinking): still "no response yet", only noticed, never failed for it
  const enveloped: Array<[string, string, ReplyTurn]> = [
    ['Anthropic: after message_start', 'mockant/c1', { textChunks: ['never sent'], stallAfterChunks: 1 }],
    ['OpenAI: after the role-only first chunk', 'mock/m1', { textChunks: ['never sent'], openWithRole: true, stallAfterChunks: 1, firstDelayMs: 0 }],
  ]
  for (const [api, model, turn] of enveloped) {
    it(`${api}: only the notice (since the request); past the idle timeout the run still runs until stopped`, async () => {
      const c = await connect(['tool-events', MODEL_SILENCE_CAP])
      const events: EventFrameIn[] = []
      c.onEvent((e) => events.push(e))
      const runId = `ms-env-${model.split('/')[0]}`
      server.push(turn)
      await c.request('agent', { sessionKey: runId, message: 'ENVELOPE', model, idempotencyKey: runId })
      await until(() => silenceOf(events, runId).length > 0, 5000)
      expect(silenceOf(events, runId)[0]?.data).toMatchObject({ phase: 'silent', since: 'request' })
      await new Promise((r) => setTimeout(r, 1200))
      await expect(c.request('agent.wait', { runId, timeoutMs: 10 })).resolves.toMatchObject({ status: 'timeout' })
      await c.request('chat.abort', { sessionKey: runId })
      const p = (e: EventFrameIn) => e.payload as AgentPayload
      await until(() => events.some((e) => e.event === 'agent' && p(e).runId === runId && p(e).stream === 'lifecycle' && p(e).data.phase === 'end'), 5000)
      // Stop ended it, not an idle-timeout error
      expect(events.some((e) => e.event === 'agent' && p(e).runId === runId && p(e).stream === 'lifecycle' && p(e).data.phase === 'error')).toBe(false)
      await c.close()
    })
  }
})
