// The CLI's Ed25519 device identity at <stateDir>/identity/device.json (0600), in OpenClaw's file format
// `{version:1, deviceId, publicKeyPem, privateKeyPem, createdAtMs}`.
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign } from 'node:crypto'
import { chmodSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { buildDeviceAuthPayloadV3, type DeviceAuthPayloadParams, type DeviceProof } from '../shared/device-identity'
import { writeFileAtomic } from '../main/gateway/state-files'
import { keepCorruptCopy } from '../main/runtime/corrupt-copy'
import { readFailure, readSmallRegularFile } from '../main/runtime/read-small-file'

export interface NodeDeviceIdentity {
  deviceId: string
  publicKeyPem: string
  privateKeyPem: string
}

export const identityPath = (stateDir: string) => join(stateDir, 'identity', 'device.json')

export function publicKeyRawBase64Url(publicKeyPem: string): string {
  const der = createPublicKey(publicKeyPem).export({ format: 'der', type: 'spki' })
  return der.subarray(der.length - 32).toString('base64url')
}

export function deviceIdFromPem(publicKeyPem: string): string {
  const der = createPublicKey(publicKeyPem).export({ format: 'der', type: 'spki' })
  return createHash('sha256').update(der.subarray(der.length - 32)).digest('hex')
}

export function signDevicePayload(privateKeyPem: string, payload: string): string {
  return sign(null, Buffer.from(payload, 'utf8'), createPrivateKey(privateKeyPem)).toString('base64url')
}

export function generateNodeDeviceIdentity(): NodeDeviceIdentity {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519')
  const publicKeyPem = publicKey.export({ format: 'pem', type: 'spki' }).toString()
  const privateKeyPem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString()
  return { deviceId: deviceIdFromPem(publicKeyPem), publicKeyPem, privateKeyPem }
}

/**
 * Loads the identity, creating it on first use. One that is not a regular file (a FIFO is not waited on) is
 * replaced; a damaged one too, but copied aside first (`.corrupt-`, said through `warn`): its private key may
 * still be in it, and with it the pairings a new key loses.
 */
export function loadOrCreateDeviceIdentity(stateDir: string, warn: (line: string) => void = () => {}): NodeDeviceIdentity {
  const path = identityPath(stateDir)
  let text: string | undefined
  try {
    text = readSmallRegularFile(path, 64 * 1024)
  } catch {
    // absent, unreadable or no regular file: create below, replacing it
  }
  if (text !== undefined) {
    try {
      const v = JSON.parse(text) as Partial<NodeDeviceIdentity> & { version?: number }
      if (v.version === 1 && typeof v.publicKeyPem === 'string' && typeof v.privateKeyPem === 'string') {
        const deviceId = deviceIdFromPem(v.publicKeyPem)
        try {
          chmodSync(path, 0o600)
        } catch {
          // best effort
        }
        return { deviceId, publicKeyPem: v.publicKeyPem, privateKeyPem: v.privateKeyPem }
      }
    } catch {
      // damaged: kept below
    }
    const { copy, error } = keepCorruptCopy(path, { mode: 0o600 })
    const kept = error === undefined ? `a copy was kept at ${copy}` : `no copy could be kept: ${readFailure(error)}`
    warn(`loopdesk: the device identity ${path} is damaged; a new one replaces it, so this CLI pairs anew (${kept})`)
  }
  const id = generateNodeDeviceIdentity()
  mkdirSync(join(stateDir, 'identity'), { recursive: true, mode: 0o700 })
  writeFileAtomic(path, JSON.stringify({ version: 1, ...id, createdAtMs: Date.now() }, null, 2) + '\n', 0o600)
  return id
}

/** The signed `device` object of a connect request (v3 payload). */
export function createNodeDeviceProof(id: NodeDeviceIdentity, p: Omit<DeviceAuthPayloadParams, 'deviceId'>): DeviceProof {
  const payload = buildDeviceAuthPayloadV3({ ...p, deviceId: id.deviceId })
  return {
    id: id.deviceId,
    publicKey: publicKeyRawBase64Url(id.publicKeyPem),
    signature: signDevicePayload(id.privateKeyPem, payload),
    signedAt: p.signedAtMs,
    nonce: p.nonce,
  }
}
