// How the CLI connects: the shared gateway token when it has one, else — or when the gateway refuses
// it (rotated, stale in the environment) — the device token the gateway gave this CLI last time
// (hello-ok.auth.deviceToken, kept per gateway URL next to the device identity). A device token the
// gateway no longer accepts (revoked, rotated) is dropped with one line on stderr.
import { connectGateway, GatewayClientError, type GatewayConnectionClient } from './gateway-client'
import { dropDeviceToken, gatewayKey, loadDeviceToken, saveDeviceToken } from './device-token-store'
import { existsSync } from 'node:fs'
import { generateNodeDeviceIdentity, loadOrCreateDeviceIdentity, type NodeDeviceIdentity } from './identity'
import { CliError, EXIT, type CliIO } from './io'
import { staleGatewayError, type GatewayTarget } from './resolve'
import { awaitStartingGateway } from './starting-gateway'

/** The gateway refused the shared token itself (not the device proof, not the origin). */
const sharedTokenRejected = (err: unknown) => err instanceof GatewayClientError && err.kind === 'auth' && err.detailCode === 'AUTH_TOKEN_MISMATCH'
const deviceTokenRejected = (err: unknown) => err instanceof GatewayClientError && err.kind === 'auth' && err.detailCode === 'AUTH_DEVICE_TOKEN_MISMATCH'

export interface CliConnectOptions {
  target: GatewayTarget
  stateDir: string
  io: CliIO
  connectTimeoutMs?: number
  /** client caps for the hello (e.g. tool-events) */
  caps?: string[]
}

/** the longest wrong-token backoff (gateway auth-backoff.ts: loopback ≤ 4 s) the CLI sits out before one retry */
const AUTH_BACKOFF_WAIT_MAX_MS = 5_000

/** ms the gateway refuses this address for (AUTH_RATE_LIMITED), when short enough to wait out */
function authBackoffWait(err: unknown): number | undefined {
  if (!(err instanceof GatewayClientError) || err.detailCode !== 'AUTH_RATE_LIMITED') return undefined
  const ms = (err.details as { retryAfterMs?: unknown }).retryAfterMs
  return typeof ms === 'number' && ms >= 0 && ms <= AUTH_BACKOFF_WAIT_MAX_MS ? ms : undefined
}

export async function connectCli(opts: CliConnectOptions): Promise<GatewayConnectionClient> {
  opts = { ...opts, target: await awaitStartingGateway(opts.target, opts.stateDir, opts.io) }
  // a dead gateway's recorded address: no credentials go there (nor a connect at all)
  if (opts.target.source === 'stale') throw staleGatewayError(opts.stateDir, opts.target)
  try {
    return await connectOnce(opts)
  } catch (err) {
    // wrong tokens from this address lately (another program, or this user before fixing theirs): the
    // gateway takes none for a few seconds — wait once instead of failing a command whose token is right
    const wait = authBackoffWait(err)
    if (wait === undefined) throw err
    opts.io.stderr(`loopdesk: the gateway refuses connects from this address for ${Math.ceil(wait / 1000)} s (too many wrong tokens lately); waiting…\n`)
    await new Promise((r) => setTimeout(r, wait + 50))
    return connectOnce(opts)
  }
}

async function connectOnce(opts: CliConnectOptions): Promise<GatewayConnectionClient> {
  // A state dir that does not exist (a typo in --state-dir) is not created for an identity: this
  // connection uses a throwaway one and keeps nothing.
  if (!existsSync(opts.stateDir)) return connectWithoutStateDir(opts)
  const { target, stateDir, io } = opts
  let identity: NodeDeviceIdentity
  try {
    identity = loadOrCreateDeviceIdentity(stateDir, (line) => io.stderr(line + '\n'))
  } catch (err) {
    // nowhere to keep one (a read-only state dir, a full disk, a file in the way): the command still runs, on a
    // throwaway identity as above — it failed with the bare errno of a mkdir it never needed
    if (!isFsError(err)) throw err
    return connectWithoutStateDir(opts, true)
  }
  const stored = loadDeviceToken(stateDir, target.url, identity.deviceId)
  const base = { url: target.url, identity, connectTimeoutMs: opts.connectTimeoutMs, caps: opts.caps }
  const withDeviceToken = async () => {
    try {
      return remember(await connectGateway({ ...base, deviceToken: stored!.token }), opts, identity)
    } catch (err) {
      if (deviceTokenRejected(err) && dropDeviceToken(stateDir, target.url, stored!.token)) {
        io.stderr(`loopdesk: the gateway at ${gatewayKey(target.url)} rejected the stored device token (revoked or rotated); removed it\n`)
      }
      throw err
    }
  }

  if (target.token !== undefined) {
    try {
      return remember(await connectGateway({ ...base, token: target.token }), opts, identity)
    } catch (err) {
      if (!stored || !sharedTokenRejected(err)) throw err
      // the shared token changed since this CLI last connected: its device token may still be good
      try {
        return await withDeviceToken()
      } catch (retryErr) {
        // what the user has to fix is the shared token; only an unexpected failure of the retry is news
        throw retryErr instanceof GatewayClientError && retryErr.kind === 'auth' ? err : retryErr
      }
    }
  }
  if (stored) {
    try {
      return await withDeviceToken()
    } catch (err) {
      if (!deviceTokenRejected(err)) throw err
      throw new CliError(`no gateway token for ${target.url} — pass --token or set LOOPDESK_GATEWAY_TOKEN`, EXIT.auth)
    }
  }
  // no credentials at all: the gateway says so (AUTH_TOKEN_MISSING)
  return remember(await connectGateway(base), opts, identity)
}

