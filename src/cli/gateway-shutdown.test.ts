// A gateway that shuts down while the CLI follows a run: `loopdesk agent`, `gateway call agent --expect-final` and
// `gateway call agent.wait` say the gateway shut down — its reason, and that it expects to be back when it says so —
// and exit 1, instead of a bare "run stopped (aborted)" or a lost connection.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { captureIO } from '../../test/fixtures/cli-io'
import { startModelServer, type ModelServer } from '../../test/fixtures/model-server'
import { startTestRuntime } from '../../test/fixtures/test-runtime'
import { tempDir } from '../../test/fixtures/temp-dir'
import { until } from '../../test/fixtures/until'
import { startGateway } from '../main/gateway/server'
import { runCli } from './main'

const TOKEN = 'gateway-shutdown-token-0123456789abcdef'
let server: ModelServer
beforeAll(async () => {
  server = await startModelServer()
})
afterAll(async () => {
  await server?.close()
})

/** a runtime behind a gateway, each test its own (the test shuts it down) */
async function stack() {
  const rt = await startTestRuntime(server)
  const gw = await startGateway({ host: rt.runtime, port: 0, token: TOKEN, stateDir: rt.stateDir, staticDir: null })
  const cli = (args: string[]) => {
    const c = captureIO({ LOOPDESK_GATEWAY_TOKEN: TOKEN })
    return { c, done: runCli([...args, '--url', gw.url, '--state-dir', tempDir('loopdesk-cli-shutdown-')], c.io) }
  }
  /** what `gateway run` does on SIGTERM: the runtime stops (its runs too), then the gateway closes */
  const stop = async (reason: string, restartExpectedMs?: number) => {
    await rt.runtime.shutdown({ drainMs: 0, reason })
    await gw.close(reason, restartExpectedMs === undefined ? {} : { restartExpectedMs })
  }
  return { rt, gw, cli, stop, close: () => Promise.all([gw.close(), rt.close()]) }
}

/** a reply that streams for a long time: the test stops the gateway in the middle of it */
const slowReply = () => server.push({ textChunks: Array.from({ length: 200 }, (_, i) => `w${i} `), firstDelayMs: 0, delayMs: 100 })

describe('the gateway shuts down while the CLI follows a run', () => {
  it('loopdesk agent names the shutdown, its reason and the expected restart; exit 1; the partial reply stays on stdout', async () => {
    const s = await stack()
    try {
      slowReply()
      const a = s.cli(['agent', '-m', 'go', '--session-key', 'agent:main:sd'])
      await until(() => a.c.out().includes('w1 '), 20_000, 'the reply to stream')
      await s.stop('restarting for an update', 4000)
      expect(await a.done, a.c.err()).toBe(1)
      expect(a.c.out()).toMatch(/^w0 w1 /)
      expect(a.c.err()).toMatch(/^error: run \S+ stopped: the gateway shut down \(reason: restarting for an update\); it expects to be back in about 4 s; once it is back, see what the run did: loopdesk sessions export agent:main:sd$/m)
      expect(a.c.err()).not.toContain('run stopped (')
    } finally {
      await s.close()
    }
  })

  it('agent --json: stdout is the final (stopReason shutdown) as JSON, the shutdown line on stderr', async () => {
    const s = await stack()
    try {
      slowReply()
      const a = s.cli(['agent', '-m', 'go', '--json', '--session-key', 'agent:main:sdj'])
      await until(() => s.rt.events.some((e) => e.event === 'chat' && e.payload.state === 'delta'), 20_000, 'the reply to stream')
      await s.stop('SIGTERM')
      expect(await a.done, a.c.err()).toBe(1)
      const final = JSON.parse(a.c.out())
      expect(final.result.meta).toMatchObject({ aborted: true, stopReason: 'shutdown' })
      expect(a.c.err()).toMatch(/stopped: the gateway shut down \(reason: SIGTERM\); once it is back/)
      expect(a.c.err()).not.toContain('expects to be back')
    } finally {
      await s.close()
    }
  })

  it('gateway call agent --expect-final and agent.wait print their result and exit 1 with the shutdown line', async () => {
    const s = await stack()
    try {
      slowReply()
      const call = s.cli(['gateway', 'call', 'agent', '--expect-final', '--timeout', '60000', '--params', JSON.stringify({ message: 'go', idempotencyKey: 'sd-k1', sessionKey: 'agent:main:sdc' })])
      await until(() => s.rt.events.some((e) => e.event === 'chat' && e.payload.state === 'delta'), 20_000, 'the reply to stream')
      const wait = s.cli(['gateway', 'call', 'agent.wait', '--json', '--timeout', '60000', '--params', JSON.stringify({ runId: 'sd-k1', timeoutMs: 50_000 })])
      await until(() => s.rt.runtime.core.runs.waiterCount() > 0, 20_000, 'agent.wait to be waiting')
      await s.stop('gateway stopped (SIGTERM)')
      expect(await call.done, call.c.err()).toBe(1)
      expect(JSON.parse(call.c.out()).result.meta.stopReason).toBe('shutdown')
      expect(call.c.err()).toContain('run sd-k1 stopped: the gateway shut down (reason: gateway stopped (SIGTERM)); once it is back, see what the run did: loopdesk sessions export agent:main:sdc')
      expect(await wait.done, wait.c.err()).toBe(1)
      expect(JSON.parse(wait.c.out())).toMatchObject({ runId: 'sd-k1', status: 'timeout', stopReason: 'shutdown' })
      expect(wait.c.err()).toContain('run sd-k1 stopped: the gateway shut down (reason: gateway stopped (SIGTERM))')
    } finally {
      await s.close()
    }
  })

  it('a gateway that closes before the run ends (no final): the connection lost says the gateway shut down, and why', async () => {
    const s = await stack()
    try {
      slowReply()
      const a = s.cli(['agent', '-m', 'go', '--session-key', 'agent:main:sdx'])
      await until(() => a.c.out().includes('w1 '), 20_000, 'the reply to stream')
      await s.gw.close('going down now', { restartExpectedMs: 1500 })
      expect(await a.done, a.c.err()).toBe(1)
      expect(a.c.err()).toMatch(/the gateway shut down while run \S+ was going \(reason: going down now\); it expects to be back in about 2 s; once it is back/)
    } finally {
      await s.close()
    }
  })
})
