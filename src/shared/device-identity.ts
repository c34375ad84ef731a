// Ed25519 device identity for gateway clients (OpenClaw §1.4 step 6), usable from Node and the browser:
// only WebCrypto, TextEncoder and btoa/atob — no Buffer, no node:crypto.
//
// A device proves possession of its key by signing a `|`-joined payload bound to the server's challenge
// nonce. `device.id` is the hex SHA-256 of the raw 32-byte public key; keys and signatures travel base64url.

export interface DeviceAuthPayloadParams {
  deviceId: string
  clientId: string
  clientMode: string
  role: string
  scopes: string[]
  signedAtMs: number
  /** the shared token used for auth (empty when none) */
  token?: string | null
  nonce: string
  platform?: string
  deviceFamily?: string
}

/** The `device` object of ConnectParams. */
export interface DeviceProof {
  id: string
  publicKey: string
  signature: string
  signedAt: number
  nonce: string
}

/** Trim + ASCII-only lowercase, exactly as the v3 payload requires (no locale-dependent folding). */
export function normalizeDeviceMetadata(value: unknown): string {
  if (typeof value !== 'string') return ''
  return value.trim().replace(/[A-Z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 32))
}

/** Legacy v2 payload: v2|deviceId|clientId|clientMode|role|scopes|signedAtMs|token|nonce */
export function buildDeviceAuthPayloadV2(p: DeviceAuthPayloadParams): string {
  return ['v2', p.deviceId, p.clientId, p.clientMode, p.role, p.scopes.join(','), String(p.signedAtMs), p.token ?? '', p.nonce].join('|')
}

/** v3 payload = v2 fields + normalized platform and deviceFamily. */
export function buildDeviceAuthPayloadV3(p: DeviceAuthPayloadParams): string {
  return [
    'v3',
    p.deviceId,
    p.clientId,
    p.clientMode,
    p.role,
    p.scopes.join(','),
    String(p.signedAtMs),
    p.token ?? '',
    p.nonce,
    normalizeDeviceMetadata(p.platform),
    normalizeDeviceMetadata(p.deviceFamily),
  ].join('|')
}

export function base64UrlEncode(bytes: Uint8Array): string {
  let bin = ''
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000))
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
}

/** Decodes base64url (or plain base64); returns undefined for malformed input instead of throwing. */
export function base64UrlDecode(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9_+/-]*={0,2}$/.test(text)) return undefined
  const b64 = text.replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, '')
  if (b64.length % 4 === 1) return undefined
  try {
    const bin = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4))
    const out = new Uint8Array(bin.length)
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i)
    return out
  } catch {
    return undefined
  }
}

export function toHex(bytes: Uint8Array): string {
  let s = ''
  for (const b of bytes) s += b.toString(16).padStart(2, '0')
  return s
}

// Types derived from the global so this file checks under both the DOM lib and @types/node.
type Subtle = typeof globalThis.crypto.subtle
/** A WebCrypto private key (CryptoKey). */
export type WebCryptoKey = Parameters<Subtle['sign']>[1]

function subtle(): Subtle {
  const s = globalThis.crypto?.subtle
  if (!s) throw new Error('WebCrypto is not available (needs a secure context: https or http://127.0.0.1)')
  return s
}

/** hex SHA-256 of the raw 32-byte public key. */
export async function deviceIdFromPublicKey(raw: Uint8Array): Promise<string> {
  return toHex(new Uint8Array(await subtle().digest('SHA-256', new Uint8Array(raw))))
}

/** A WebCrypto identity (the browser keeps the private key non-extractable in memory). */
export interface WebDeviceIdentity {
  deviceId: string
  /** raw public key, base64url */
  publicKey: string
  privateKey: WebCryptoKey
}

/** True when this environment's WebCrypto can generate Ed25519 keys. */
export async function ed25519Supported(): Promise<boolean> {
  try {
    await subtle().generateKey({ name: 'Ed25519' }, false, ['sign', 'verify'])
    return true
  } catch {
    return false
  }
}

export async function generateWebDeviceIdentity(): Promise<WebDeviceIdentity> {
  const pair = (await subtle().generateKey({ name: 'Ed25519' }, false, ['sign', 'verify'])) as unknown as {
    publicKey: WebCryptoKey
    privateKey: WebCryptoKey
  }
  const raw = new Uint8Array(await subtle().exportKey('raw', pair.publicKey))
  return { deviceId: await deviceIdFromPublicKey(raw), publicKey: base64UrlEncode(raw), privateKey: pair.privateKey }
}

export async function signWithWebKey(privateKey: WebCryptoKey, payload: string): Promise<string> {
  const sig = await subtle().sign({ name: 'Ed25519' }, privateKey, new TextEncoder().encode(payload))
  return base64UrlEncode(new Uint8Array(sig))
}

/** Builds the signed `device` object for a connect request (v3 payload). */
export async function createWebDeviceProof(
  identity: WebDeviceIdentity,
  p: Omit<DeviceAuthPayloadParams, 'deviceId'>,
): Promise<DeviceProof> {
  const payload = buildDeviceAuthPayloadV3({ ...p, deviceId: identity.deviceId })
  return {
    id: identity.deviceId,
    publicKey: identity.publicKey,
    signature: await signWithWebKey(identity.privateKey, payload),
    signedAt: p.signedAtMs,
    nonce: p.nonce,
  }
}