/** `exists`: the state dir is there, but cannot keep an identity */
async function connectWithoutStateDir(opts: CliConnectOptions, exists = false): Promise<GatewayConnectionClient> {
  const { target, stateDir } = opts
  const base = { url: target.url, identity: generateNodeDeviceIdentity(), connectTimeoutMs: opts.connectTimeoutMs, caps: opts.caps }
  try {
    return await connectGateway(target.token === undefined ? base : { ...base, token: target.token })
  } catch (err) {
    // with no URL given, the state dir was the only place to learn one: name it
    if (!exists && err instanceof GatewayClientError && err.kind === 'unreachable' && target.source === 'default') {
      throw new CliError(`${err.message}; there is no state dir at ${stateDir} — check --state-dir / LOOPDESK_STATE_DIR`, EXIT.unreachable)
    }
    throw err
  }
}

const isFsError = (err: unknown) => typeof (err as NodeJS.ErrnoException)?.code === 'string' && typeof (err as NodeJS.ErrnoException).syscall === 'string'

/** Keeps the device token of a hello-ok for the next connect. Never fails the command. */
function remember(conn: GatewayConnectionClient, opts: CliConnectOptions, identity: NodeDeviceIdentity): GatewayConnectionClient {
  const auth = conn.hello?.auth as { deviceToken?: unknown; role?: unknown; scopes?: unknown; issuedAtMs?: unknown } | undefined
  if (typeof auth?.deviceToken !== 'string' || !auth.deviceToken) return conn
  try {
    saveDeviceToken(opts.stateDir, opts.target.url, {
      token: auth.deviceToken,
      deviceId: identity.deviceId,
      role: typeof auth.role === 'string' ? auth.role : 'operator',
      scopes: Array.isArray(auth.scopes) ? auth.scopes.filter((s): s is string => typeof s === 'string') : [],
      issuedAtMs: typeof auth.issuedAtMs === 'number' ? auth.issuedAtMs : Date.now(),
    })
  } catch (err) {
    opts.io.stderr(`loopdesk: could not store the device token: ${err instanceof Error ? err.message : String(err)}\n`)
  }
  return conn
}

/** Connects as connectCli does, runs `use` on the connection, and closes it however `use` ends. */
export async function withGateway<T>(opts: CliConnectOptions, use: (conn: GatewayConnectionClient) => Promise<T>): Promise<T> {
  const conn = await connectCli(opts)
  try {
    return await use(conn)
  } finally {
    await conn.close()
  }
}

/** the longest wait for the gateway's config write limit before giving up */
const RATE_LIMIT_WAIT_MAX_MS = 65_000

/**
 * A config write (`config.patch`): the gateway allows a device a few a minute, so one it refuses for that
 * waits once for the next slot (saying so) and then runs `again` — which re-reads what it builds on.
 */
export async function writeWithRateLimitWait<T>(io: CliIO, first: () => Promise<T>, again: () => Promise<T> = first): Promise<T> {
  try {
    return await first()
  } catch (err) {
    const wait = err instanceof GatewayClientError && err.detailCode === 'RATE_LIMITED' ? err.retryAfterMs : undefined
    if (wait === undefined || wait > RATE_LIMIT_WAIT_MAX_MS) throw err
    io.stderr(`loopdesk: the gateway takes a few config writes a minute; waiting ${Math.ceil(wait / 1000)} s…\n`)
    await new Promise((r) => setTimeout(r, wait))
    return again()
  }
}
