// Tool-event routing over real WebSockets: `agent` tool events only to tool-events cap holders that
// started the run or joined its session (sent to it / opened it with chat.history, also mid-run);
// data.result / partialResult stripped unless the session is verbose full or the client renders
// results (cap loopdesk.tool-results, or Loopdesk's own UI); every sessions.subscribe subscriber gets
// the event mirrored as `session.tool`. All of them targeted: no frame seq.
import { writeFileSync } from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import type { EventFrameIn, GatewayConnectionClient } from '../../cli/gateway-client'
import { startTestGateway, type TestGateway } from './test-support'
import { until } from '../../../test/fixtures/until'

let t: TestGateway | undefined
afterEach(async () => {
  await t?.stop()
  t = undefined
})

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
function collect(c: GatewayConnectionClient) {
  const events: EventFrameIn[] = []
  c.onEvent((e) => events.push(e))
  return events
}
const tools = (events: EventFrameIn[], runId?: string) =>
  events.filter((e) => e.event === 'agent' && (e.payload as any).stream === 'tool' && (!runId || (e.payload as any).runId === runId))
const mirrored = (events: EventFrameIn[]) => events.filter((e) => e.event === 'session.tool')

let seqs = 0
/** A run nobody connected started (another process, a channel): a tool start, an update and a result. */
function emitForeignTools(tg: TestGateway, runId: string, sessionKey: string) {
  for (const data of [
    { phase: 'start', name: 'exec', toolCallId: 'x1', args: { command: 'ls' } },
    { phase: 'update', name: 'exec', toolCallId: 'x1', partialResult: 'a.txt' },
    { phase: 'result', name: 'exec', toolCallId: 'x1', isError: false, meta: 'ls', result: 'a.txt\nb.txt' },
  ]) {
    tg.host.emit({ event: 'agent', payload: { runId, seq: ++seqs, stream: 'tool', ts: Date.now(), data, sessionKey } })
  }
}

