// `status` reports the port the gateway really listens on — also when the configured one was taken and
// the desktop app fell back to a free port — over the gateway and over the runtime's own (IPC) path.
import { createServer, type Server } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startModelServer, type ModelServer } from '../../../test/fixtures/model-server'
import { startTestRuntime, type TestRuntime } from '../../../test/fixtures/test-runtime'
import { connectGateway } from '../../cli/gateway-client'
import { generateNodeDeviceIdentity } from '../../cli/identity'
import { startGateway } from './server'

const TOKEN = 'status-port-token-0123456789'
let server: ModelServer
let rt: TestRuntime
let blocker: Server
let taken: number

beforeAll(async () => {
  server = await startModelServer({ fallback: { text: 'ok' } })
  rt = await startTestRuntime(server)
  blocker = createServer()
  await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()))
  taken = (blocker.address() as { port: number }).port
})
afterAll(async () => {
  await new Promise((r) => blocker?.close(r))
  await rt?.close()
  await server?.close()
})

describe('status reports the real gateway port', () => {
  it('after a port fallback: over the gateway and over the runtime path (gateway.json of this process)', async () => {
    const gw = await startGateway({ host: rt.runtime, port: taken, portFallback: true, token: TOKEN, stateDir: rt.stateDir, staticDir: null })
    try {
      expect(gw.fellBack).toBe(true)
      expect(gw.port).not.toBe(taken)
      const c = await connectGateway({ url: gw.url, token: TOKEN, identity: generateNodeDeviceIdentity() })
      const st = await c.request('status', {})
      expect(st).toMatchObject({ ok: true, gateway: { port: gw.port, url: `ws://127.0.0.1:${gw.port}`, bind: 'loopback', fellBack: true } })
      await c.close()
      // the desktop window calls the runtime directly (IPC): it reads what this process's gateway recorded
      expect((await rt.call('status', {})).gateway).toEqual({ port: gw.port, url: `ws://127.0.0.1:${gw.port}` })
    } finally {
      await gw.close()
    }
    // no gateway listening any more: nothing reported
    expect((await rt.call('status', {})).gateway).toBeUndefined()
  })

  it('a gateway.json written by another process is not reported as ours', async () => {
    const { writeGatewayInfo } = await import('./state-files')
    writeGatewayInfo(rt.stateDir, { port: 1234, pid: process.pid + 100000, url: 'ws://127.0.0.1:1234', startedAt: 1 })
    expect((await rt.call('status', {})).gateway).toBeUndefined()
  })
})
