// Wire constants and closed schemas of the OpenClaw gateway protocol (v3/v4) that the gateway validates.
// The schemas mirror @openclaw/gateway-protocol 2026.9.1 (MIT) field for field; that package is only a
// devDependency (and declares Node >= 22.19), so the app cannot load it at runtime.
// protocol.test.ts compares these mirrors with the package's JSON so drift is caught.
import Type, { type Static } from 'typebox'
import { Compile } from 'typebox/compile'
import { GATEWAY_MAX_FRAME_BYTES } from '../../shared/attachments'

/** Protocol versions this gateway speaks. v4 is current; v3 differs only in hello-ok fields we do not send. */
export const MIN_PROTOCOL = 3
export const MAX_PROTOCOL = 4

export const LIMITS = {
  /** largest frame accepted before hello-ok (close 1009 beyond) */
  preauthMaxPayload: 64 * 1024,
  /** largest frame after hello-ok (one maximal attachment's base64 must fit: see shared/attachments.ts) */
  maxPayload: GATEWAY_MAX_FRAME_BYTES,
  /** per-connection send buffer cap; chat deltas are dropped above it, other sends close the socket */
  maxBufferedBytes: 50 * 1024 * 1024,
  tickIntervalMs: 30_000,
  handshakeTimeoutMs: 10_000,
  /** pending (not yet authenticated) sockets per remote address */
  maxPreauthPerIp: 32,
  /** consecutive unauthorized calls before the socket is closed */
  maxUnauthorizedStreak: 10,
  /** allowed clock skew of a device signature */
  signatureSkewMs: 2 * 60_000,
  dedupeTtlMs: 5 * 60_000,
  dedupeMax: 1000,
  /** control-plane writes (config.patch …) per device (or connection) per window */
  controlPlaneWrites: 3,
  controlPlaneWindowMs: 60_000,
  /** how often the token file and loopdesk.json are polled for a rotated shared token */
  authWatchIntervalMs: 1000,
} as const

export type GatewayLimits = { -readonly [K in keyof typeof LIMITS]: number }

export const CLOSE = {
  normal: 1000,
  /** the gateway stops (OpenClaw closes every client with 1012 on shutdown, restart or not) */
  serviceRestart: 1012,
  protocolError: 1002,
  policy: 1008,
  tooBig: 1009,
  /** the credential a connection authenticated with was rotated or revoked */
  authChanged: 4001,
} as const

export const GATEWAY_CLIENT_IDS = [
  'webchat-ui',
  'openclaw-control-ui',
  'openclaw-browser-copilot',
  'openclaw-tui',
  'webchat',
  'cli',
  'gateway-client',
  'openclaw-macos',
  'openclaw-linux',
  'openclaw-ios',
  'openclaw-watchos',
  'openclaw-android',
  'node-host',
  'openclaw-worker',
  'test',
  'fingerprint',
  'openclaw-probe',
] as const

export const GATEWAY_CLIENT_MODES = ['webchat', 'cli', 'ui', 'backend', 'node', 'worker', 'probe', 'test'] as const

export { SCOPES, type Scope } from '../../shared/scopes'

/** Connect failure detail codes (`error.details.code`), as in connect-error-details. */
export const ConnectErrorCodes = {
  AUTH_TOKEN_MISSING: 'AUTH_TOKEN_MISSING',
  AUTH_TOKEN_MISMATCH: 'AUTH_TOKEN_MISMATCH',
  AUTH_DEVICE_TOKEN_MISMATCH: 'AUTH_DEVICE_TOKEN_MISMATCH',
  /** too many wrong tokens from this address lately (auth-backoff.ts); OpenClaw's code for its auth limiter */
  AUTH_RATE_LIMITED: 'AUTH_RATE_LIMITED',
  CONTROL_UI_ORIGIN_NOT_ALLOWED: 'CONTROL_UI_ORIGIN_NOT_ALLOWED',
  PROTOCOL_MISMATCH: 'PROTOCOL_MISMATCH',
  DEVICE_IDENTITY_REQUIRED: 'DEVICE_IDENTITY_REQUIRED',
  DEVICE_AUTH_INVALID: 'DEVICE_AUTH_INVALID',
  DEVICE_AUTH_DEVICE_ID_MISMATCH: 'DEVICE_AUTH_DEVICE_ID_MISMATCH',
  DEVICE_AUTH_SIGNATURE_EXPIRED: 'DEVICE_AUTH_SIGNATURE_EXPIRED',
  DEVICE_AUTH_NONCE_REQUIRED: 'DEVICE_AUTH_NONCE_REQUIRED',
  DEVICE_AUTH_NONCE_MISMATCH: 'DEVICE_AUTH_NONCE_MISMATCH',
  DEVICE_AUTH_SIGNATURE_INVALID: 'DEVICE_AUTH_SIGNATURE_INVALID',
  DEVICE_AUTH_PUBLIC_KEY_INVALID: 'DEVICE_AUTH_PUBLIC_KEY_INVALID',
  PAIRING_REQUIRED: 'PAIRING_REQUIRED',
} as const
export type ConnectErrorCode = (typeof ConnectErrorCodes)[keyof typeof ConnectErrorCodes]

