// `loopdesk agent`: how a run's end reads — stdout carries only the reply; a failed model call and a timeout
// note go to stderr; a run the timeout stopped exits 5 (the help's "timed out"), a failed one 1.
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { runCliCaptured } from '../../test/fixtures/cli-io'
import { useCliGateway } from '../../test/fixtures/cli-gateway'
import { tempDir } from '../../test/fixtures/temp-dir'
import { testConfig } from '../../test/fixtures/test-runtime'

const TOKEN = 'agent-outcome-token-0123456789abcdef'
const env = useCliGateway(TOKEN, { fallback: { text: 'ok' } })

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
      env.server.push({ textChunks: ['partial ', 'reply ', 'never ', 'finished'], delayMs: 700 })
      const r = await run(['-m', 'slow please', '--timeout', '1', '--session-key', `agent:main:to-${run === local ? 'l' : 'g'}`])
      expect(r.code, r.err).toBe(5)
      expect(r.out).toContain('partial')
      expect(r.out).not.toContain('timed out')
      expect(r.err).toMatch(/timed out after 1 s/)
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
})
