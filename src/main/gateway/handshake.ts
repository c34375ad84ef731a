// The connect handshake (OpenClaw §1.4): protocol range → role (operator; node only after the next steps)
// → browser origin → shared token → a node's missing device identity, then its role → device proof →
// scopes. Pure decision logic; the server turns a rejection into a `res` + close.
import { timingSafeEqual, createHash } from 'node:crypto'
import { verifyDeviceProof } from './device-auth'
import { CLOSE, ConnectErrorCodes, MAX_PROTOCOL, MIN_PROTOCOL, type ConnectParams } from './protocol'
import { KNOWN_SCOPES } from './scopes'
import { PAIRING_REJECTED_REASON } from '../../shared/pairing'
import type { PairedDevices } from './paired-devices'
import type { PairingRequest, PendingPairings } from './pending-pairings'

export interface HandshakeInput {
  params: ConnectParams
  token: string
  nonce: string
  origin: string | undefined
  isLocal: boolean
  originAllowed: (origin: string) => boolean
  paired: PairedDevices
  /** where a remote device's pairing request waits for approval */
  pending?: PendingPairings
  remoteAddress?: string
  usedNonces: NonceLog
  now: number
  skewMs: number
}

export interface HandshakeRejection {
  ok: false
  closeCode: number
  closeReason: string
  code: 'INVALID_REQUEST' | 'NOT_PAIRED'
  message: string
  details: Record<string, unknown>
  /** a pairing request this connect opened: approvers are told (device.pair.requested) */
  pairingRequested?: PairingRequest
}

export interface HandshakeAccepted {
  ok: true
  protocol: number
  role: string
  scopes: string[]
  caps: string[]
  deviceId?: string
  /** what authenticated the connection: the shared gateway token, or this device's own token */
  authMethod: 'token' | 'device-token'
  /** the device token for hello-ok.auth (newly issued on shared-token auth, echoed on device-token auth) */
  deviceToken?: { token: string; issuedAtMs: number }
}

/** Challenge nonces that already authenticated a device; a second use is a replay. */
export class NonceLog {
  private seen = new Map<string, number>()
  constructor(private readonly ttlMs: number) {}
  /** Records the nonce; false when it was already used. */
  consume(nonce: string, now: number): boolean {
    if (this.seen.size > 10_000) {
      for (const [n, ts] of this.seen) if (now - ts > this.ttlMs) this.seen.delete(n)
    }
    if (this.seen.has(nonce)) return false
    this.seen.set(nonce, now)
    return true
  }
}

// Compare digests so a length difference does not short-circuit (timingSafeEqual needs equal lengths).
export function tokensEqual(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a).digest()
  const hb = createHash('sha256').update(b).digest()
  return timingSafeEqual(ha, hb) && a.length === b.length
}

const reject = (
  message: string,
  details: Record<string, unknown>,
  closeCode: number = CLOSE.policy,
  code: HandshakeRejection['code'] = 'INVALID_REQUEST',
): HandshakeRejection => ({ ok: false, closeCode, closeReason: message, code, message, details })

const unauthorizedRole = (role: string) => reject(`unauthorized role: ${role}`, { code: 'UNAUTHORIZED_ROLE', role })

/**
 * The connect's device proof, checked against this connection's challenge: the device signed whichever token it
 * presented (OpenClaw clients sign auth.token, which holds the device token when they reconnect without the
 * shared secret). Undefined without a device.
 */
function deviceProofOf(input: Pick<HandshakeInput, 'params' | 'nonce' | 'now' | 'skewMs'>) {
  const p = input.params
  if (!p.device) return undefined
  return verifyDeviceProof({
    device: p.device,
    clientId: p.client.id,
    clientMode: p.client.mode,
    role: p.role ?? 'operator',
    scopes: p.scopes ?? [],
    token: p.auth?.token || p.auth?.deviceToken || '',
    platform: p.client.platform,
    deviceFamily: p.client.deviceFamily,
    challengeNonce: input.nonce,
    now: input.now,
    skewMs: input.skewMs,
  })
}

