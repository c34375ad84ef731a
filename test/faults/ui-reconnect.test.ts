// The browser UI's transport (the renderer's WebSocket Bridge) across a gateway crash: the gateway child
// is SIGKILLed mid-run and restarted on the same port. Calls pending at the kill settle (no hung promise),
// the bridge reconnects on its own, its event subscription keeps working, and what it reads after the
// reconnect is the truth: the acknowledged messages are in the history, the session says interrupted,
// agent.wait on the cut-off run answers, and the next message runs.
import fs from 'node:fs'
import net from 'node:net'
import WebSocket from 'ws'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Bridge } from '../../src/shared/bridge'
import type { AnyEvent } from '../../src/shared/events'
import { startModelServer, type CapturedRequest, type ModelServer, type Turn } from '../fixtures/model-server'
import { until } from '../fixtures/until'
import { startGatewayChild, type GatewayChild } from './support/gateway-process'
import { findSecrets, LogSink } from './support/logs'
import { lastUserText, newApiKey, newToken, sleep, suiteConfig, tempStateDir, writeConfig } from './support/setup'

// The bridge belongs to the renderer's TypeScript project (DOM lib): loaded by path, typed by what is used.
interface SocketLike {
  readonly readyState: number
}
interface WsBridge extends Bridge {
  readonly connection: { state: string; attempt: number }
  close(): void
}
const bridgeModule = new URL('../../src/renderer/src/bridge/ws-bridge.ts', import.meta.url).href
const reducerModule = new URL('../../src/renderer/src/state/run-reducer.ts', import.meta.url).href
const typesModule = new URL('../../src/renderer/src/state/types.ts', import.meta.url).href
const { reduce } = (await import(/* @vite-ignore */ reducerModule)) as { reduce(state: unknown, action: unknown): { items: Array<{ kind: string; runId?: string; status?: string; error?: string }> } }
const { emptyTranscript } = (await import(/* @vite-ignore */ typesModule)) as { emptyTranscript(key: string): unknown }
const { connectWsBridge } = (await import(/* @vite-ignore */ bridgeModule)) as {
  connectWsBridge(o: { url: string; token?: string; socketFactory?: (url: string) => SocketLike; backoffInitialMs?: number; backoffMaxMs?: number }): Promise<WsBridge>
}

const token = newToken()
const apiKey = newApiKey()
const logs = new LogSink()
let server: ModelServer
let stateDir: string
let gw: GatewayChild | undefined
let port: number

function script(req: CapturedRequest): Turn {
  if (lastUserText(req).includes('SLOW')) return { text: 'word '.repeat(60).trim(), chunks: 60, delayMs: 50 }
  return { text: 'back again', chunks: 2 }
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as net.AddressInfo).port
      s.close(() => resolve(p))
    })
  })

beforeAll(async () => {
  server = await startModelServer()
  server.script(script)
  stateDir = tempStateDir('ui')
  writeConfig(stateDir, suiteConfig(server, { apiKey }))
  port = await freePort()
  gw = await startGatewayChild({ stateDir, token, logs, label: 'ui-1', port })
})
afterAll(async () => {
  await gw?.stop()
  await server?.close()
  if (stateDir) fs.rmSync(stateDir, { recursive: true, force: true })
})

describe('browser UI transport across a gateway crash', () => {
  it('settles pending calls, reconnects, keeps its subscription, and reads the truth afterwards', async () => {
    const origin = `http://127.0.0.1:${port}`
    const bridge = await connectWsBridge({
      url: `ws://127.0.0.1:${port}`,
      token,
      socketFactory: (url) => new WebSocket(url, { headers: { Origin: origin } }) as unknown as SocketLike,
      backoffInitialMs: 100,
      backoffMaxMs: 400,
    })
    const key = 'agent:main:ui'
    const seen: AnyEvent[] = []
    bridge.subscribe({ sessionKey: key }, (e) => seen.push(e))
    try {
      const ack = await bridge.run({ message: 'SLOW story please', idempotencyKey: 'ui-run-1', sessionKey: key })
      expect(ack.ok).toBe(true)
      const queued = await bridge.send({ sessionKey: key, message: 'and then this', idempotencyKey: 'ui-chat-2', queueMode: 'followup' })
      expect(queued.ok).toBe(true)
      await until(() => seen.some((e) => e.event === 'agent' && e.payload.runId === 'ui-run-1' && e.payload.stream === 'assistant'), 20_000, 'a delta')
      const pendingWait = bridge.wait({ runId: 'ui-run-1', timeoutMs: 120_000 })

      await gw!.kill9()
      // the call that was waiting on the dead gateway settles instead of hanging
      const settled = await Promise.race([pendingWait, sleep(10_000).then(() => 'still pending' as const)])
      expect(settled).not.toBe('still pending')
      expect((settled as { ok: boolean }).ok).toBe(false)
      await until(() => bridge.connection.state === 'reconnecting', 10_000, 'reconnecting')

      gw = await startGatewayChild({ stateDir, token, logs, label: 'ui-2', port })
      await until(() => bridge.connection.state === 'open', 20_000, 'the bridge to reconnect')

      const list = await bridge.sessionsList({})
      // a run cut off by the crash: failed + interrupted (OpenClaw's row status enum has no "interrupted")
      expect(list.ok && list.data.sessions.find((s) => s.key === key)).toMatchObject({ status: 'failed', interrupted: true })
      // as the window's controller asks (PAGE_ROWS): the stored rows, not OpenClaw v4's display copy (whose
      // failure sentence replaces a failed turn's own error text)
      const hist = await bridge.history({ sessionKey: key, wholeMessages: true })
      expect(hist.ok).toBe(true)
      const users = hist.ok ? hist.data.messages.filter((m) => m.role === 'user').map((m) => JSON.stringify(m.content)) : []
      expect(users.some((u) => u.includes('SLOW story please'))).toBe(true)
      expect(users.some((u) => u.includes('and then this'))).toBe(true)
      // what the conversation view makes of that history: the cut-off run says it was interrupted
      const view = reduce(emptyTranscript(key), { type: 'hydrate', history: hist.ok ? hist.data : (undefined as never) })
      const footers = view.items.filter((i) => i.kind === 'run')
      expect(footers.find((f) => f.runId === 'ui-run-1')).toMatchObject({ status: 'error', error: expect.stringContaining('Interrupted') })
      expect(footers.some((f) => f.status === 'running' || f.status === 'pending')).toBe(false)
      const wait = await bridge.wait({ runId: 'ui-run-1', timeoutMs: 5_000 })
      expect(wait.ok && wait.data.status).toBe('error')

      // the subscription still delivers: the next run streams to it
      const before = seen.length
      const next = await bridge.run({ message: 'hello again', idempotencyKey: 'ui-run-3', sessionKey: key })
      expect(next.ok).toBe(true)
      await until(() => seen.slice(before).some((e) => e.event === 'chat' && e.payload.runId === 'ui-run-3' && e.payload.state === 'final'), 20_000, 'the next final')
      console.log(`FAULTS ui-reconnect: kill=1 reconnected=${bridge.connection.state} interruptedShown=sessions.list+conversation ackedInHistory=2/2 nextRun=ok`)
    } finally {
      bridge.close()
    }
    expect(findSecrets([token, apiKey], { logs, stateDirs: [stateDir] })).toEqual([])
  })
})
