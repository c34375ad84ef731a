// A run waiting for a global slot (agents.defaults.maxConcurrent taken by other sessions' runs) over the
// gateway of a REAL runtime: a client that declares `loopdesk.run-wait` (the window's WebSocket bridge) hears the
// `lane` stream — how many runs hold the slots, the limit — before the run's lifecycle start; an OpenClaw client
// gets no such event and a gapless frame seq.
import { describe, expect, it } from 'vitest'
import { useRuntimeGateway } from '../../../test/fixtures/runtime-gateway'
import { connectGateway, type EventFrameIn } from '../../cli/gateway-client'
import { generateNodeDeviceIdentity } from '../../cli/identity'
import { RUN_WAIT_CAP } from '../../shared/events'
import { until } from '../../../test/fixtures/until'

const TOKEN = 'lane-wait-wire-token-0123456789'
const env = useRuntimeGateway(TOKEN)
const identity = generateNodeDeviceIdentity()
const connect = (caps: string[] = []) => connectGateway({ url: env.stack.gw.url, token: TOKEN, identity, caps })

type AgentPayload = { runId: string; stream: string; data: Record<string, unknown> }
const agentOf = (events: EventFrameIn[], runId: string) =>
  events.filter((e) => e.event === 'agent' && (e.payload as AgentPayload).runId === runId)
const streams = (events: EventFrameIn[], runId: string) => agentOf(events, runId).map((e) => (e.payload as AgentPayload).stream)

describe('a run waiting for a global slot over the gateway', () => {
  it('the cap client hears `lane` waiting (running, limit) before the start; an OpenClaw client sees no change', async () => {
    env.stack.rt.runtime.core.queue.setConcurrency('main', 1)
    const loopdesk = await connect(['tool-events', RUN_WAIT_CAP])
    const openclaw = await connect(['tool-events'])
    const [el, eo]: EventFrameIn[][] = [[], []]
    loopdesk.onEvent((e) => el.push(e))
    openclaw.onEvent((e) => eo.push(e))
    env.server.script([{ hang: true }, { text: 'second answer' }])
    await loopdesk.request('agent', { sessionKey: 'lw-a', message: 'hang', idempotencyKey: 'lw-hang' })
    await until(() => streams(el, 'lw-hang').includes('lifecycle'), 5000)
    const notes = { type: 'file', mimeType: 'text/plain', fileName: 'notes.txt', content: Buffer.from('some notes').toString('base64') }
    await loopdesk.request('agent', { sessionKey: 'lw-b', message: 'hello', idempotencyKey: 'lw-wait', attachments: [notes] })
    await until(() => streams(el, 'lw-wait').includes('lane'), 5000)
    // still waiting: no start yet, and agent.wait agrees
    expect(streams(el, 'lw-wait')).toEqual(['lane'])
    const lane = agentOf(el, 'lw-wait')[0]
    // the message (its attachment's line too) rides along: the transcript has it only once the run starts
    const { message, ...wait } = (lane.payload as AgentPayload).data
    expect(wait).toEqual({ phase: 'waiting', lane: 'global', running: 1, limit: 1, ahead: 0 })
    expect(message).toMatch(/^hello\n\n\[File attached: notes\.txt \(text\/plain, 10 bytes\) saved at .+\]$/)
    const userTexts = async () => {
      const h = (await loopdesk.request('chat.history', { sessionKey: 'lw-b' })) as { messages: Array<{ role: string; content: unknown }> }
      return h.messages.filter((m) => m.role === 'user').map((m) => (Array.isArray(m.content) ? m.content.map((c: { text?: string }) => c.text ?? '').join('') : m.content))
    }
    expect(await userTexts()).toEqual([])
    expect(lane.seq).toBeUndefined()
    await expect(loopdesk.request('agent.wait', { runId: 'lw-wait', timeoutMs: 50 })).resolves.toMatchObject({ status: 'pending', timeoutPhase: 'queue' })

    await loopdesk.request('chat.abort', { sessionKey: 'lw-a' })
    // the slot freed: the waiting run starts
    const started = (events: EventFrameIn[]) => agentOf(events, 'lw-wait').some((e) => (e.payload as AgentPayload).data.phase === 'start')
    await until(() => started(el) && started(eo), 5000)
    expect(streams(el, 'lw-wait')[0]).toBe('lane')
    expect(streams(el, 'lw-wait')[1]).toBe('lifecycle')
    expect(streams(eo, 'lw-wait')).not.toContain('lane')
    // the transcript's user turn is the text the lane event carried
    await until(async () => (await userTexts()).length > 0, 5000)
    expect(await userTexts()).toEqual([message])
    const seqs = eo.filter((e) => e.seq !== undefined).map((e) => e.seq!)
    for (let i = 1; i < seqs.length; i++) expect(seqs[i]).toBe(seqs[i - 1] + 1)
    await loopdesk.request('chat.abort', { sessionKey: 'lw-b' })
    // a run that starts at once says nothing of lanes
    env.server.script([{ text: 'quick' }])
    await loopdesk.request('agent', { sessionKey: 'lw-c', message: 'quick', idempotencyKey: 'lw-quick' })
    await until(() => agentOf(el, 'lw-quick').some((e) => (e.payload as AgentPayload).data.phase === 'end'), 5000)
    expect(streams(el, 'lw-quick')).not.toContain('lane')
    await Promise.all([loopdesk.close(), openclaw.close()])
  })
})
