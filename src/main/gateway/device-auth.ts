// Server-side verification of a connect request's Ed25519 device proof (OpenClaw §1.4 step 6).
import { createHash, createPublicKey, verify, type KeyObject } from 'node:crypto'
import {
  base64UrlDecode,
  buildDeviceAuthPayloadV2,
  buildDeviceAuthPayloadV3,
  type DeviceProof,
} from '../../shared/device-identity'
import { ConnectErrorCodes, type ConnectErrorCode } from './protocol'

// DER prefix of an Ed25519 SubjectPublicKeyInfo; the raw 32-byte key follows it.
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex')

export interface ParsedPublicKey {
  raw: Buffer
  key: KeyObject
}

/** Accepts a raw 32-byte key as base64url/base64, or a PEM SubjectPublicKeyInfo. */
export function parseDevicePublicKey(text: string): ParsedPublicKey | undefined {
  try {
    if (text.includes('BEGIN PUBLIC KEY')) {
      const key = createPublicKey({ key: text, format: 'pem' })
      if (key.asymmetricKeyType !== 'ed25519') return undefined
      const der = key.export({ format: 'der', type: 'spki' })
      return { raw: Buffer.from(der.subarray(der.length - 32)), key }
    }
    const raw = base64UrlDecode(text)
    if (!raw || raw.length !== 32) return undefined
    const key = createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, raw]), format: 'der', type: 'spki' })
    return { raw: Buffer.from(raw), key }
  } catch {
    return undefined
  }
}

export const deviceIdOf = (raw: Uint8Array) => createHash('sha256').update(raw).digest('hex')

export interface DeviceCheckInput {
  device: DeviceProof
  clientId: string
  clientMode: string
  role: string
  /** scopes exactly as requested (the signed string uses them in request order) */
  scopes: string[]
  token: string
  platform: string
  deviceFamily?: string
  /** the nonce of this connection's connect.challenge */
  challengeNonce: string
  now: number
  skewMs: number
}

export type DeviceCheck =
  | { ok: true; deviceId: string; publicKeyRaw: string; payloadVersion: 'v2' | 'v3' }
  | { ok: false; code: ConnectErrorCode; message: string }

const fail = (code: ConnectErrorCode, message: string): DeviceCheck => ({ ok: false, code, message })

export function verifyDeviceProof(input: DeviceCheckInput): DeviceCheck {
  const { device } = input
  const pk = parseDevicePublicKey(device.publicKey)
  if (!pk) return fail(ConnectErrorCodes.DEVICE_AUTH_PUBLIC_KEY_INVALID, 'device public key is not a valid Ed25519 key')
  if (deviceIdOf(pk.raw) !== device.id.toLowerCase()) {
    return fail(ConnectErrorCodes.DEVICE_AUTH_DEVICE_ID_MISMATCH, 'device id does not match its public key')
  }
  if (Math.abs(input.now - device.signedAt) > input.skewMs) {
    return fail(ConnectErrorCodes.DEVICE_AUTH_SIGNATURE_EXPIRED, 'device signature expired (signedAt outside ±2 min)')
  }
  if (!device.nonce) return fail(ConnectErrorCodes.DEVICE_AUTH_NONCE_REQUIRED, 'device nonce required')
  if (device.nonce !== input.challengeNonce) {
    return fail(ConnectErrorCodes.DEVICE_AUTH_NONCE_MISMATCH, 'device nonce does not match the connect challenge')
  }
  const sig = base64UrlDecode(device.signature)
  if (!sig || sig.length !== 64) return fail(ConnectErrorCodes.DEVICE_AUTH_SIGNATURE_INVALID, 'device signature invalid')
  const params = {
    deviceId: device.id,
    clientId: input.clientId,
    clientMode: input.clientMode,
    role: input.role,
    scopes: input.scopes,
    signedAtMs: device.signedAt,
    token: input.token,
    nonce: device.nonce,
    platform: input.platform,
    deviceFamily: input.deviceFamily,
  }
  const candidates: Array<['v3' | 'v2', string]> = [
    ['v3', buildDeviceAuthPayloadV3(params)],
    ['v2', buildDeviceAuthPayloadV2(params)],
  ]
  for (const [version, payload] of candidates) {
    try {
      if (verify(null, Buffer.from(payload, 'utf8'), pk.key, sig)) {
        return { ok: true, deviceId: device.id.toLowerCase(), publicKeyRaw: pk.raw.toString('base64url'), payloadVersion: version }
      }
    } catch {
      // fall through: a key/signature the crypto layer rejects is simply an invalid signature
    }
  }
  return fail(ConnectErrorCodes.DEVICE_AUTH_SIGNATURE_INVALID, 'device signature invalid')
}