/**
 * The id of the device already paired with this gateway that signed the connect, for this connection's challenge;
 * undefined when none did. It lets the connect past its address's wrong-token lock and counts its wrong tokens
 * under its own id instead (server.ts): a guesser sharing the address has no paired key. It says nothing about
 * the token, which is judged as usual afterwards.
 */
export function pairedSignerOf(input: Pick<HandshakeInput, 'params' | 'nonce' | 'now' | 'skewMs' | 'paired'>): string | undefined {
  const check = deviceProofOf(input)
  return check?.ok && input.paired.isPaired(check.deviceId, check.publicKeyRaw) ? check.deviceId : undefined
}

export function evaluateConnect(input: HandshakeInput): HandshakeAccepted | HandshakeRejection {
  const p = input.params
  if (p.maxProtocol < MIN_PROTOCOL || p.minProtocol > MAX_PROTOCOL || p.minProtocol > p.maxProtocol) {
    return reject(
      'protocol mismatch',
      { code: ConnectErrorCodes.PROTOCOL_MISMATCH, expectedProtocol: MAX_PROTOCOL, minProtocol: MIN_PROTOCOL, maxProtocol: MAX_PROTOCOL },
      CLOSE.protocolError,
    )
  }
  const protocol = Math.min(p.maxProtocol, MAX_PROTOCOL)

  const role = p.role ?? 'operator'
  // OpenClaw knows operator and node; any other role is refused here. Loopdesk serves no node role either,
  // but a node is refused only after OpenClaw's missing-identity check (below, after the token).
  if (role !== 'operator' && role !== 'node') return unauthorizedRole(role)

  if (input.origin !== undefined && !input.originAllowed(input.origin)) {
    return reject('origin not allowed', {
      code: ConnectErrorCodes.CONTROL_UI_ORIGIN_NOT_ALLOWED,
      origin: input.origin,
      recommendedNextStep: 'review_auth_configuration',
    })
  }

  const given = p.auth?.token
  const deviceTokenGiven = p.auth?.deviceToken || undefined
  const sharedOk = given !== undefined && given !== '' && tokensEqual(given, input.token)

  // OpenClaw (connect-policy.ts evaluateMissingDeviceIdentity): a node must present a device identity —
  // NOT_PAIRED "device identity required", unless a shared token was given and is wrong (that stays the
  // token error below). A node with an identity is refused its role once its token passed.
  if (role === 'node' && !p.device && (sharedOk || !given)) {
    return reject('device identity required', { code: ConnectErrorCodes.DEVICE_IDENTITY_REQUIRED }, CLOSE.policy, 'NOT_PAIRED')
  }
  const proof = () => deviceProofOf(input)

  if (!sharedOk && deviceTokenGiven === undefined) {
    if (given === undefined || given === '') {
      return reject('unauthorized: gateway token missing (provide the gateway auth token)', {
        code: ConnectErrorCodes.AUTH_TOKEN_MISSING,
        authReason: 'token_missing',
        recommendedNextStep: 'update_auth_configuration',
        canRetryWithDeviceToken: false,
      })
    }
    // A device that proves its key and holds a live device token may retry with it (OpenClaw's client
    // does so on this hint after the shared secret rotated).
    const check = proof()
    const canRetry = !!check?.ok && !!input.paired.tokenInfo(check.deviceId, role) && input.paired.isPaired(check.deviceId, check.publicKeyRaw)
    return reject('unauthorized: gateway token mismatch', {
      code: ConnectErrorCodes.AUTH_TOKEN_MISMATCH,
      authReason: 'token_mismatch',
      recommendedNextStep: canRetry ? 'retry_with_device_token' : 'update_auth_credentials',
      canRetryWithDeviceToken: canRetry,
    })
  }
  if (!sharedOk && !p.device) {
    return reject('unauthorized: a device token needs the device identity it was issued to', {
      code: ConnectErrorCodes.DEVICE_IDENTITY_REQUIRED,
      authReason: 'device_identity_required',
      recommendedNextStep: 'update_auth_configuration',
      canRetryWithDeviceToken: false,
    })
  }

  if (role !== 'operator') return unauthorizedRole(role)

  const requested = p.scopes ?? []
  const known = (s: string) => (KNOWN_SCOPES as readonly string[]).includes(s)
  let scopes: string[] = []
  let deviceId: string | undefined
  let deviceToken: HandshakeAccepted['deviceToken']
  if (p.device) {
    const check = proof()!
    if (!check.ok) return reject(check.message, { code: check.code, reason: check.code.toLowerCase() })
    if (!input.usedNonces.consume(input.nonce, input.now)) {
      return reject('device nonce already used', { code: ConnectErrorCodes.DEVICE_AUTH_NONCE_MISMATCH })
    }
    deviceId = check.deviceId
    if (!sharedOk) {
      // Device-token auth: the token must be this device's (same key) live token for this role.
      const rec = input.paired.verifyToken(check.deviceId, check.publicKeyRaw, role, deviceTokenGiven!)
      if (!rec) {
        return reject('unauthorized: device token mismatch (rotated or revoked; reconnect with the gateway token)', {
          code: ConnectErrorCodes.AUTH_DEVICE_TOKEN_MISMATCH,
          authReason: 'device_token_mismatch',
          recommendedNextStep: 'update_auth_credentials',
          canRetryWithDeviceToken: false,
        })
      }
      if (input.isLocal) input.paired.pair(check.deviceId, check.publicKeyRaw, p.client.id, input.now)
      // never more than the token was issued with
      scopes = [...new Set(requested.filter((s) => known(s) && rec.scopes.includes(s)))]
      deviceToken = { token: deviceTokenGiven!, issuedAtMs: rec.issuedAtMs }
    } else {
      if (input.isLocal) {
        input.paired.pair(check.deviceId, check.publicKeyRaw, p.client.id, input.now)
      } else if (!input.paired.isPaired(check.deviceId, check.publicKeyRaw)) {
        // its request was rejected lately: refused as unpaired, but no new request (approvers are not asked again)
        const refusedFor = input.pending?.rejectedFor(check.deviceId, input.now) ?? 0
        if (refusedFor > 0) {
          const minutes = Math.ceil(refusedFor / 60_000)
          return reject(
            `pairing rejected: this device's pairing request was rejected on the gateway's machine; it may ask again in ${minutes} min`,
            {
              code: ConnectErrorCodes.PAIRING_REQUIRED,
              reason: PAIRING_REJECTED_REASON,
              deviceId: check.deviceId,
              retryAfterMs: refusedFor,
              recommendedNextStep: 'wait_then_retry',
            },
            CLOSE.policy,
            'NOT_PAIRED',
          )
        }
        const asked = input.pending?.request(
          {
            deviceId: check.deviceId,
            publicKey: check.publicKeyRaw,
            clientId: p.client.id,
            clientMode: p.client.mode,
            platform: p.client.platform,
            role,
            scopes: [...new Set(requested.filter(known))],
            remoteIp: input.remoteAddress ?? 'unknown',
          },
          input.now,
        )
        const how = asked
          ? `approve request ${asked.request.requestId} on the gateway's machine (loopdesk devices approve), then connect again`
          : 'connect this device once over loopback (127.0.0.1) to pair it'
        return {
          ...reject(
            `pairing required: ${how}`,
            { code: ConnectErrorCodes.PAIRING_REQUIRED, deviceId: check.deviceId, ...(asked ? { requestId: asked.request.requestId } : {}), recommendedNextStep: 'wait_then_retry' },
            CLOSE.policy,
            'NOT_PAIRED',
          ),
          ...(asked?.created ? { pairingRequested: asked.request } : {}),
        }
      }
      scopes = [...new Set(requested.filter(known))]
      const issued = input.paired.issueToken(check.deviceId, check.publicKeyRaw, role, scopes, input.now)
      if (issued) deviceToken = { token: issued.token, issuedAtMs: issued.issuedAtMs }
    }
  }
  // Without a device identity the requested scopes are cleared (OpenClaw default-deny): only `health`.
  return { ok: true, protocol, role, scopes, caps: [...new Set(p.caps ?? [])], deviceId, authMethod: sharedOk ? 'token' : 'device-token', deviceToken }
}
