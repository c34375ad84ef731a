// device.pair.list / approve / reject / remove (OpenClaw schema names, scope operator.pairing — admin
// satisfies it): which devices have connected with an identity and hold tokens, the remote devices
// waiting for approval (pending-pairings.ts), and forgetting one. Approving pairs the device (it connects
// on its next try); rejecting drops the request. Removing a device drops its tokens and closes its other
// connections; a loopback device is paired again when it next connects (loopback devices are approved by
// the gateway itself), a remote one has to ask again.
import Type from 'typebox'
import { Compile } from 'typebox/compile'
import type { CachedResponse } from './agent-dedupe'
import type { GatewayConnection } from './connection'
import { badParams, invalid, paramsOrEmpty } from './device-token-methods'
import type { DevicePairResolved } from '../../shared/events'
import type { PairedDevices } from './paired-devices'
import type { PendingPairings } from './pending-pairings'
import { CLOSE, SCOPES } from './protocol'
import type { LocalMethod } from './requests'

const ListParams = Compile(Type.Object({}, { additionalProperties: false }))
const RemoveParams = Compile(Type.Object({ deviceId: Type.String({ minLength: 1, maxLength: 256 }) }, { additionalProperties: false }))
const RequestParams = Compile(Type.Object({ requestId: Type.String({ minLength: 1, maxLength: 256 }) }, { additionalProperties: false }))

export interface DevicePairDeps {
  paired: PairedDevices
  pending: PendingPairings
  connections: () => Iterable<GatewayConnection>
  /** tells the approvers (device.pair.resolved) */
  resolved: (ev: DevicePairResolved) => void
}

export function devicePairMethods(deps: DevicePairDeps): Record<string, LocalMethod> {
  const decide = (method: string, decision: DevicePairResolved['decision']): LocalMethod => ({
    scope: SCOPES.pairing,
    handle(_conn: GatewayConnection, raw: unknown): CachedResponse {
      const params = paramsOrEmpty(raw)
      if (!RequestParams.Check(params)) return badParams(method, RequestParams, params)
      const now = Date.now()
      const r = deps.pending.take(params.requestId, now)
      if (!r) return invalid(`unknown pairing request: ${params.requestId.slice(0, 64)} (answered or expired; the device asks again when it reconnects)`, 'PAIRING_REQUEST_NOT_FOUND')
      if (decision === 'approved') deps.paired.pair(r.deviceId, r.publicKey, r.clientId, now)
      deps.resolved({ requestId: r.requestId, deviceId: r.deviceId, decision, ts: now })
      const device = { deviceId: r.deviceId, publicKey: r.publicKey, clientId: r.clientId, platform: r.platform, roles: [r.role], scopes: r.scopes, createdAtMs: now, approvedAtMs: now }
      return { ok: true, payload: decision === 'approved' ? { requestId: r.requestId, device } : { requestId: r.requestId, deviceId: r.deviceId } }
    },
  })
  return {
    'device.pair.list': {
      scope: SCOPES.pairing,
      handle(_conn, raw) {
        const params = paramsOrEmpty(raw)
        if (!ListParams.Check(params)) return badParams('device.pair.list', ListParams, params)
        const online = new Set<string>()
        for (const c of deps.connections()) if (c.deviceId) online.add(c.deviceId)
        const paired = deps.paired.list().map((d) => ({
          deviceId: d.deviceId,
          publicKey: d.publicKey,
          clientId: d.clientId,
          createdAtMs: d.pairedAt,
          approvedAtMs: d.pairedAt,
          /** refreshed at most hourly */
          lastSeenAtMs: d.lastSeenAt,
          connected: online.has(d.deviceId),
          roles: d.tokens.map((t) => t.role),
          tokens: d.tokens.map((t) => ({ role: t.role, scopes: t.scopes, createdAtMs: t.issuedAtMs })),
        }))
        return { ok: true, payload: { pending: deps.pending.list(Date.now()), paired } }
      },
    },
    'device.pair.remove': {
      scope: SCOPES.pairing,
      handle(conn, raw) {
        const params = paramsOrEmpty(raw)
        if (!RemoveParams.Check(params)) return badParams('device.pair.remove', RemoveParams, params)
        const deviceId = params.deviceId.toLowerCase()
        deps.pending.forgetDevice(deviceId)
        if (!deps.paired.remove(deviceId)) return invalid(`device ${deviceId.slice(0, 64)} is not paired`, 'DEVICE_NOT_PAIRED')
        // its other connections go (after this response); the caller keeps its own
        const victims = [...deps.connections()].filter((c) => c !== conn && c.deviceId === deviceId)
        if (victims.length) setImmediate(() => victims.forEach((c) => c.close(CLOSE.authChanged, 'device removed')))
        return { ok: true, payload: { ok: true, deviceId, removed: true } }
      },
    },
    'device.pair.approve': decide('device.pair.approve', 'approved'),
    'device.pair.reject': decide('device.pair.reject', 'rejected'),
  }
}
