// `loopdesk agent` prints what the user is meant to see: the message tool's text once, never NO_REPLY, never the
// model's repeat of a text the message tool already delivered — through the gateway and --local.
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { runCliCaptured } from '../../test/fixtures/cli-io'
import { useRuntimeGateway } from '../../test/fixtures/runtime-gateway'
import { tempDir } from '../../test/fixtures/temp-dir'
import { testConfig } from '../../test/fixtures/test-runtime'

const TOKEN = 'agent-silent-token-0123456789abcdef'
const env = useRuntimeGateway(TOKEN, { fallback: { text: 'ok' } })

const viaGateway = (args: string[]) =>
  runCliCaptured(['agent', ...args, '--url', env.stack.gw.url, '--state-dir', tempDir('loopdesk-cli-silent-')], { LOOPDESK_GATEWAY_TOKEN: TOKEN })
function local(args: string[]) {
  const state = tempDir('loopdesk-cli-silent-local-')
  fs.writeFileSync(path.join(state, 'loopdesk.json'), JSON.stringify(testConfig(env.server)))
  return runCliCaptured(['agent', '--local', ...args, '--state-dir', state], {})
}
const send = (text: string) => ({ toolCalls: [{ name: 'message', args: { text } }] })

describe('loopdesk agent: silent and repeated replies', () => {
  it('message tool, then NO_REPLY: the sent text once, no NO_REPLY', async () => {
    for (const run of [viaGateway, local]) {
      env.server.push(send('Progress: all done here.'), { textChunks: ['NO', '_REPLY'] })
      const r = await run(['-m', 'go', '--session-key', `agent:main:nr-${run === local ? 'l' : 'g'}`])
      expect(r.code, r.err).toBe(0)
      expect(r.out).toBe('Progress: all done here.\n')
    }
  })

  it('message tool, then the same text as the reply: printed once', async () => {
    for (const run of [viaGateway, local]) {
      env.server.push(send('Here is the answer: 42.'), { textChunks: ['Here is the ', 'answer: 42.'] })
      const r = await run(['-m', 'go', '--session-key', `agent:main:dup-${run === local ? 'l' : 'g'}`])
      expect(r.code, r.err).toBe(0)
      expect(r.out).toBe('Here is the answer: 42.\n')
    }
  })

  it('the text streamed before a message call that sends it again: printed once', async () => {
    for (const run of [viaGateway, local]) {
      env.server.push({ textChunks: ['Here is the ', 'answer: 42.'], ...send('Here is the answer: 42.'), delayMs: 10 }, { textChunks: ['NO_', 'REPLY'] })
      const r = await run(['-m', 'go', '--session-key', `agent:main:pre-${run === local ? 'l' : 'g'}`])
      expect(r.code, r.err).toBe(0)
      expect(r.out).toBe('Here is the answer: 42.\n')
    }
  })

  it('just NO_REPLY: prints nothing and exits 0', async () => {
    env.server.push({ textChunks: ['NO_', 'REPLY'] })
    const r = await viaGateway(['-m', 'thanks', '--session-key', 'agent:main:quiet'])
    expect(r.code, r.err).toBe(0)
    expect(r.out).toBe('')
  })
})
