import { afterEach, describe, expect, it } from 'vitest'
import type WebSocket from 'ws'
import type { EventFrameIn, GatewayConnectionClient } from '../../cli/gateway-client'
import type { AnyEvent } from '../../shared/events'
import { startTestGateway, type TestGateway } from './test-support'
import { until } from '../../../test/fixtures/until'

let t: TestGateway | undefined
afterEach(async () => {
  await t?.stop()
  t = undefined
})

function collect(conn: GatewayConnectionClient) {
  const events: EventFrameIn[] = []
  conn.onEvent((e) => events.push(e))
  return events
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const socketOf = (c: GatewayConnectionClient) => (c as unknown as { ws: WebSocket }).ws

describe('event forwarding', () => {
  it('forwards agent + chat events of a run in emission order with a gateway-wide increasing seq', async () => {
    t = await startTestGateway({ withTool: true })
    const a = await t.connect({ caps: ['tool-events'] })
    const b = await t.connect()
    const ea = collect(a)
    const eb = collect(b)
    await a.request('agent', { message: 'go', idempotencyKey: 'ord-1' }, { expectFinal: true })
    await until(() => eb.some((e) => e.event === 'chat' && (e.payload as any).state === 'final'))

    const seqs = ea.filter((e) => e.seq !== undefined).map((e) => e.seq!)
    expect(seqs.length).toBeGreaterThan(5)
    for (let i = 1; i < seqs.length; i++) expect(seqs[i]).toBeGreaterThan(seqs[i - 1])
    // both clients see the same broadcast frames with the same seq
    const bSeqs = eb.filter((e) => e.seq !== undefined).map((e) => e.seq!)
    expect(bSeqs).toEqual(seqs)

    // order: lifecycle start → assistant → chat delta → tool start → tool result → ... → lifecycle end → chat final
    const kinds = ea
      .filter((e) => e.event === 'agent' || e.event === 'chat')
      .map((e) => (e.event === 'chat' ? `chat:${(e.payload as any).state}` : `${(e.payload as any).stream}:${(e.payload as any).data.phase ?? ''}`))
    expect(kinds).toEqual([
      'lifecycle:start',
      'assistant:',
      'chat:delta',
      'tool:start',
      'tool:result',
      'assistant:',
      'chat:delta',
      'assistant:',
      'chat:delta',
      'lifecycle:end',
      'chat:final',
    ])
    // per-run seq inside the agent payload is preserved
    const runSeqs = ea.filter((e) => e.event === 'agent').map((e) => (e.payload as any).seq)
    expect(runSeqs).toEqual([1, 2, 3, 4, 5, 6, 7])
    await Promise.all([a.close(), b.close()])
  })

  it('tool events go only to the cap holder that started the run, without frame seq and without results', async () => {
    t = await startTestGateway({ withTool: true })
    const withCap = await t.connect({ caps: ['tool-events'] })
    const bystander = await t.connect({ caps: ['tool-events'] })
    const without = await t.connect()
    const ew = collect(withCap)
    const eb = collect(bystander)
    const eo = collect(without)
    await withCap.request('agent', { message: 'go', idempotencyKey: 'tool-1' }, { expectFinal: true })
    await without.request('agent', { message: 'go', idempotencyKey: 'tool-2' }, { expectFinal: true })
    await until(() => eb.filter((e) => e.event === 'chat' && (e.payload as any).state === 'final').length === 2)
    const toolW = ew.filter((e) => e.event === 'agent' && (e.payload as any).stream === 'tool')
    // tool-1 (its own run) — and tool-2: it ran in agent:main:main, the session tool-1 joined
    expect(toolW.map((e) => (e.payload as any).runId)).toEqual(['tool-1', 'tool-1', 'tool-2', 'tool-2'])
    expect(toolW.every((e) => e.seq === undefined)).toBe(true)
    expect(toolW[0].payload).toMatchObject({ runId: 'tool-1', data: { phase: 'start', name: 'read', args: { path: 'a.txt' } } })
    expect(toolW[1].payload).toMatchObject({ data: { phase: 'result', isError: false } })
    expect('result' in (toolW[1].payload as any).data).toBe(false)
    expect(eb.filter((e) => e.event === 'agent' && (e.payload as any).stream === 'tool')).toHaveLength(0)
    expect(eo.filter((e) => e.event === 'agent' && (e.payload as any).stream === 'tool')).toHaveLength(0)
    expect(eo.filter((e) => e.event === 'agent').length).toBeGreaterThan(0)
    await Promise.all([withCap.close(), bystander.close(), without.close()])
  })

  it('sessions.changed goes only to sessions.subscribe subscribers', async () => {
    t = await startTestGateway()
    const sub = await t.connect()
    const other = await t.connect()
    await expect(sub.request('sessions.subscribe', {})).resolves.toEqual({ subscribed: true })
    const es = collect(sub)
    const eo = collect(other)
    await other.request('agent', { message: 'go', idempotencyKey: 'sc-1' }, { expectFinal: true })
    await until(() => es.filter((e) => e.event === 'sessions.changed').length >= 2)
    const changed = es.filter((e) => e.event === 'sessions.changed')
    expect(changed.map((e) => (e.payload as any).reason)).toEqual(['start', 'end'])
    expect(changed.every((e) => e.seq === undefined)).toBe(true)
    expect(eo.some((e) => e.event === 'sessions.changed')).toBe(false)
    await Promise.all([sub.close(), other.close()])
  })

  it('sessions.unsubscribe (OpenClaw v3) ends them for that connection only', async () => {
    t = await startTestGateway()
    const quit = await t.connect()
    const stays = await t.connect()
    await quit.request('sessions.subscribe', {})
    await stays.request('sessions.subscribe', {})
    await expect(quit.request('sessions.unsubscribe', {})).resolves.toEqual({ subscribed: false })
    const eq = collect(quit)
    const es = collect(stays)
    await stays.request('agent', { message: 'go', idempotencyKey: 'su-1' }, { expectFinal: true })
    await until(() => es.filter((e) => e.event === 'sessions.changed').length >= 2)
    // every frame the gateway wrote to `quit` before this answer has been read once it arrives
    await quit.request('health', {})
    expect(eq.some((e) => e.event === 'agent')).toBe(true)
    expect(eq.some((e) => e.event === 'sessions.changed')).toBe(false)
    await Promise.all([quit.close(), stays.close()])
  })

  it('approval events need operator.approvals (or admin); queue.changed needs read', async () => {
    t = await startTestGateway()
    const approver = await t.connect({ scopes: ['operator.approvals'] })
    const admin = await t.connect({ scopes: ['operator.admin'] })
    const reader = await t.connect({ scopes: ['operator.read'] })
    const none = await t.connect({ identity: null })
    const [ea, ead, er, en] = [collect(approver), collect(admin), collect(reader), collect(none)]
    const req: AnyEvent = {
      event: 'exec.approval.requested',
      payload: { id: 'ap1', runId: 'r', sessionKey: 'agent:main:main', toolCallId: 't', command: 'rm -rf x', cwd: '/w', createdAt: 1, expiresAt: 2 },
    }
    t.host.emit(req)
    t.host.emit({ event: 'queue.changed', payload: { sessionKey: 'agent:main:main', items: [] } })
    await until(() => ead.length >= 2 && er.length >= 1 && ea.length >= 1)
    await sleep(30)
    expect(ea.map((e) => e.event)).toEqual(['exec.approval.requested'])
    expect(ead.map((e) => e.event)).toEqual(['exec.approval.requested', 'queue.changed'])
    expect(er.map((e) => e.event)).toEqual(['queue.changed'])
    expect(en).toEqual([])
    await Promise.all([approver.close(), admin.close(), reader.close(), none.close()])
  })

  it('sends tick events at the tick interval', async () => {
    t = await startTestGateway({}, { limits: { tickIntervalMs: 40 } })
    const c = await t.connect({ identity: null })
    const ev = collect(c)
    await until(() => ev.filter((e) => e.event === 'tick').length >= 2, 2000)
    const tick = ev.find((e) => e.event === 'tick')!
    expect(typeof (tick.payload as any).ts).toBe('number')
    expect(typeof tick.seq).toBe('number')
    await c.close()
  })

  it('broadcasts each refreshed health summary with stateVersion (paths redacted without read scope); hello reports the count', async () => {
    t = await startTestGateway({}, { limits: { tickIntervalMs: 40 } })
    const reader = await t.connect({ scopes: ['operator.read'] })
    const none = await t.connect({ identity: null })
    const frames: any[] = []
    const hidden: any[] = []
    socketOf(reader).on('message', (d) => {
      const f = JSON.parse(d.toString())
      if (f.event === 'health') frames.push(f)
    })
    socketOf(none).on('message', (d) => {
      const f = JSON.parse(d.toString())
      if (f.event === 'health') hidden.push(f)
    })
    await until(() => frames.length >= 2 && hidden.length >= 1, 3000)
    const [a, b] = frames
    expect(a.payload).toMatchObject({ ok: true, sessions: expect.any(Object) })
    expect(typeof a.seq).toBe('number')
    expect(b.stateVersion.health).toBe(a.stateVersion.health + 1)
    expect(a.stateVersion.presence).toBe(0)
    // the same event, without the paths, for a connection that may not read sessions
    const same = hidden.find((f) => f.seq === a.seq) ?? hidden[0]
    expect(same.payload.sessions.path).toBe('[redacted]')
    expect(reader.hello.features.events).toContain('health')
    const later = await t.connect({ scopes: ['operator.read'] })
    expect(later.hello.snapshot.stateVersion.health).toBeGreaterThanOrEqual(b.stateVersion.health)
    await Promise.all([reader.close(), none.close(), later.close()])
  })

  it('a failed health refresh is not broadcast as a new summary (the last one, with a new stateVersion)', async () => {
    t = await startTestGateway({}, { limits: { tickIntervalMs: 40 } })
    const c = await t.connect({ scopes: ['operator.read'] })
    const ev = collect(c)
    await until(() => ev.some((e) => e.event === 'health'), 3000)
    ;(t.host.handlers as unknown as Record<string, () => Promise<unknown>>).health = async () => {
      throw new Error('health failed')
    }
    await sleep(60)
    const before = ev.filter((e) => e.event === 'health').length
    const ticks = ev.filter((e) => e.event === 'tick').length
    await until(() => ev.filter((e) => e.event === 'tick').length >= ticks + 4, 3000)
    expect(ev.filter((e) => e.event === 'health').length).toBe(before)
    await c.close()
  })

  it('broadcasts shutdown on close and closes the sockets', async () => {
    t = await startTestGateway()
    const c = await t.connect()
    const ev = collect(c)
    const closed = new Promise<number>((r) => c.onClose((code) => r(code)))
    await t.gw.close('maintenance', { restartExpectedMs: 1000 })
    // OpenClaw's close code for a stopping gateway (server-close.ts), whether or not it restarts
    expect(await closed).toBe(1012)
    expect(ev.find((e) => e.event === 'shutdown')?.payload).toEqual({ reason: 'maintenance', restartExpectedMs: 1000 })
    expect(t.gw.connectionCount()).toBe(0)
  })

  it('slow consumer: chat deltas are dropped, a non-droppable event closes the socket with 1008', async () => {
    t = await startTestGateway({}, { limits: { maxBufferedBytes: 64 * 1024 } })
    const slow = await t.connect()
    const fast = await t.connect()
    const es = collect(slow)
    const ef = collect(fast)
    const slowClosed = new Promise<{ code: number; reason: string }>((r) => slow.onClose((code, reason) => r({ code, reason })))
    const sock = (socketOf(slow) as unknown as { _socket: import('node:net').Socket })._socket
    sock.pause()
    const big = 'x'.repeat(100 * 1024)
    for (let i = 0; i < 200; i++) {
      t.host.emit({ event: 'chat', payload: { runId: 'r', sessionKey: 'agent:main:main', seq: i + 1, state: 'delta', message: { role: 'assistant', content: [{ type: 'text', text: big }], timestamp: i } } })
      await sleep(0)
    }
    await until(() => ef.length === 200)
    expect(slow.closed).toBe(false)
    // a final (not droppable) while still backed up → slow consumer close
    t.host.emit({ event: 'chat', payload: { runId: 'r', sessionKey: 'agent:main:main', seq: 999, state: 'final' } })
    sock.resume()
    const { code, reason } = await slowClosed
    expect(code).toBe(1008)
    expect(reason).toBe('slow consumer')
    expect(es.length).toBeLessThan(200)
    expect(fast.closed).toBe(false)
    await fast.close()
  })
})
