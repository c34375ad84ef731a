// Who started which run, so a connection without operator.admin stops only its own runs (OpenClaw chat.abort:
// "same connection or device, or admin", else "unauthorized"). A run the window started over IPC has no owner
// here: only an admin connection may stop it from the gateway.
import type { CallContext } from '../api/dispatch'
import type { GatewayConnection } from './connection'
import { SCOPES } from './protocol'
import { hasScope } from './scopes'

interface Owner {
  connId: string
  deviceId?: string
}

/** Methods whose result's `runId` is a run the calling connection started. */
export const RUN_STARTING_METHODS: ReadonlySet<string> = new Set(['agent', 'chat.send', 'sessions.send', 'sessions.steer', 'sessions.create'])

export class RunOwners {
  private readonly owners = new Map<string, Owner>()

  /** `max` bounds the memory: runs are short, so the oldest entry is long over when it is dropped */
  constructor(private readonly max = 10_000) {}

  /** The first caller to start a run owns it: a later call naming the same run (its key resent) never takes it over. */
  record(runId: unknown, conn: Pick<GatewayConnection, 'id' | 'deviceId'>): void {
    if (typeof runId !== 'string' || !runId || this.owners.has(runId)) return
    this.owners.set(runId, { connId: conn.id, ...(conn.deviceId ? { deviceId: conn.deviceId } : {}) })
    if (this.owners.size > this.max) this.owners.delete(this.owners.keys().next().value!)
  }

  owns(runId: string, conn: Pick<GatewayConnection, 'id' | 'deviceId'>): boolean {
    const o = this.owners.get(runId)
    if (!o) return false
    return o.connId === conn.id || (o.deviceId !== undefined && o.deviceId === conn.deviceId)
  }

  /**
 * The dispatch context of a request on `conn`: non-admin connections may stop only the runs they own, and may not
 * change an existing session's settings through sessions.create (sessions.patch needs admin).
 */
  callContext(conn: Pick<GatewayConnection, 'id' | 'deviceId' | 'scopes'> & { signal?: AbortSignal }): CallContext {
    const signal = conn.signal ? { signal: conn.signal } : {}
    if (hasScope(conn.scopes, SCOPES.admin)) return { transport: 'ws', connId: conn.id, ...signal }
    return { transport: 'ws', connId: conn.id, mayAbort: (runId) => this.owns(runId, conn), maySetExistingSession: false, ...signal }
  }
}
