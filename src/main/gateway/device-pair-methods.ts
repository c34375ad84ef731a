// device.pair.list / device.pair.remove (OpenClaw schema names, scope operator.pairing — admin satisfies it):
// which devices have connected with an identity and hold tokens, and forgetting one. Removing a device
// drops its tokens and closes its other connections; a loopback device is paired again when it next
// connects (loopback devices are approved by the gateway itself), a remote one needs its token — gone —
// or the shared secret. There are no pending requests: nothing waits for a person's approval here, so
// device.pair.approve / reject name that instead of "unknown method".
import Type from 'typebox'
import { Compile } from 'typebox/compile'
import type { CachedResponse } from './agent-dedupe'
import type { GatewayConnection } from './connection'
import { invalid } from './device-token-methods'
import type { PairedDevices } from './paired-devices'
import { CLOSE, SCOPES } from './protocol'
import type { LocalMethod } from './requests'

const ListParams = Compile(Type.Object({}, { additionalProperties: false }))
const RemoveParams = Compile(Type.Object({ deviceId: Type.String({ minLength: 1, maxLength: 256 }) }, { additionalProperties: false }))
const RequestParams = Compile(Type.Object({ requestId: Type.String({ minLength: 1, maxLength: 256 }) }, { additionalProperties: false }))

export interface DevicePairDeps {
  paired: PairedDevices
  connections: () => Iterable<GatewayConnection>
}

export function devicePairMethods(deps: DevicePairDeps): Record<string, LocalMethod> {
  const noPending = (method: string) => ({
    scope: SCOPES.pairing,
    handle(_conn: GatewayConnection, params: unknown): CachedResponse {
      if (!RequestParams.Check(params)) return invalid(`invalid ${method} params: expected {requestId}`)
      return invalid(
        `unknown pairing request: ${params.requestId.slice(0, 64)} (this gateway approves loopback devices itself and keeps no pending requests)`,
        'PAIRING_REQUEST_NOT_FOUND',
      )
    },
  })
  return {
    'device.pair.list': {
      scope: SCOPES.pairing,
      handle(_conn, params) {
        if (!ListParams.Check(params ?? {})) return invalid('invalid device.pair.list params: expected {}')
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
        return { ok: true, payload: { pending: [], paired } }
      },
    },
    'device.pair.remove': {
      scope: SCOPES.pairing,
      handle(conn, params) {
        if (!RemoveParams.Check(params)) return invalid('invalid device.pair.remove params: expected {deviceId}')
        const deviceId = params.deviceId.toLowerCase()
        if (!deps.paired.remove(deviceId)) return invalid(`device ${deviceId.slice(0, 64)} is not paired`, 'DEVICE_NOT_PAIRED')
        // its other connections go (after this response); the caller keeps its own
        const victims = [...deps.connections()].filter((c) => c !== conn && c.deviceId === deviceId)
        if (victims.length) setImmediate(() => victims.forEach((c) => c.close(CLOSE.authChanged, 'device removed')))
        return { ok: true, payload: { ok: true, deviceId, removed: true } }
      },
    },
    'device.pair.approve': noPending('device.pair.approve'),
    'device.pair.reject': noPending('device.pair.reject'),
  }
}
