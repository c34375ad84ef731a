// A gateway client for the suite: the project's own protocol client (src/cli/gateway-client) with a device
// identity (full operator scopes + tool events), recording every event it receives.
import { connectGateway, GatewayClientError, type EventFrameIn, type GatewayConnectionClient } from '../../../src/cli/gateway-client'
import { generateNodeDeviceIdentity, type NodeDeviceIdentity } from '../../../src/cli/identity'
import type { AgentEvent, ChatEvent } from '../../../src/shared/events'

export interface AgentCallResult {
  ok: boolean
  /** final payload (ok) or the error response's payload */
  payload?: any
  error?: { code?: string; message: string }
}

export interface AgentCall {
  runId: string
  /** resolves with the ack payload (rejects when the call was refused) */
  accepted: Promise<any>
  /** resolves with the final (never rejects) */
  final: Promise<AgentCallResult>
}

let sharedIdentity: NodeDeviceIdentity | undefined
export const testIdentity = () => (sharedIdentity ??= generateNodeDeviceIdentity())

export class TestClient {
  readonly events: EventFrameIn[] = []
  private readonly waiters: Array<{ pred: (e: EventFrameIn) => boolean; resolve: (e: EventFrameIn) => void }> = []

  constructor(readonly conn: GatewayConnectionClient) {
    conn.onEvent((e) => {
      this.events.push(e)
      for (let i = this.waiters.length - 1; i >= 0; i--) {
        if (this.waiters[i].pred(e)) {
          this.waiters[i].resolve(e)
          this.waiters.splice(i, 1)
        }
      }
    })
  }

  request<T = any>(method: string, params?: unknown, timeoutMs = 60_000): Promise<T> {
    return this.conn.request<T>(method, params, { timeoutMs })
  }

  /** `agent` with expectFinal: the ack and the final as separate promises. */
  agent(params: Record<string, unknown> & { idempotencyKey: string }, timeoutMs = 120_000): AgentCall {
    let ack!: (v: any) => void
    let nack!: (e: unknown) => void
    const accepted = new Promise<any>((res, rej) => {
      ack = res
      nack = rej
    })
    accepted.catch(() => undefined)
    let gotAck = false
    const final = this.conn
      .request('agent', params, {
        expectFinal: true,
        timeoutMs,
        onAccepted: (p) => {
          gotAck = true
          ack(p)
        },
      })
      .then(
        (payload): AgentCallResult => ({ ok: true, payload }),
        (err: unknown): AgentCallResult => {
          if (!gotAck) nack(err)
          const e = err as GatewayClientError
          return { ok: false, payload: e.payload, error: { code: e.code, message: e.message } }
        },
      )
    return { runId: params.idempotencyKey, accepted, final }
  }

  /** Resolves with the first event (already received or future) matching `pred`. */
  waitEvent(pred: (e: EventFrameIn) => boolean, timeoutMs = 60_000): Promise<EventFrameIn> {
    const hit = this.events.find(pred)
    if (hit) return Promise.resolve(hit)
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('timed out waiting for an event')), timeoutMs)
      this.waiters.push({
        pred,
        resolve: (e) => {
          clearTimeout(timer)
          resolve(e)
        },
      })
    })
  }

  agentEvents(runId: string): AgentEvent[] {
    return this.events.filter((e) => e.event === 'agent' && (e.payload as AgentEvent).runId === runId).map((e) => e.payload as AgentEvent)
  }

  chatEvents(runId: string): ChatEvent[] {
    return this.events.filter((e) => e.event === 'chat' && (e.payload as ChatEvent).runId === runId).map((e) => e.payload as ChatEvent)
  }

  lifecycleEnd(runId: string, timeoutMs = 60_000): Promise<AgentEvent> {
    return this.waitEvent((e) => {
      if (e.event !== 'agent') return false
      const p = e.payload as AgentEvent
      const phase = (p.data as { phase?: string }).phase
      return p.runId === runId && p.stream === 'lifecycle' && (phase === 'end' || phase === 'error')
    }, timeoutMs).then((e) => e.payload as AgentEvent)
  }

  close(): Promise<void> {
    return this.conn.close()
  }
}

/** identity null = connect with the token only (no device: no scopes) */
export async function openClient(url: string, token: string, opts: { identity?: NodeDeviceIdentity | null; caps?: string[] } = {}): Promise<TestClient> {
  const conn = await connectGateway({
    url,
    token,
    identity: opts.identity === undefined ? testIdentity() : opts.identity,
    // the suite asserts on tool output: ask for results (the gateway strips them at verbose off otherwise)
    caps: opts.caps ?? ['tool-events', 'loopdesk.tool-results'],
    clientId: 'test',
    clientMode: 'test',
    connectTimeoutMs: 30_000,
  })
  return new TestClient(conn)
}
