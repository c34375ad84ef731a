// device.token.rotate / device.token.revoke (OpenClaw schema names, scope operator.pairing — admin
// satisfies it). They act on the device tokens in devices.json; connections that authenticated with a
// token that stops working are closed with 4001, as for a rotated shared secret.
import Type from 'typebox'
import { Compile } from 'typebox/compile'
import { schemaProblem, type Validator } from '../api/dispatch'
import type { CachedResponse } from './agent-dedupe'
import type { GatewayConnection } from './connection'
import type { PairedDevices } from './paired-devices'
import { CLOSE, SCOPES } from './protocol'
import type { LocalMethod } from './requests'

const NonEmpty = Type.String({ minLength: 1, maxLength: 256 })
const RotateParams = Compile(
  Type.Object({ deviceId: NonEmpty, role: NonEmpty, scopes: Type.Optional(Type.Array(NonEmpty, { maxItems: 32 })) }, { additionalProperties: false }),
)
const RevokeParams = Compile(Type.Object({ deviceId: NonEmpty, role: NonEmpty }, { additionalProperties: false }))

/** A refused device method: INVALID_REQUEST, with OpenClaw's detail code when there is one. */
export const invalid = (message: string, code?: string): CachedResponse => ({
  ok: false,
  error: code ? { code: 'INVALID_REQUEST', message, details: { code } } : { code: 'INVALID_REQUEST', message },
})

/**
 * Refuses params that fail the method's schema, worded like every other method ("invalid X params:
 * /deviceId: must be string", "/: unexpected property 'foo'").
 */
export const badParams = (method: string, v: Validator, params: unknown): CachedResponse =>
  invalid(`invalid ${method} params: ${schemaProblem(v, params) ?? 'invalid params'}`)

/** Absent params are {} (as in dispatch); null and other non-objects are refused by the schema. */
export const paramsOrEmpty = (params: unknown): unknown => (params === undefined ? {} : params)

export interface DeviceTokenDeps {
  paired: PairedDevices
  connections: () => Iterable<GatewayConnection>
}

/** Closes (after the current response went out) the connections riding on a device's token. */
function closeTokenConnections(deps: DeviceTokenDeps, deviceId: string, role: string, reason: string, except?: GatewayConnection) {
  const victims = [...deps.connections()].filter(
    (c) => c !== except && c.authMethod === 'device-token' && c.deviceId === deviceId && c.role === role,
  )
  if (victims.length) setImmediate(() => victims.forEach((c) => c.close(CLOSE.authChanged, reason)))
}

export function deviceTokenMethods(deps: DeviceTokenDeps): Record<string, LocalMethod> {
  return {
    'device.token.rotate': {
      scope: SCOPES.pairing,
      handle(conn, raw) {
        const params = paramsOrEmpty(raw)
        if (!RotateParams.Check(params)) return badParams('device.token.rotate', RotateParams, params)
        const deviceId = params.deviceId.toLowerCase()
        const { role } = params
        const current = deps.paired.tokenInfo(deviceId, role)
        const publicKey = deps.paired.publicKeyOf(deviceId)
        if (!current || !publicKey) return invalid(`device ${deviceId.slice(0, 64)} has no ${role.slice(0, 32)} token`, 'DEVICE_TOKEN_NOT_FOUND')
        // a rotation may narrow the token, never widen it
        const scopes = params.scopes ? [...new Set(params.scopes)] : current.scopes
        const extra = scopes.filter((s) => !current.scopes.includes(s))
        if (extra.length) return invalid(`scopes not held by the current token: ${extra.slice(0, 8).join(', ')}`, 'AUTH_SCOPE_MISMATCH')
        const issued = deps.paired.issueToken(deviceId, publicKey, role, scopes)
        if (!issued) return invalid(`device ${deviceId.slice(0, 64)} is not paired`, 'DEVICE_TOKEN_NOT_FOUND')
        // The old token is dead: connections still using it go; the caller keeps its connection.
        closeTokenConnections(deps, deviceId, role, 'device token rotated', conn)
        // Only the device itself gets the new token in-band; another device's token is withheld (that
        // device reconnects with the shared token to get one).
        const self = conn.deviceId === deviceId
        return {
          ok: true,
          payload: {
            deviceId,
            role,
            scopes: issued.scopes,
            rotatedAtMs: issued.issuedAtMs,
            ...(self ? { token: issued.token, tokenDelivery: 'in-band' } : { tokenDelivery: 'withheld-cross-device' }),
          },
        }
      },
    },
    'device.token.revoke': {
      scope: SCOPES.pairing,
      handle(_conn, raw) {
        const params = paramsOrEmpty(raw)
        if (!RevokeParams.Check(params)) return badParams('device.token.revoke', RevokeParams, params)
        const deviceId = params.deviceId.toLowerCase()
        const revoked = deps.paired.revokeToken(deviceId, params.role)
        if (revoked) closeTokenConnections(deps, deviceId, params.role, 'device token revoked')
        return { ok: true, payload: { ok: true, deviceId, role: params.role, revoked } }
      },
    },
  }
}
