// The tools inside a real pi Agent: the real pi-ai OpenAI client talks to the scripted model server, the
// agent validates arguments against our TypeBox schemas, runs the tools and feeds results back to the model.
import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { Agent, type AgentEvent } from '@earendil-works/pi-agent-core'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { startModelServer, type ModelServer } from '../../../../test/fixtures/model-server'
import { mockPiModel } from '../../../../test/fixtures/pi-mock-model'
import type { ExecApprovalRequest } from '../../../shared/events'
import { buildPayloads } from '../reply'
import { ApprovalBroker } from './approvals'
import { createTools } from './catalog'
import { isMessagingTool, toolMeta } from './meta'
import { capToolResultForPersist, sanitizeToolResultForEvent } from './sanitize'
import { makeSandbox, type Sandbox } from './test-helpers'

let server: ModelServer
let models: ReturnType<typeof mockPiModel>['models']
let model: ReturnType<typeof mockPiModel>['model']

beforeAll(async () => {
  server = await startModelServer()
  ;({ models, model } = mockPiModel(server.openaiBaseUrl))
})
afterAll(() => server.close())

let sb: Sandbox
beforeEach(() => {
  sb = makeSandbox()
  writeFileSync(path.join(sb.outside, 'secret.txt'), 'TOP SECRET')
})
afterEach(() => sb.cleanup())

function setup(onApproval: (req: ExecApprovalRequest, broker: ApprovalBroker) => void) {
  const sent: string[] = []
  const broker: ApprovalBroker = new ApprovalBroker({
    timeoutMs: 5000,
    emit: (e) => {
      if (e.event === 'exec.approval.requested') queueMicrotask(() => onApproval(e.payload, broker))
    },
  })
  const tools = createTools({
    workspaceDir: sb.ws, runId: 'r1', sessionKey: 'agent:main:main', approvals: broker, execAllowlist: [],
    execTimeoutSeconds: 30, execMaxOutputChars: 10_000, webFetch: { maxBytes: 100_000, timeoutMs: 2000 },
    sendMessage: (t) => sent.push(t),
  })
  const agent = new Agent({
    initialState: { systemPrompt: 'You are a test agent.', model, tools },
    streamFn: models.streamSimple.bind(models),
    getApiKey: () => 'dummy',
  })
  const events: AgentEvent[] = []
  agent.subscribe((ev) => {
    events.push(ev)
  })
  return { agent, sent, broker, events }
}

const toolResults = (agent: Agent) =>
  agent.state.messages.filter((m) => m.role === 'toolResult') as Array<{ toolName: string; isError: boolean; content: Array<{ type: string; text?: string }> }>
const resultText = (m: { content: Array<{ type: string; text?: string }> }) => m.content.map((c) => c.text ?? '').join('')

