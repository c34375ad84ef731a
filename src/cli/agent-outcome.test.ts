// `loopdesk agent`: how a run's end reads — stdout carries only the reply; a failed model call and a timeout
// note go to stderr; a run the timeout stopped exits 5 (the help's "timed out"), a failed one 1.
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { captureIO, runCliCaptured } from '../../test/fixtures/cli-io'
import { runCli } from './main'
import type { RuntimeHost } from '../main/api/host'
import { startGateway } from '../main/gateway/server'
import { useRuntimeGateway } from '../../test/fixtures/runtime-gateway'
import { tempDir } from '../../test/fixtures/temp-dir'
import { testConfig } from '../../test/fixtures/test-runtime'

const TOKEN = 'agent-outcome-token-0123456789abcdef'
const env = useRuntimeGateway(TOKEN, { fallback: { text: 'ok' } })

const viaGateway = (args: string[]) =>
  runCliCaptured(['agent', ...args, '--url', env.stack.gw.url, '--state-dir', tempDir('loopdesk-cli-outcome-')], { LOOPDESK_GATEWAY_TOKEN: TOKEN })
function local(args: string[]) {
  const state = tempDir('loopdesk-cli-outcome-local-')
  fs.writeFileSync(path.join(state, 'loopdesk.json'), JSON.stringify(testConfig(env.server)))
  return runCliCaptured(['agent', '--local', ...args, '--state-dir', state], {})
}

describe('loopdesk agent: how a run ends', () => {
  it('a run the timeout stopped exits 5; the note goes to stderr, the partial reply stays on stdout', async () => {
    for (const run of [viaGateway, local]) {
      // the first words at once, then a stall far past the timeout (a 700 ms first delay lost the race to a
      // 1 s timeout on a loaded machine)
      env.server.push({ textChunks: ['partial ', 'reply ', 'never ', 'finished'], firstDelayMs: 0, delayMs: 5000 })
      const r = await run(['-m', 'slow please', '--timeout', '2', '--session-key', `agent:main:to-${run === local ? 'l' : 'g'}`])
      expect(r.code, r.err).toBe(5)
      expect(r.out).toContain('partial')
      expect(r.out).not.toContain('timed out')
      expect(r.err).toMatch(/timed out after 2 s/)
      expect(r.err).toContain('run stopped (timeout)')
    }
  })

  it('a reply carrying terminal escape sequences prints without their control bytes', async () => {
    env.server.push({ text: 'ok\u001b]52;c;ZXZpbA==\u0007 then\u001b[2J clear', chunks: 3 })
    const r = await viaGateway(['-m', 'hi', '--session-key', 'agent:main:esc'])
    expect(r.code).toBe(0)
    expect(r.out).toBe('ok]52;c;ZXZpbA== then[2J clear\n')
  })

  it('a failed model call exits 1 with the error on stderr only, through the gateway and --local', async () => {
    for (const run of [viaGateway, local]) {
      env.server.push({ status: 400, message: 'upstream exploded' }) // not retried
      const r = await run(['-m', 'fail', '--session-key', `agent:main:fail-${run === local ? 'l' : 'g'}`])
      expect(r.code).toBe(1)
      expect(r.out).toBe('')
      expect(r.err).toMatch(/^error: .*upstream exploded/m)
    }
  })

  it('a failed model call under --json prints its partial reply and error payload (through the gateway and --local), exit 1', async () => {
    for (const run of [viaGateway, local]) {
      env.server.push({ textChunks: ['half ', 'an answer'], streamError: 'stream broke' })
      const r = await run(['-m', 'fail late', '--json', '--session-key', `agent:main:failjson-${run === local ? 'l' : 'g'}`])
      expect(r.code, r.err).toBe(1)
      const final = JSON.parse(r.out)
      expect(final.result.payloads).toEqual([{ text: 'half an answer' }, { text: expect.stringContaining('stream broke'), isError: true }])
      expect(final.result.meta.error.message).toContain('stream broke')
      expect(r.err).toMatch(/^error: .*stream broke/m)
    }
  })

  it('Ctrl-C before the gateway acknowledged the message stops the run once it does (exit 130); twice stops waiting', async () => {
    // a gateway whose `agent` answers only when the test lets it (as with a large file still on its way)
    const rt = env.stack.rt.runtime
    let release!: () => void
    let gate!: Promise<void>
    const closeGate = () => (gate = new Promise<void>((r) => (release = r)))
    closeGate()
    const host: RuntimeHost = {
      handlers: { ...rt.handlers, agent: async (p, ctx) => (await gate, rt.handlers.agent(p, ctx)) },
      subscribe: (l) => rt.subscribe(l),
      agentFinal: (id) => rt.agentFinal(id),
      info: rt.info,
      shutdown: async () => {},
    }
    const gw = await startGateway({ host, port: 0, token: TOKEN, stateDir: env.stack.rt.stateDir, staticDir: null, writeInfo: false })
    try {
      env.server.push({ textChunks: ['slow ', 'reply ', 'never ', 'finished'], delayMs: 400 })
      const run = (key: string) => {
        const c = captureIO({ LOOPDESK_GATEWAY_TOKEN: TOKEN })
        return { c, done: runCli(['agent', '-m', 'slow please', '--session-key', key, '--url', gw.url, '--state-dir', tempDir('loopdesk-cli-outcome-')], c.io) }
      }
      const interrupt = async (c: ReturnType<typeof captureIO>) => {
        for (let i = 0; i < 500 && !c.listening(); i++) await new Promise((r) => setTimeout(r, 10))
        c.signal('SIGINT')
      }
      const a = run('agent:main:early-stop')
      await interrupt(a.c)
      expect(a.c.err()).toContain('stopping the run as soon as the gateway has the message')
      release()
      expect(await a.done).toBe(130)
      expect(a.c.err()).not.toContain('stopped waiting')
      // the run was stopped, not left to finish: its end is an abort, and the reply never completed
      const history = await env.stack.rt.call('chat.history', { sessionKey: 'agent:main:early-stop' })
      expect(JSON.stringify(history.messages)).not.toContain('finished')
      expect(env.stack.rt.runtime.core.tracked.size).toBe(0)

      // twice: it stops waiting at once
      closeGate()
      const b = run('agent:main:early-stop-2')
      await interrupt(b.c)
      b.c.signal('SIGINT')
      expect(await b.done).toBe(130)
      expect(b.c.err()).toContain('stopped waiting')
    } finally {
      release()
      await gw.close()
    }
  })
})
