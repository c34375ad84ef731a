// The tool loadout against a real pi Agent and the scripted model server: every request carries exactly
// what an Agent given its tools the usual way sends (system prompt + all tool declarations, no extra system
// messages), tools still run, and pi's per-request tool diff never serializes a tool schema.
import { Agent, type AgentMessage, type AgentTool } from '@earendil-works/pi-agent-core'
import { createInitialSystemMessage, toToolDeclaration } from '@earendil-works/pi-ai'
import Type from 'typebox'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { startModelServer, type ModelServer } from '../../../../test/fixtures/model-server'
import { mockPiModel } from '../../../../test/fixtures/pi-mock-model'
import { createToolLoadout } from './tool-loadout'

let server: ModelServer
let models: ReturnType<typeof mockPiModel>['models']
let model: ReturnType<typeof mockPiModel>['model']

beforeAll(async () => {
  server = await startModelServer()
  ;({ models, model } = mockPiModel(server.openaiBaseUrl))
})
afterAll(() => server.close())
afterEach(() => server.script([]))

/** Two tools whose `parameters` reads are counted (pi's diff reads them to JSON round-trip them). */
function makeTools() {
  const reads = { n: 0 }
  const calls: string[] = []
  const tool = (name: string, parameters: ReturnType<typeof Type.Object>): AgentTool<any, any> => {
    const t = {
      name,
      label: name,
      description: `the ${name} tool`,
      execute: async (_id: string, params: unknown) => {
        calls.push(`${name}:${JSON.stringify(params)}`)
        return { content: [{ type: 'text' as const, text: `${name} done` }], details: {} }
      },
    } as AgentTool<any, any>
    Object.defineProperty(t, 'parameters', {
      enumerable: true,
      get: () => {
        reads.n++
        return parameters
      },
    })
    return t
  }
  const tools = [
    tool('lookup', Type.Object({ q: Type.String({ description: 'what to look up' }) })),
    tool('note', Type.Object({ text: Type.String(), tags: Type.Optional(Type.Array(Type.String())) })),
  ]
  return { tools, reads, calls }
}

const SYSTEM = 'You are a test agent.'

/** An Agent given its tools the usual way (leading message with declarations + state.tools). */
function plainAgent(history: AgentMessage[] = []) {
  const { tools, reads, calls } = makeTools()
  const leading = createInitialSystemMessage(SYSTEM, tools.map(toToolDeclaration))!
  const agent = new Agent({ initialState: { model, messages: [leading, ...history] }, streamFn: models.streamSimple.bind(models), getApiKey: () => 'dummy' })
  agent.state.tools = tools
  return { agent, reads, calls }
}

/** The same Agent through the loadout (as the embedded runner builds it). */
function loadoutAgent(history: AgentMessage[] = []) {
  const { tools, reads, calls } = makeTools()
  const declarations = tools.map(toToolDeclaration)
  const loadout = createToolLoadout(SYSTEM, tools, declarations)
  reads.n = 0 // declarations are built once per run (per tool spec for built-in tools): not counted
  const agent = new Agent({
    initialState: { model, messages: [loadout.leading, ...history] },
    streamFn: models.streamSimple.bind(models),
    getApiKey: () => 'dummy',
    prepareRequest: (r) => loadout.prepareRequest(r),
    prepareNextTurnWithContext: (t) => loadout.prepareNextTurnWithContext(t),
  })
  return { agent, reads, calls, loadout }
}

const script = () => [
  { text: 'Looking.', toolCalls: [{ id: 'c1', name: 'lookup', args: { q: 'milk' } }] },
  { toolCalls: [{ id: 'c2', name: 'note', args: { text: 'buy milk', tags: ['shop'] } }] },
  { text: 'Done: noted.' },
]

async function bodies(run: () => Promise<void>): Promise<any[]> {
  const before = server.requests.length
  await run()
  return server.requests.slice(before).map((r) => r.body)
}