describe('tools inside a real pi Agent', () => {
  it('runs write/read/exec(approved)/message, refuses an escape, and reply shaping drops the duplicate', async () => {
    server.script([
      {
        toolCalls: [
          { name: 'write', args: { path: 'notes/a.txt', content: 'hello from the agent' } },
          { name: 'read', args: { path: '../outside/secret.txt' } },
        ],
      },
      { toolCalls: [{ name: 'exec', args: { command: 'cat notes/a.txt' } }] },
      { toolCalls: [{ name: 'message', args: { text: 'The note is written and checked.' } }] },
      { text: 'The note is written and checked.' },
    ])
    const { agent, sent, events } = setup((req, broker) => broker.resolve(req.id, 'allow-once'))
    await agent.prompt('write a note')

    expect(readFileSync(path.join(sb.ws, 'notes/a.txt'), 'utf8')).toBe('hello from the agent')
    const results = toolResults(agent)
    expect(results.map((r) => [r.toolName, r.isError])).toEqual([
      ['write', false],
      ['read', true],
      ['exec', false],
      ['message', false],
    ])
    expect(resultText(results[1])).toMatch(/Access denied/)
    expect(resultText(results[2])).toBe('hello from the agent')
    expect(sent).toEqual(['The note is written and checked.'])

    // The model saw the refusal as a tool result in its next request.
    const secondReq = JSON.stringify(server.requests.at(-3)!.body.messages)
    expect(secondReq).toContain('Access denied')
    expect(secondReq).not.toContain('TOP SECRET')
    // Tool declarations went over the wire with our JSON schemas.
    const declared = server.requests[0].body.tools.map((t: any) => t.function.name)
    expect(declared).toEqual(['read', 'write', 'edit', 'ls', 'glob', 'grep', 'exec', 'web_fetch', 'message'])

    // What a runner would do with the events and messages.
    const ends = events.filter((e) => e.type === 'tool_execution_end') as Array<Extract<AgentEvent, { type: 'tool_execution_end' }>>
    for (const e of ends) expect(JSON.stringify(sanitizeToolResultForEvent(e.result)).length).toBeLessThan(9000)
    for (const r of results) expect(capToolResultForPersist(r)).toBe(r)
    const starts = events.filter((e) => e.type === 'tool_execution_start') as Array<Extract<AgentEvent, { type: 'tool_execution_start' }>>
    expect(starts.map((s) => toolMeta(s.toolName, s.args))).toEqual(['notes/a.txt', '../outside/secret.txt', 'cat notes/a.txt', '"The note is written and checked."'])
    const messagingSent = starts.filter((s) => isMessagingTool(s.toolName)).map((s) => (s.args as { text: string }).text)
    const finalText = (agent.state.messages.at(-1) as { content: Array<{ type: string; text?: string }> }).content.map((c) => c.text ?? '').join('')
    expect(buildPayloads({ assistantTexts: [finalText], reasoningTexts: [], reasoningMode: 'off', verbose: 'off', toolSummaries: [], messagingSent })).toEqual([])
  })

  it('a denied exec reaches the model as an error and nothing runs; fallback reply names the failure', async () => {
    server.script([{ toolCalls: [{ name: 'exec', args: { command: 'touch ran.txt' } }] }, { text: 'NO_REPLY' }])
    const { agent } = setup((req, broker) => broker.resolve(req.id, 'deny'))
    await agent.prompt('do it')
    const [r] = toolResults(agent)
    expect(r.isError).toBe(true)
    expect(resultText(r)).toMatch(/exec denied by user/)
    const payloads = buildPayloads({
      assistantTexts: ['NO_REPLY'], reasoningTexts: [], reasoningMode: 'off', verbose: 'off', toolSummaries: [], messagingSent: [],
      lastToolError: { toolName: 'exec', meta: toolMeta('exec', { command: 'touch ran.txt' }), error: resultText(r) },
    })
    expect(payloads).toEqual([{ text: '⚠️ exec (touch ran.txt) failed: exec denied by user: the command was not run', isError: true }])
  })

  it('agent.abort() during exec kills the command', async () => {
    server.script([{ toolCalls: [{ name: 'exec', args: { command: 'echo "pid:$$"; sleep 30' } }] }])
    const { agent, events } = setup((req, broker) => broker.resolve(req.id, 'allow-once'))
    agent.subscribe((ev) => {
      if (ev.type === 'tool_execution_update') {
        const text = JSON.stringify(ev.partialResult)
        if (text.includes('pid:')) agent.abort()
      }
    })
    const started = Date.now()
    await agent.prompt('run it')
    expect(Date.now() - started).toBeLessThan(10_000)
    const [r] = toolResults(agent)
    expect(r.isError).toBe(true)
    expect(resultText(r)).toMatch(/aborted/)
    const update = events.find((e) => e.type === 'tool_execution_update') as Extract<AgentEvent, { type: 'tool_execution_update' }>
    const pid = Number(/pid:(\d+)/.exec(JSON.stringify(update.partialResult))![1])
    let alive: boolean
    try {
      process.kill(pid, 0)
      alive = !readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].startsWith('Z')
    } catch {
      alive = false
    }
    expect(alive).toBe(false)
  })
})