describe('tool-event routing', () => {
  it('a cap holder that opens a session mid-run (chat.history) gets its tool events from then on; others do not', async () => {
    t = await startTestGateway()
    const watcher = await t.connect({ caps: ['tool-events'] })
    const other = await t.connect({ caps: ['tool-events'] })
    const [ew, eo] = [collect(watcher), collect(other)]
    emitForeignTools(t, 'ext-1', 'agent:main:watched')
    await sleep(30)
    expect(tools(ew)).toEqual([])
    // bare key: canonicalized like the runtime does it
    await watcher.request('chat.history', { sessionKey: 'watched' })
    emitForeignTools(t, 'ext-1', 'agent:main:watched')
    emitForeignTools(t, 'ext-2', 'agent:main:elsewhere')
    await until(() => tools(ew).length === 3)
    await sleep(30)
    expect(tools(ew).map((e) => (e.payload as any).runId)).toEqual(['ext-1', 'ext-1', 'ext-1'])
    expect(tools(ew).every((e) => e.seq === undefined)).toBe(true)
    expect(tools(eo)).toEqual([])
    await Promise.all([watcher.close(), other.close()])
  })

  it('chat.send joins the run and its session; the cap is still required', async () => {
    t = await startTestGateway({ withTool: true })
    const sender = await t.connect({ caps: ['tool-events'] })
    const capless = await t.connect()
    const [es, ec] = [collect(sender), collect(capless)]
    await sender.request('chat.send', { sessionKey: 'agent:main:chat', message: 'hi', idempotencyKey: 'cs-1' })
    await capless.request('chat.send', { sessionKey: 'agent:main:chat2', message: 'hi', idempotencyKey: 'cs-2' })
    await until(() => tools(es, 'cs-1').length === 2)
    // a later run in the joined session (started by someone else) reaches it too
    emitForeignTools(t, 'ext-3', 'agent:main:chat')
    await until(() => tools(es, 'ext-3').length === 3)
    await sleep(30)
    expect(tools(es, 'cs-2')).toEqual([])
    expect(tools(ec)).toEqual([])
    await Promise.all([sender.close(), capless.close()])
  })

  it('results only when the session is verbose full, the default says full, or the client renders them', async () => {
    t = await startTestGateway()
    const plain = await t.connect({ caps: ['tool-events'] })
    const renders = await t.connect({ caps: ['tool-events', 'loopdesk.tool-results'] })
    const ui = await t.connect({ caps: ['tool-events'], clientId: 'openclaw-control-ui', clientMode: 'ui', origin: t.gw.httpUrl })
    const all = [plain, renders, ui]
    const evs = all.map(collect)
    for (const c of all) await c.request('chat.history', { sessionKey: 'agent:main:v' })
    const resultOf = (list: EventFrameIn[], runId: string) => (tools(list, runId).find((e) => (e.payload as any).data.phase === 'result')?.payload as any)?.data
    const updateOf = (list: EventFrameIn[], runId: string) => (tools(list, runId).find((e) => (e.payload as any).data.phase === 'update')?.payload as any)?.data

    emitForeignTools(t, 'v-off', 'agent:main:v')
    await until(() => evs.every((l) => tools(l, 'v-off').length === 3))
    expect(resultOf(evs[0], 'v-off')).toEqual({ phase: 'result', name: 'exec', toolCallId: 'x1', isError: false, meta: 'ls' })
    expect(updateOf(evs[0], 'v-off')).toEqual({ phase: 'update', name: 'exec', toolCallId: 'x1' })
    expect(tools(evs[0], 'v-off')[0].payload).toMatchObject({ data: { phase: 'start', args: { command: 'ls' } } }) // args stay
    for (const l of [evs[1], evs[2]]) {
      expect(resultOf(l, 'v-off').result).toBe('a.txt\nb.txt')
      expect(updateOf(l, 'v-off').partialResult).toBe('a.txt')
    }

    // the session switched to verbose full (sessions.changed carries the row)
    t.host.emit({ event: 'sessions.changed', payload: { sessionKey: 'agent:main:v', reason: 'patch', ts: Date.now(), session: { key: 'agent:main:v', verboseLevel: 'full' } as any } })
    emitForeignTools(t, 'v-full', 'agent:main:v')
    await until(() => tools(evs[0], 'v-full').length === 3)
    expect(resultOf(evs[0], 'v-full').result).toBe('a.txt\nb.txt')
    // and back: a row without verboseLevel falls back to the default (off)
    t.host.emit({ event: 'sessions.changed', payload: { sessionKey: 'agent:main:v', reason: 'patch', ts: Date.now(), session: { key: 'agent:main:v' } as any } })
    emitForeignTools(t, 'v-back', 'agent:main:v')
    await until(() => tools(evs[0], 'v-back').length === 3)
    expect(resultOf(evs[0], 'v-back').result).toBeUndefined()
    await Promise.all(all.map((c) => c.close()))
  })

  it('agents.defaults.verboseDefault "full" in the config keeps results for sessions without their own level', async () => {
    t = await startTestGateway()
    writeFileSync(t.host.info.configPath, '{ agents: { defaults: { verboseDefault: "full" } } }')
    // the gateway reads the runtime's validated config, which picks the edit up on its next poll
    await until(() => t!.host.currentConfig().defaults.verboseDefault === 'full')
    const c = await t.connect({ caps: ['tool-events'] })
    const ev = collect(c)
    await c.request('chat.history', { sessionKey: 'agent:main:d' })
    emitForeignTools(t, 'd-1', 'agent:main:d')
    await until(() => tools(ev, 'd-1').length === 3)
    expect((tools(ev, 'd-1')[2].payload as any).data.result).toBe('a.txt\nb.txt')
    // a broken file (or one the schema refuses) keeps the last good value, as in the runtime
    writeFileSync(t.host.info.configPath, '{ agents: { defaults: { verboseDefault: "loud" } } }')
    await sleep(200)
    writeFileSync(t.host.info.configPath, '{ agents: ')
    await sleep(200)
    emitForeignTools(t, 'd-2', 'agent:main:d')
    await until(() => tools(ev, 'd-2').length === 3)
    expect((tools(ev, 'd-2')[2].payload as any).data.result).toBe('a.txt\nb.txt')
    // a valid edit back to "off" strips results again
    writeFileSync(t.host.info.configPath, '{ agents: { defaults: { verboseDefault: "off" } } }')
    await until(() => t!.host.currentConfig().defaults.verboseDefault === 'off')
    emitForeignTools(t, 'd-3', 'agent:main:d')
    await until(() => tools(ev, 'd-3').length === 3)
    expect((tools(ev, 'd-3')[2].payload as any).data.result).toBeUndefined()
    await c.close()
  })

  it('sessions.subscribe subscribers get session.tool for every session (no cap needed, no seq, results per the same rule)', async () => {
    t = await startTestGateway()
    const sub = await t.connect()
    const subRenders = await t.connect({ caps: ['loopdesk.tool-results'] })
    const notSub = await t.connect({ caps: ['tool-events'] })
    await sub.request('sessions.subscribe', {})
    await subRenders.request('sessions.subscribe', {})
    const [es, er, en] = [collect(sub), collect(subRenders), collect(notSub)]
    emitForeignTools(t, 's-1', 'agent:main:anything')
    await until(() => mirrored(es).length === 3 && mirrored(er).length === 3)
    await sleep(30)
    expect(mirrored(es).every((e) => e.seq === undefined)).toBe(true)
    expect(mirrored(es)[2].payload).toEqual({
      runId: 's-1',
      seq: expect.any(Number),
      stream: 'tool',
      ts: expect.any(Number),
      sessionKey: 'agent:main:anything',
      data: { phase: 'result', name: 'exec', toolCallId: 'x1', isError: false, meta: 'ls' },
    })
    expect((mirrored(er)[2].payload as any).data.result).toBe('a.txt\nb.txt')
    expect(tools(es)).toEqual([]) // no tool-events cap: no agent tool events
    expect(mirrored(en)).toEqual([])
    expect(sub.hello.features.events).toContain('session.tool')
    await Promise.all([sub.close(), subRenders.close(), notSub.close()])
  })

  it('a subscriber that gets the run’s tool events as agent: v4 gets no session.tool copy (OpenClaw 2026.9), v3 gets both (April)', async () => {
    t = await startTestGateway({ withTool: true })
    const v4 = await t.connect({ caps: ['tool-events'] })
    const v3 = await t.connect({ caps: ['tool-events'], minProtocol: 3, maxProtocol: 3 })
    const listOnly = await t.connect()
    for (const c of [v4, v3, listOnly]) await c.request('sessions.subscribe', {})
    const [e4, e3, el] = [collect(v4), collect(v3), collect(listOnly)]
    // both joined the session, so both get its runs' tool events
    await v4.request('chat.history', { sessionKey: 'agent:main:main' })
    await v3.request('chat.history', { sessionKey: 'agent:main:main' })
    await v4.request('agent', { message: 'go', idempotencyKey: 'tv-1' }, { expectFinal: true })
    await until(() => tools(e3, 'tv-1').length === 2 && mirrored(e3).length === 2 && mirrored(el).length === 2 && tools(e4, 'tv-1').length === 2)
    await sleep(30)
    expect(mirrored(e4)).toEqual([])
    expect(tools(el)).toEqual([])
    await Promise.all([v4.close(), v3.close(), listOnly.close()])
  })
})
