// When the CLI stops following a run the gateway accepted, it says what became of the run and how to reach it:
// `gateway call agent --expect-final` whose --timeout ran out (exit 5; the run goes on — the printed agent.wait and
// chat.abort commands work), and `loopdesk agent` whose gateway went away mid-run (the printed export works).
import { describe, expect, it } from 'vitest'
import { captureIO, runCliCaptured } from '../../test/fixtures/cli-io'
import { useRuntimeGateway } from '../../test/fixtures/runtime-gateway'
import { tempDir } from '../../test/fixtures/temp-dir'
import { until } from '../../test/fixtures/until'
import { startGateway } from '../main/gateway/server'
import { runCli } from './main'

const TOKEN = 'run-lost-token-0123456789abcdef'
const env = useRuntimeGateway(TOKEN, { fallback: { text: 'ok' } })

const cli = (args: string[], url = env.stack.gw.url) =>
  runCliCaptured([...args, '--url', url, '--state-dir', tempDir('loopdesk-cli-lost-')], { LOOPDESK_GATEWAY_TOKEN: TOKEN })
/** The `loopdesk …` command the message printed after `label`, as argv (its JSON in single quotes). */
function printed(err: string, label: string): string[] {
  const cmd = new RegExp(`${label}: loopdesk (.*?)(?:;|\\n|$)`).exec(err)![1]
  return [...cmd.matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2])
}

