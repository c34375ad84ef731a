// `loopdesk agent` without --timeout runs under the configured run timeout (agents.defaults.timeoutSeconds), as
// every other client's run does — through the gateway and --local; --timeout still overrides it. (It sent a fixed
// 600 s, so the setting never reached a CLI run.)
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { runCliCaptured } from '../../test/fixtures/cli-io'
import { useRuntimeGateway } from '../../test/fixtures/runtime-gateway'
import { tempDir } from '../../test/fixtures/temp-dir'
import { testConfig } from '../../test/fixtures/test-runtime'

const TOKEN = 'agent-config-timeout-token-0123456789'
const env = useRuntimeGateway(TOKEN, { fallback: { text: 'ok' } })

const viaGateway = (args: string[]) =>
  runCliCaptured([...args, '--url', env.stack.gw.url, '--state-dir', tempDir('loopdesk-cli-cfgto-')], { LOOPDESK_GATEWAY_TOKEN: TOKEN })
function local(args: string[]) {
  const state = tempDir('loopdesk-cli-cfgto-local-')
  fs.writeFileSync(path.join(state, 'loopdesk.json'), JSON.stringify(testConfig(env.server, { agents: { defaults: { timeoutSeconds: 1 } } })))
  return runCliCaptured([...args, '--local', '--state-dir', state], {})
}
/** words at once, then a stall well past a 1 s timeout (ends in about 4 s when nothing stops it) */
const slowReply = () => env.server.push({ textChunks: ['partial ', 'reply ', 'then ', 'more'], firstDelayMs: 0, delayMs: 1300 })

describe('loopdesk agent and the configured run timeout', () => {
  it('applies without --timeout, through the gateway and --local: exit 5, timed out after 1 s', async () => {
    const set = await viaGateway(['config', 'set', 'agents.defaults.timeoutSeconds', '1'])
    expect(set.code, set.err).toBe(0)
    for (const run of [viaGateway, local]) {
      slowReply()
      const r = await run(['agent', '-m', 'slow please', '--session-key', `agent:main:cfgto-${run === local ? 'l' : 'g'}`])
      expect(r.code, r.err).toBe(5)
      expect(r.err).toMatch(/timed out after 1 s/)
    }
  }, 30_000)

  it('--timeout overrides it', async () => {
    slowReply()
    const r = await viaGateway(['agent', '-m', 'slow please', '--timeout', '30', '--session-key', 'agent:main:cfgto-flag'])
    expect(r.code, r.err).toBe(0)
    expect(r.out).toBe('partial reply then more\n')
  }, 30_000)
})
