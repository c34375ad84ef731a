// device.pair.list / approve / reject / remove (OpenClaw schema names, scope operator.pairing — admin
// satisfies it): which devices have connected with an identity and hold tokens, the remote devices
// waiting for approval (pending-pairings.ts), the ones rejected lately (loopdeskRejected), and forgetting
// one. Approving pairs the device (it connects on its next try); rejecting drops the request and refuses the
// device for a while — removing it lifts that early (and drops a request still waiting, answered as
// rejected; every lift is told with loopdesk.device.pair.rejectionLifted). Removing a device drops its tokens and closes its other
// connections; a loopback device is paired again when it next connects (loopback devices are approved by
// the gateway itself), a remote one has to ask again. The work is DevicePairing's (device-pairing.ts),
// which the desktop window reaches over IPC too.
import type { Result } from '../../shared/methods'
import type { CachedResponse } from './agent-dedupe'
import type { GatewayConnection } from './connection'
import type { DevicePairing } from './device-pairing'
import { CLOSE, SCOPES } from './protocol'
import type { LocalMethod } from './requests'

export interface DevicePairDeps {
  pairing: DevicePairing
  connections: () => Iterable<GatewayConnection>
}

const wire = (res: Result<unknown>): CachedResponse => (res.ok ? { ok: true, payload: res.data } : { ok: false, error: res.error })

export function devicePairMethods(deps: DevicePairDeps): Record<string, LocalMethod> {
  const { pairing } = deps
  return {
    'device.pair.list': { scope: SCOPES.pairing, handle: (_conn, raw) => wire(pairing.list(raw)) },
    'device.pair.remove': {
      scope: SCOPES.pairing,
      handle(conn, raw) {
        const res = pairing.remove(raw)
        if (res.ok) {
          // its other connections go (after this response); the caller keeps its own
          const victims = [...deps.connections()].filter((c) => c !== conn && c.deviceId === res.data.deviceId)
          if (victims.length) setImmediate(() => victims.forEach((c) => c.close(CLOSE.authChanged, 'device removed')))
        }
        return wire(res)
      },
    },
    'device.pair.approve': { scope: SCOPES.pairing, handle: (_conn, raw) => wire(pairing.approve(raw)) },
    'device.pair.reject': { scope: SCOPES.pairing, handle: (_conn, raw) => wire(pairing.reject(raw)) },
    // Loopdesk's own: lift a rejection early (the window's "Allow to ask again"; remove does it too)
    'loopdesk.device.pair.liftRejection': { scope: SCOPES.pairing, handle: (_conn, raw) => wire(pairing.liftRejection(raw)) },
  }
}
