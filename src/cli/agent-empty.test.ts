// `loopdesk agent` when the model wrote nothing (lifecycle end `emptyReply`): stdout stays empty and the exit code
// 0, but stderr says so in one line — through the gateway and --local; a NO_REPLY (a deliberate silence) and
// --json get no such note.
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { runCliCaptured } from '../../test/fixtures/cli-io'
import { useRuntimeGateway } from '../../test/fixtures/runtime-gateway'
import { tempDir } from '../../test/fixtures/temp-dir'
import { testConfig } from '../../test/fixtures/test-runtime'

const TOKEN = 'agent-empty-token-0123456789abcdef'
const env = useRuntimeGateway(TOKEN, { fallback: { text: 'ok' } })

const viaGateway = (args: string[]) =>
  runCliCaptured(['agent', ...args, '--url', env.stack.gw.url, '--state-dir', tempDir('loopdesk-cli-empty-')], { LOOPDESK_GATEWAY_TOKEN: TOKEN })
function local(args: string[]) {
  const state = tempDir('loopdesk-cli-empty-local-')
  fs.writeFileSync(path.join(state, 'loopdesk.json'), JSON.stringify(testConfig(env.server)))
  return runCliCaptured(['agent', '--local', ...args, '--state-dir', state], {})
}

describe('loopdesk agent: an empty reply', () => {
  it('prints nothing to stdout, exits 0, and notes it on stderr', async () => {
    for (const run of [viaGateway, local]) {
      env.server.push({ text: '', usage: { input: 1, output: 0 } })
      const r = await run(['-m', 'say nothing', '--session-key', `agent:main:empty-${run === local ? 'l' : 'g'}`])
      expect(r.code, r.err).toBe(0)
      expect(r.out).toBe('')
      expect(r.err).toContain('note: the model returned no text\n')
    }
  })

  it('NO_REPLY, a real reply, --json: no note', async () => {
    env.server.push({ textChunks: ['NO_', 'REPLY'] })
    const silent = await viaGateway(['-m', 'thanks', '--session-key', 'agent:main:empty-silent'])
    expect(silent.code, silent.err).toBe(0)
    expect(silent.err).not.toContain('no text')
    env.server.push({ text: 'hello there' })
    const spoke = await viaGateway(['-m', 'hi', '--session-key', 'agent:main:empty-spoke'])
    expect(spoke.out).toBe('hello there\n')
    expect(spoke.err).not.toContain('no text')
    env.server.push({ text: '', usage: { input: 1, output: 0 } })
    const json = await viaGateway(['-m', 'say nothing', '--session-key', 'agent:main:empty-json', '--json'])
    expect(json.code, json.err).toBe(0)
    expect(json.err).not.toContain('no text')
  })
})
