// OpenClaw `agent` params beyond Loopdesk's own, over the gateway of a REAL runtime: bootstrapContextMode
// "lightweight" leaves the workspace's bootstrap files out of the system prompt; bootstrapContextRunKind and
// cleanupBundleMcpOnRunEnd are taken; promptMode other than "full", internalEvents, cwd and modelRun are
// refused with the reason, before anything runs; so are v4's disableMessageTool / suppressPromptPersistence /
// sessionEffects "internal", whose neutral values are taken, like the apps' voiceWakeTrigger.
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { useRuntimeGateway } from '../../../test/fixtures/runtime-gateway'
import { connectGateway, type GatewayConnectionClient } from '../../cli/gateway-client'
import { generateNodeDeviceIdentity } from '../../cli/identity'

const TOKEN = 'agent-params-token-0123456789'
const env = useRuntimeGateway(TOKEN, { fallback: { text: 'ok' } })
const MARK = 'ALWAYS-ANSWER-IN-PIRATE-SPEAK-7f3a'
let c: GatewayConnectionClient
const identity = generateNodeDeviceIdentity()

beforeAll(async () => {
  fs.mkdirSync(env.stack.rt.workspace, { recursive: true })
  fs.writeFileSync(path.join(env.stack.rt.workspace, 'AGENTS.md'), `# Rules\n${MARK}\n`)
  c = await connectGateway({ url: env.stack.gw.url, token: TOKEN, identity })
})
afterAll(async () => {
  await c?.close()
})

/** the system prompt of the model request a run made */
async function systemPromptOf(params: Record<string, unknown>): Promise<string> {
  const before = env.server.requests.length
  const final = await c.request('agent', { message: 'hi', ...params }, { expectFinal: true })
  expect(final.status).toBe('ok')
  const req = env.server.requests.slice(before).at(-1)!
  const system = req.body.messages.find((m: { role: string }) => m.role === 'system' || m.role === 'developer')
  return typeof system.content === 'string' ? system.content : system.content.map((p: { text?: string }) => p.text ?? '').join('')
}

async function refusal(params: Record<string, unknown>): Promise<string> {
  try {
    await c.request('agent', { message: 'hi', sessionKey: 'agent:main:refused', ...params })
  } catch (err) {
    return (err as Error).message
  }
  throw new Error('accepted')
}

describe('OpenClaw agent params', () => {
  it('bootstrapContextMode "lightweight" leaves the bootstrap files out; "full" (and none) keeps them', async () => {
    expect(await systemPromptOf({ sessionKey: 'agent:main:bp1', idempotencyKey: 'bp-full' })).toContain(MARK)
    expect(await systemPromptOf({ sessionKey: 'agent:main:bp1', idempotencyKey: 'bp-full2', bootstrapContextMode: 'full' })).toContain(MARK)
    const light = await systemPromptOf({ sessionKey: 'agent:main:bp1', idempotencyKey: 'bp-light', bootstrapContextMode: 'lightweight', bootstrapContextRunKind: 'cron' })
    expect(light).not.toContain(MARK)
    expect(light.length).toBeGreaterThan(0)
  })

  it('bootstrapContextRunKind, cleanupBundleMcpOnRunEnd and promptMode "full" are taken', async () => {
    const prompt = await systemPromptOf({
      sessionKey: 'agent:main:bp2',
      idempotencyKey: 'bp-kinds',
      bootstrapContextRunKind: 'heartbeat',
      cleanupBundleMcpOnRunEnd: true,
      promptMode: 'full',
    })
    expect(prompt).toContain(MARK)
  })

  it('promptMode minimal/none, internalEvents, cwd and modelRun are refused with the reason; nothing runs', async () => {
    const before = env.server.requests.length
    expect(await refusal({ idempotencyKey: 'r1', promptMode: 'minimal' })).toMatch(/promptMode "minimal" is not supported/)
    expect(await refusal({ idempotencyKey: 'r2', promptMode: 'none' })).toMatch(/promptMode "none" is not supported/)
    expect(await refusal({ idempotencyKey: 'r3', internalEvents: [{ type: 'task_completion' }] })).toMatch(/internalEvents are not supported/)
    expect(await refusal({ idempotencyKey: 'r4', cwd: '/tmp' })).toMatch(/cwd is not supported/)
    expect(await refusal({ idempotencyKey: 'r5', modelRun: true })).toMatch(/modelRun is not supported/)
    // a value of the wrong type is still a schema error
    expect(await refusal({ idempotencyKey: 'r6', bootstrapContextMode: 'tiny' })).toMatch(/invalid agent params/)
    expect(env.server.requests.length).toBe(before)
    const list = (await c.request('sessions.list', {})) as { sessions: Array<{ key: string }> }
    expect(list.sessions.some((s) => s.key === 'agent:main:refused')).toBe(false)
  })

  it("the apps' voiceWakeTrigger and v4's delivery mode are taken; the message tool, prompt storage and session effects only as they are", async () => {
    // what OpenClaw's macOS app sends with a voice-wake turn, and v4's reply-delivery and run-effect fields
    const prompt = await systemPromptOf({
      sessionKey: 'agent:main:wake',
      idempotencyKey: 'wake-1',
      voiceWakeTrigger: 'hey claw',
      sourceReplyDeliveryMode: 'message_tool_only',
      disableMessageTool: false,
      suppressPromptPersistence: false,
      sessionEffects: 'visible',
    })
    expect(prompt).toContain(MARK)
    const before = env.server.requests.length
    expect(await refusal({ idempotencyKey: 'w1', disableMessageTool: true })).toMatch(/disableMessageTool is not supported/)
    expect(await refusal({ idempotencyKey: 'w2', suppressPromptPersistence: true })).toMatch(/suppressPromptPersistence is not supported/)
    expect(await refusal({ idempotencyKey: 'w3', sessionEffects: 'internal' })).toMatch(/sessionEffects "internal" is not supported/)
    expect(await refusal({ idempotencyKey: 'w4', sourceReplyDeliveryMode: 'sometimes' })).toMatch(/invalid agent params/)
    // OpenClaw's gateway-internal fields stay refused by the schema (no subagents, ACP or swarms here)
    expect(await refusal({ idempotencyKey: 'w5', swarmCollector: true })).toMatch(/invalid agent params/)
    expect(env.server.requests.length).toBe(before)
  })
})