describe('tool loadout', () => {
  it('every request of a multi-turn tool run is identical to the usual way, tools run, no schema is serialized by the diff', async () => {
    const history: AgentMessage[] = [
      { role: 'user', content: [{ type: 'text', text: 'earlier' }], timestamp: 1 } as AgentMessage,
      { role: 'system', content: 'Later instructions.', timestamp: 2 } as AgentMessage,
    ]
    server.script(script())
    const ref = plainAgent(history)
    const expected = await bodies(() => ref.agent.prompt('note milk'))
    server.script(script())
    const opt = loadoutAgent(history)
    const got = await bodies(() => opt.agent.prompt('note milk'))

    expect(got).toHaveLength(3)
    expect(got).toEqual(expected)
    for (const b of got) expect(b.tools.map((t: any) => t.function.name)).toEqual(['lookup', 'note'])
    expect(got[0].messages[0]).toMatchObject({ role: 'system', content: expect.stringContaining(SYSTEM) })
    expect(opt.calls).toEqual(ref.calls)
    expect(opt.calls).toEqual(['lookup:{"q":"milk"}', 'note:{"text":"buy milk","tags":["shop"]}'])
    // the usual way also reads every schema for pi's diff before each request
    expect(opt.reads.n).toBeLessThan(ref.reads.n)
    // pi inserted no tool-change system message, and the state's messages match apart from the leading one
    const roles = (a: Agent) => a.state.messages.map((m) => m.role)
    expect(roles(opt.agent)).toEqual(roles(ref.agent))
    expect(opt.agent.state.messages.filter((m) => m.role === 'system')).toHaveLength(2)
    expect(opt.loadout.asDeclared(opt.agent.state.messages)[0]).toEqual(ref.agent.state.messages[0])
  })

  it('a text-only run: pi never touches a tool schema (the usual way serializes each one before every request)', async () => {
    server.script([{ text: 'hello' }])
    const ref = plainAgent()
    const expected = await bodies(() => ref.agent.prompt('hi'))
    server.script([{ text: 'hello' }])
    const opt = loadoutAgent()
    const got = await bodies(() => opt.agent.prompt('hi'))
    expect(got).toEqual(expected)
    expect(got[0].tools).toHaveLength(2)
    expect(ref.reads.n).toBeGreaterThanOrEqual(4)
    expect(opt.reads.n).toBe(0)
  })

  it('steering during a tool and continue() after a dropped assistant message keep the declarations', async () => {
    const run = async (make: typeof plainAgent) => {
      const { agent } = make()
      let steered = false
      agent.subscribe((e) => {
        if (e.type === 'tool_execution_start' && !steered) {
          steered = true
          agent.steer({ role: 'user', content: [{ type: 'text', text: 'also: hurry' }], timestamp: 3 } as AgentMessage)
        }
      })
      server.script([{ toolCalls: [{ id: 'c1', name: 'lookup', args: { q: 'x' } }] }, { text: 'ok' }, { text: 'again' }])
      const first = await bodies(() => agent.prompt('go'))
      agent.state.messages = agent.state.messages.slice(0, -1) // as the overflow retry does
      const second = await bodies(() => agent.continue())
      return [...first, ...second]
    }
    const expected = await run(plainAgent)
    const got = await run(loadoutAgent)
    expect(got).toHaveLength(3)
    expect(got).toEqual(expected)
    expect(JSON.stringify(got[1].messages)).toContain('also: hurry')
    for (const b of got) expect(b.tools.map((t: any) => t.function.name)).toEqual(['lookup', 'note'])
  })

  it('hooks: prepareRequest adds tools + declarations once; prepareNextTurn takes both out; foreign contexts are left alone', () => {
    const { tools } = makeTools()
    const decls = tools.map(toToolDeclaration)
    const l = createToolLoadout(SYSTEM, tools, decls)
    const user = { role: 'user', content: 'hi', timestamp: 1 } as AgentMessage
    const req = l.prepareRequest({ context: { messages: [l.leading, user], tools: [] } })!
    expect(req.context!.tools).toEqual(tools)
    expect(req.context!.messages[0]).toMatchObject({ role: 'system', content: SYSTEM, toolsAdded: decls })
    expect(req.context!.messages[1]).toBe(user)
    expect(l.prepareRequest({ context: req.context! })).toBeUndefined()
    const next = l.prepareNextTurnWithContext({ context: req.context! })!
    expect(next.context).toEqual({ messages: [l.leading, user], tools: [] })
    expect(l.prepareNextTurnWithContext({ context: next.context! })).toBeUndefined()
    const foreign = { role: 'system', content: 'other', timestamp: 0 } as AgentMessage
    expect(l.prepareRequest({ context: { messages: [foreign, user], tools: [] } })).toBeUndefined()
    expect(l.asDeclared([foreign, user])).toEqual([foreign, user])
  })
})
