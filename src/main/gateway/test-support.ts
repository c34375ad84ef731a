// Helpers for gateway tests: a gateway over a FakeHost in a temp state dir, and a raw frame-level client.
import { rmSync } from 'node:fs'
import WebSocket from 'ws'
import { connectGateway, type ConnectOptions } from '../../cli/gateway-client'
import { generateNodeDeviceIdentity, type NodeDeviceIdentity } from '../../cli/identity'
import { FakeHost, type FakeHostOptions } from './fake-host'
import type { GatewayLimits } from './protocol'
import { startGateway, type GatewayHandle, type StartGatewayOptions } from './server'
import { tempDir } from '../../../test/fixtures/temp-dir'

export const TEST_TOKEN = 'test-token-0123456789abcdef'

export interface TestGateway {
  gw: GatewayHandle
  host: FakeHost
  stateDir: string
  identity: NodeDeviceIdentity
  connect(opts?: Partial<ConnectOptions>): ReturnType<typeof connectGateway>
  stop(): Promise<void>
}

export async function startTestGateway(
  hostOpts: FakeHostOptions = {},
  gwOpts: Partial<StartGatewayOptions> & { limits?: Partial<GatewayLimits> } = {},
): Promise<TestGateway> {
  const stateDir = tempDir('loopdesk-gw-')
  const host = new FakeHost(hostOpts)
  // the gateway follows the host's config (token rotations, verboseDefault): a real ConfigManager over
  // this test's state dir, polled as often as the gateway polls the token file
  host.useConfigFile(stateDir, gwOpts.limits?.authWatchIntervalMs ?? 50)
  const gw = await startGateway({ host, port: 0, token: TEST_TOKEN, stateDir, staticDir: null, ...gwOpts }).catch((err: unknown) => {
    host.stopConfig()
    throw err
  })
  const identity = generateNodeDeviceIdentity()
  return {
    gw,
    host,
    stateDir,
    identity,
    connect: (opts = {}) => connectGateway({ url: gw.url, token: TEST_TOKEN, identity, ...opts }),
    stop: async () => {
      await gw.close('test done')
      host.stopConfig()
      rmSync(stateDir, { recursive: true, force: true })
    },
  }
}

export interface Frame {
  type: string
  id?: string
  ok?: boolean
  event?: string
  payload?: any
  error?: { code: string; message: string; details?: any; retryable?: boolean; retryAfterMs?: number }
  seq?: number
}

/** A WebSocket that records every frame; tests await frames matching a predicate. */
export class RawClient {
  readonly frames: Frame[] = []
  private waiters: Array<{ pred: (f: Frame) => boolean; resolve: (f: Frame) => void }> = []
  readonly closed: Promise<{ code: number; reason: string }>
  readonly opened: Promise<void>

  constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      let f: Frame
      try {
        f = JSON.parse(data.toString())
      } catch {
        return
      }
      this.frames.push(f)
      this.waiters = this.waiters.filter((w) => {
        if (!w.pred(f)) return true
        w.resolve(f)
        return false
      })
    })
    ws.on('error', () => {})
    this.closed = new Promise((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })))
    this.opened = new Promise((resolve, reject) => {
      ws.once('open', () => resolve())
      ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)))
    })
  }

  static open(url: string, headers?: Record<string, string>) {
    return new RawClient(new WebSocket(url, { headers, perMessageDeflate: false }))
  }

  next(pred: (f: Frame) => boolean, timeoutMs = 5000): Promise<Frame> {
    const found = this.frames.find(pred)
    if (found) return Promise.resolve(found)
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error('timed out waiting for a frame')), timeoutMs)
      this.waiters.push({
        pred,
        resolve: (f) => {
          clearTimeout(t)
          resolve(f)
        },
      })
    })
  }

  res(id: string, timeoutMs?: number) {
    return this.next((f) => f.type === 'res' && f.id === id, timeoutMs)
  }

  challenge() {
    return this.next((f) => f.type === 'event' && f.event === 'connect.challenge')
  }

  send(v: unknown) {
    this.ws.send(typeof v === 'string' ? v : JSON.stringify(v))
  }
}
