// The `reasoning` agent stream (Loopdesk's "the model is thinking", runner/bridge.ts) over the gateway of a
// REAL runtime and a scripted reasoning model: a client that declares `loopdesk.reasoning-status` (the window's
// WebSocket bridge) gets it, targeted (no frame seq); an OpenClaw client gets exactly what it got before — no
// such event, and a frame seq without gaps.
import { describe, expect, it } from 'vitest'
import { useRuntimeGateway } from '../../../test/fixtures/runtime-gateway'
import { connectGateway, type EventFrameIn } from '../../cli/gateway-client'
import { generateNodeDeviceIdentity } from '../../cli/identity'
import { REASONING_STATUS_CAP, type ChatEvent } from '../../shared/events'
import { until } from '../../../test/fixtures/until'

const TOKEN = 'reasoning-wire-token-0123456789'
const env = useRuntimeGateway(TOKEN)
const identity = generateNodeDeviceIdentity()
const connect = (caps: string[] = []) => connectGateway({ url: env.stack.gw.url, token: TOKEN, identity, caps })

const agentOf = (events: EventFrameIn[], runId: string) =>
  events.filter((e) => e.event === 'agent' && (e.payload as { runId?: string }).runId === runId)
const chatFinal = (events: EventFrameIn[], runId: string) =>
  events.some((e) => e.event === 'chat' && (e.payload as { runId?: string; state?: string }).runId === runId && (e.payload as { state?: string }).state === 'final')

describe('the reasoning stream over the gateway', () => {
  it('reaches only clients with the cap, without frame seq; an OpenClaw client sees no change', async () => {
    const loopdesk = await connect(['tool-events', REASONING_STATUS_CAP])
    const openclaw = await connect(['tool-events'])
    const [el, eo]: EventFrameIn[][] = [[], []]
    loopdesk.onEvent((e) => el.push(e))
    openclaw.onEvent((e) => eo.push(e))
    env.server.script([{ reasoning: ['hidden ', 'thoughts'], text: 'the answer', delayMs: 10 }])
    await loopdesk.request('chat.send', { sessionKey: 'rw1', message: 'think', idempotencyKey: 'rw-run' })
    await until(() => chatFinal(el, 'rw-run') && chatFinal(eo, 'rw-run'), 5000)

    const reasoning = agentOf(el, 'rw-run').filter((e) => (e.payload as { stream: string }).stream === 'reasoning')
    expect(reasoning.map((e) => (e.payload as { data: unknown }).data)).toEqual([{ phase: 'start' }, { phase: 'end' }])
    expect(reasoning.every((e) => e.seq === undefined)).toBe(true)
    // reasoning level off: the text goes to nobody
    expect(JSON.stringify(el)).not.toContain('hidden')

    expect(agentOf(eo, 'rw-run').map((e) => (e.payload as { stream: string }).stream)).not.toContain('reasoning')
    // the broadcast frames an OpenClaw client counts on stay gapless
    const seqs = eo.filter((e) => e.seq !== undefined).map((e) => e.seq!)
    for (let i = 1; i < seqs.length; i++) expect(seqs[i]).toBe(seqs[i - 1] + 1)
    await Promise.all([loopdesk.close(), openclaw.close()])
  })

  it('<think> tags in the model text: chat events and the agent stream carry the reply alone, the cap client hears the block', async () => {
    const loopdesk = await connect(['tool-events', REASONING_STATUS_CAP])
    const openclaw = await connect(['tool-events'])
    const [el, eo]: EventFrameIn[][] = [[], []]
    loopdesk.onEvent((e) => el.push(e))
    openclaw.onEvent((e) => eo.push(e))
    env.server.script([{ textChunks: ['<thi', 'nk>secret ', 'plan</thi', 'nk>\n\nthe ', 'answer'], delayMs: 10 }])
    await loopdesk.request('chat.send', { sessionKey: 'rw2', message: 'think', idempotencyKey: 'rw-tags' })
    await until(() => chatFinal(el, 'rw-tags') && chatFinal(eo, 'rw-tags'), 5000)

    for (const events of [el, eo]) {
      expect(JSON.stringify(events)).not.toMatch(/secret|think>/)
      const chat = events.filter((e) => e.event === 'chat' && (e.payload as { runId?: string }).runId === 'rw-tags').map((e) => e.payload as ChatEvent)
      expect(chat.at(-1)).toMatchObject({ state: 'final', message: { content: [{ type: 'text', text: 'the answer' }] } })
    }
    const reasoning = agentOf(el, 'rw-tags').filter((e) => (e.payload as { stream: string }).stream === 'reasoning')
    expect(reasoning.map((e) => (e.payload as { data: unknown }).data)).toEqual([{ phase: 'start' }, { phase: 'end' }])
    expect(agentOf(eo, 'rw-tags').map((e) => (e.payload as { stream: string }).stream)).not.toContain('reasoning')
    // the transcript row: the reasoning as a thinking block, the reply as text
    const history = (await openclaw.request('chat.history', { sessionKey: 'rw2' })) as { messages: Array<{ role: string; content: unknown }> }
    expect(history.messages.find((m) => m.role === 'assistant')!.content).toEqual([
      { type: 'thinking', thinking: 'secret plan' },
      { type: 'text', text: 'the answer' },
    ])
    await Promise.all([loopdesk.close(), openclaw.close()])
  })
})