describe('the CLI losing sight of an accepted run', () => {
  it('gateway call agent --expect-final past its --timeout: the run goes on, and the printed wait gets its end', async () => {
    env.server.push({ textChunks: Array.from({ length: 12 }, () => 'tok '), delayMs: 100 })
    const r = await cli(['gateway', 'call', 'agent', '--params', JSON.stringify({ message: 'slow', sessionKey: 'agent:main:lost-w', idempotencyKey: 'lost-w' }), '--expect-final', '--timeout', '400'])
    expect(r.code).toBe(5)
    // (on a loaded machine the ack itself can take longer than 400 ms: the line then says so, naming the same run)
    expect(r.err).toMatch(/stopped waiting after 400 ms(, but| before the gateway acknowledged the message; if it took it,) run lost-w goes on/)
    expect(r.err).not.toContain('timed out')
    expect(env.stack.rt.runtime.core.runner.activeRun('lost-w')).toBeDefined()
    const wait = await cli(printed(r.err, 'wait for it'))
    expect(wait.code, wait.err).toBe(0)
    expect(JSON.parse(wait.out)).toMatchObject({ runId: 'lost-w', status: 'ok' })
  })

  it('a wait that runs out before the ack still names the run (its idempotency key) and how to wait for it', async () => {
    // a gateway over the same runtime whose `agent` accept answers only after 1.5 s
    const rt = env.stack.rt.runtime
    const slowAck = await startGateway({
      host: {
        handlers: {
          ...rt.handlers,
          agent: async (p, ctx) => {
            await new Promise((r) => setTimeout(r, 1500))
            return rt.handlers.agent(p, ctx)
          },
        },
        subscribe: (l) => rt.subscribe(l),
        agentFinal: (id) => rt.agentFinal(id),
        info: rt.info,
        shutdown: (o) => rt.shutdown(o),
      },
      port: 0,
      token: TOKEN,
      stateDir: env.stack.rt.stateDir,
      staticDir: null,
      writeInfo: false,
    })
    try {
      const r = await cli(['gateway', 'call', 'agent', '--params', JSON.stringify({ message: 'late ack', sessionKey: 'agent:main:lost-a', idempotencyKey: 'lost-a' }), '--expect-final', '--timeout', '400'], slowAck.url)
      expect(r.code).toBe(5)
      expect(r.err).toContain('stopped waiting after 400 ms before the gateway acknowledged the message; if it took it, run lost-a goes on')
      expect(r.err).not.toContain('timed out')
      // the accept goes on after the client left: the printed wait (on the first gateway) reaches the run's end
      const wait = await cli(printed(r.err, 'wait for it'))
      expect(wait.code, wait.err).toBe(0)
      expect(JSON.parse(wait.out)).toMatchObject({ runId: 'lost-a', status: 'ok' })
    } finally {
      await slowAck.close()
    }
  })

  it('the printed stop command stops the run', async () => {
    env.server.push({ hang: true })
    const r = await cli(['gateway', 'call', 'agent', '--params', JSON.stringify({ message: 'hold', sessionKey: 'agent:main:lost-t', idempotencyKey: 'lost-t' }), '--expect-final', '--timeout', '400'])
    expect(r.code).toBe(5)
    const stop = await cli(printed(r.err, 'stop it'))
    expect(stop.code, stop.err).toBe(0)
    expect(JSON.parse(stop.out)).toMatchObject({ aborted: true, runIds: ['lost-t'] })
    await until(() => env.stack.rt.runtime.core.runner.activeRun('lost-t') === undefined, 5000)
  })

  it('gateway call agent --expect-final stopped with Ctrl-C: exit 130, the run goes on and the line says how to wait for or stop it', async () => {
    env.server.push({ textChunks: Array.from({ length: 30 }, () => 'tok '), delayMs: 100 })
    const c = captureIO({ LOOPDESK_GATEWAY_TOKEN: TOKEN })
    const params = { message: 'slow', sessionKey: 'agent:main:lost-i', idempotencyKey: 'lost-i' }
    const run = runCli(['gateway', 'call', 'agent', '--params', JSON.stringify(params), '--expect-final', '--url', env.stack.gw.url, '--state-dir', tempDir('loopdesk-cli-lost-')], c.io)
    await until(() => env.stack.rt.runtime.core.runner.activeRun('lost-i') !== undefined, 5000)
    await env.server.waitForRequests(env.server.requests.length, 5000)
    await new Promise((r) => setTimeout(r, 300)) // the ack has reached the client
    c.signal('SIGINT')
    expect(await run).toBe(130)
    expect(c.err()).toContain('stopped waiting, but run lost-i goes on in the gateway — wait for it: loopdesk gateway call agent.wait')
    expect(env.stack.rt.runtime.core.runner.activeRun('lost-i')).toBeDefined()
    const stop = await cli(printed(c.err(), 'stop it'))
    expect(stop.code, stop.err).toBe(0)
    await until(() => env.stack.rt.runtime.core.runner.activeRun('lost-i') === undefined, 5000)
  })

  it('loopdesk agent whose gateway goes away mid-run: says so, names the run, and the printed export shows it', async () => {
    const doomed = await startGateway({ host: env.stack.rt.runtime, port: 0, token: TOKEN, stateDir: env.stack.rt.stateDir, staticDir: null })
    env.server.push({ textChunks: ['part one ', ...Array.from({ length: 40 }, () => 'more ')], delayMs: 100 })
    const before = env.server.requests.length
    const run = cli(['agent', '-m', 'go on', '--session-key', 'agent:main:lost-g'], doomed.url)
    await until(() => env.stack.rt.runtime.core.runner.activeRunsOf('agent:main:lost-g').length > 0, 5000)
    // the reply has begun (a loaded machine may start the model request late)
    await env.server.waitForRequests(before + 1, 5000)
    await new Promise((r) => setTimeout(r, 300))
    await doomed.close()
    const r = await run
    expect(r.code).toBe(1)
    // it closed saying it shuts down (its shutdown event): the line says that, and why
    expect(r.err).toMatch(/the gateway shut down while run [\w-]+ was going \(reason: gateway stopping\)/)
    // the part of the reply that arrived ends its line (on a terminal the error would go on after it)
    expect(r.out).toMatch(/^part one .*\n$/)
    const exp = await cli(printed(r.err, 'see what the run did'))
    expect(exp.code, exp.err).toBe(0)
    expect(exp.out).toContain('go on')
  })
})
