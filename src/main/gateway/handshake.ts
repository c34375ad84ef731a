// The connect handshake (OpenClaw §1.4): protocol range → role → browser origin → shared token →
// device proof → scopes. Pure decision logic; the server turns a rejection into a `res` + close.
import { timingSafeEqual, createHash } from 'node:crypto'
import { verifyDeviceProof } from './device-auth'
import { CLOSE, ConnectErrorCodes, MAX_PROTOCOL, MIN_PROTOCOL, type ConnectParams } from './protocol'
import { KNOWN_SCOPES } from './scopes'
import type { PairedDevices } from './paired-devices'

export interface HandshakeInput {
  params: ConnectParams
  token: string
  nonce: string
  origin: string | undefined
  isLocal: boolean
  originAllowed: (origin: string) => boolean
  paired: PairedDevices
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
}

export interface HandshakeAccepted {
  ok: true
  protocol: number
  role: string
  scopes: string[]
  caps: string[]
  deviceId?: string
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
  if (role !== 'operator') return reject(`unauthorized role: ${role}`, { code: 'UNAUTHORIZED_ROLE', role })

  if (input.origin !== undefined && !input.originAllowed(input.origin)) {
    return reject('origin not allowed', {
      code: ConnectErrorCodes.CONTROL_UI_ORIGIN_NOT_ALLOWED,
      origin: input.origin,
      recommendedNextStep: 'review_auth_configuration',
    })
  }

  const given = p.auth?.token
  if (given === undefined || given === '') {
    return reject('unauthorized: gateway token missing (provide the gateway auth token)', {
      code: ConnectErrorCodes.AUTH_TOKEN_MISSING,
      authReason: 'token_missing',
      recommendedNextStep: 'update_auth_configuration',
      canRetryWithDeviceToken: false,
    })
  }
  if (!tokensEqual(given, input.token)) {
    return reject('unauthorized: gateway token mismatch', {
      code: ConnectErrorCodes.AUTH_TOKEN_MISMATCH,
      authReason: 'token_mismatch',
      recommendedNextStep: 'update_auth_credentials',
      canRetryWithDeviceToken: false,
    })
  }

  const requested = p.scopes ?? []
  let scopes: string[] = []
  let deviceId: string | undefined
  if (p.device) {
    const check = verifyDeviceProof({
      device: p.device,
      clientId: p.client.id,
      clientMode: p.client.mode,
      role,
      scopes: requested,
      token: given,
      platform: p.client.platform,
      deviceFamily: p.client.deviceFamily,
      challengeNonce: input.nonce,
      now: input.now,
      skewMs: input.skewMs,
    })
    if (!check.ok) return reject(check.message, { code: check.code, reason: check.code.toLowerCase() })
    if (!input.usedNonces.consume(input.nonce, input.now)) {
      return reject('device nonce already used', { code: ConnectErrorCodes.DEVICE_AUTH_NONCE_MISMATCH })
    }
    if (input.isLocal) {
      input.paired.pair(check.deviceId, check.publicKeyRaw, p.client.id, input.now)
    } else if (!input.paired.isPaired(check.deviceId, check.publicKeyRaw)) {
      return reject(
        'pairing required: connect this device once over loopback (127.0.0.1) to pair it',
        { code: ConnectErrorCodes.PAIRING_REQUIRED, deviceId: check.deviceId, recommendedNextStep: 'wait_then_retry' },
        CLOSE.policy,
        'NOT_PAIRED',
      )
    }
    deviceId = check.deviceId
    scopes = [...new Set(requested.filter((s) => (KNOWN_SCOPES as readonly string[]).includes(s)))]
  }
  // Without a device identity the requested scopes are cleared (OpenClaw default-deny): only `health`.
  return { ok: true, protocol, role, scopes, caps: [...new Set(p.caps ?? [])], deviceId }
}
