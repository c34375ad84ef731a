// `loopdesk agent` prints the reply of a model that writes its reasoning inline in <think> tags without the
// tags or the reasoning — through the gateway and --local.
import fs from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { runCliCaptured } from '../../test/fixtures/cli-io'
import { useRuntimeGateway } from '../../test/fixtures/runtime-gateway'
import { tempDir } from '../../test/fixtures/temp-dir'
import { testConfig } from '../../test/fixtures/test-runtime'
import { forgetTemplateOpenedModels } from '../main/runtime/streaming/think-tag-text'

const TOKEN = 'agent-think-tags-token-0123456789abcdef'
const env = useRuntimeGateway(TOKEN, { fallback: { text: 'ok' } })
afterEach(() => forgetTemplateOpenedModels())

const viaGateway = (args: string[]) =>
  runCliCaptured(['agent', ...args, '--url', env.stack.gw.url, '--state-dir', tempDir('loopdesk-cli-think-')], { LOOPDESK_GATEWAY_TOKEN: TOKEN })
function local(args: string[]) {
  const state = tempDir('loopdesk-cli-think-local-')
  fs.writeFileSync(path.join(state, 'loopdesk.json'), JSON.stringify(testConfig(env.server)))
  return runCliCaptured(['agent', '--local', ...args, '--state-dir', state], {})
}

describe('loopdesk agent: <think> tags', () => {
  it('prints the reply alone, tags cut across chunks', async () => {
    for (const run of [viaGateway, local]) {
      env.server.push({ textChunks: ['<thi', 'nk>The user ', 'wants 42.</th', 'ink>\n\nThe answer', ' is 42.'], delayMs: 10 })
      const r = await run(['-m', 'go', '--session-key', `agent:main:tt-${run === local ? 'l' : 'g'}`])
      expect(r.code, r.err).toBe(0)
      expect(r.out).toBe('The answer is 42.\n')
    }
  })

  it('a closing tag with no opener: the answer is printed after what streamed before it; later replies alone', async () => {
    env.server.push({ textChunks: ['The user wants', ' a number.\n</th', 'ink>\n\n42'], delayMs: 200 })
    const first = await viaGateway(['-m', 'go', '--session-key', 'agent:main:stray'])
    expect(first.code, first.err).toBe(0)
    expect(first.out.endsWith('42\n')).toBe(true)
    env.server.push({ textChunks: ['Again a ', 'number.</think>', '\n\n43'], delayMs: 10 })
    const next = await viaGateway(['-m', 'go', '--session-key', 'agent:main:stray'])
    expect(next.out).toBe('43\n')
  })

  it('a reasoning-family model whose template opened the block: even its first reply prints the answer alone', async () => {
    const state = tempDir('loopdesk-cli-think-family-')
    const local = { baseUrl: env.server.openaiBaseUrl, api: 'openai-completions' as const, models: [{ id: 'qwen3:8b', contextWindow: 32000, maxTokens: 1024 }] }
    fs.writeFileSync(path.join(state, 'loopdesk.json'), JSON.stringify(testConfig(env.server, { models: { providers: { local } } })))
    env.server.push({ textChunks: ['The user wants', ' a number.\n</th', 'ink>\n\n42'], delayMs: 200 })
    const r = await runCliCaptured(['agent', '--local', '-m', 'go', '--model', 'local/qwen3:8b', '--state-dir', state], {})
    expect(r.code, r.err).toBe(0)
    expect(r.out).toBe('42\n')
  })
})