const NonEmpty = Type.String({ minLength: 1 })

export const ConnectParamsSchema = Type.Object(
  {
    minProtocol: Type.Integer({ minimum: 1 }),
    maxProtocol: Type.Integer({ minimum: 1 }),
    client: Type.Object(
      {
        id: Type.Enum([...GATEWAY_CLIENT_IDS]),
        displayName: Type.Optional(NonEmpty),
        version: NonEmpty,
        buildId: Type.Optional(Type.String({ minLength: 1, maxLength: 96 })),
        platform: NonEmpty,
        deviceFamily: Type.Optional(NonEmpty),
        modelIdentifier: Type.Optional(NonEmpty),
        timeZone: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
        mode: Type.Enum([...GATEWAY_CLIENT_MODES]),
        instanceId: Type.Optional(NonEmpty),
      },
      { additionalProperties: false },
    ),
    caps: Type.Optional(Type.Array(NonEmpty, { default: [] })),
    commands: Type.Optional(Type.Array(NonEmpty)),
    computerUse: Type.Optional(Type.Unknown()),
    workerRuns: Type.Optional(
      Type.Object(
        {
          bundleHash: Type.String({ minLength: 64, maxLength: 64, pattern: '^[a-f0-9]{64}$' }),
          openclawVersion: Type.String({ minLength: 1, maxLength: 128 }),
          protocolFeatures: Type.Array(Type.String({ minLength: 1, maxLength: 128 }), { maxItems: 64, uniqueItems: true }),
          bundlePrewarm: Type.Optional(Type.Integer({ minimum: 1, maximum: 9007199254740991 })),
        },
        { additionalProperties: false, 'x-openclaw-since': '2026.7' },
      ),
    ),
    permissions: Type.Optional(Type.Record(Type.String(), Type.Boolean())),
    pathEnv: Type.Optional(Type.String()),
    role: Type.Optional(NonEmpty),
    scopes: Type.Optional(Type.Array(NonEmpty)),
    device: Type.Optional(
      Type.Object(
        {
          id: NonEmpty,
          publicKey: NonEmpty,
          signature: NonEmpty,
          signedAt: Type.Integer({ minimum: 0 }),
          nonce: NonEmpty,
        },
        { additionalProperties: false },
      ),
    ),
    auth: Type.Optional(
      Type.Object(
        {
          token: Type.Optional(Type.String()),
          bootstrapToken: Type.Optional(Type.String()),
          deviceToken: Type.Optional(Type.String()),
          password: Type.Optional(Type.String()),
          approvalRuntimeToken: Type.Optional(Type.String()),
          agentRuntimeIdentityToken: Type.Optional(Type.String()),
        },
        { additionalProperties: false },
      ),
    ),
    locale: Type.Optional(Type.String()),
    userAgent: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
)
export type ConnectParams = Static<typeof ConnectParamsSchema>

export const RequestFrameSchema = Type.Object(
  {
    type: Type.Literal('req'),
    id: NonEmpty,
    method: NonEmpty,
    params: Type.Optional(Type.Unknown()),
    traceparent: Type.Optional(Type.String({ maxLength: 128 })),
  },
  { additionalProperties: false },
)
export type RequestFrame = Static<typeof RequestFrameSchema>

export interface ResponseFrame {
  type: 'res'
  id: string
  ok: boolean
  payload?: unknown
  error?: { code: string; message: string; details?: unknown; retryable?: boolean; retryAfterMs?: number }
}

export interface EventFrame {
  type: 'event'
  event: string
  payload?: unknown
  seq?: number
}

type Validator = ReturnType<typeof Compile>
let connectValidator: Validator | undefined
let requestValidator: Validator | undefined

function describe(v: Validator, value: unknown): string {
  const parts = [...v.Errors(value)]
    .filter((e) => e.keyword !== 'boolean')
    .slice(0, 6)
    .map((e) => {
      const extra = (e.params as { additionalProperties?: string[] }).additionalProperties
      const where = e.instancePath || 'root'
      return extra ? `at ${where}: unexpected property ${extra.map((x) => `'${x}'`).join(', ')}` : `at ${where}: ${e.message}`
    })
  return parts.join('; ') || 'invalid'
}

/** Returns undefined when valid, else a readable description of the first problems. */
export function checkConnectParams(value: unknown): string | undefined {
  connectValidator ??= Compile(ConnectParamsSchema)
  return connectValidator.Check(value) ? undefined : describe(connectValidator, value)
}

export function checkRequestFrame(value: unknown): string | undefined {
  requestValidator ??= Compile(RequestFrameSchema)
  return requestValidator.Check(value) ? undefined : describe(requestValidator, value)
}
