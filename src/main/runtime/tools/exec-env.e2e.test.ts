// exec's environment policy end to end: loopdesk.json → runner → exec tool, driven by the scripted model.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { AgentEvent } from '../../../shared/events'
import { startModelServer, type ModelServer } from '../../../../test/fixtures/model-server'
import { startTestRuntime, testConfig, type TestRuntime } from '../../../../test/fixtures/test-runtime'
import type { LoopdeskConfig } from '../contracts'

let server: ModelServer
beforeAll(async () => {
  server = await startModelServer()
})
afterAll(() => server.close())

let t: TestRuntime | undefined
const VARS = { LD_E2E_PROVIDER_CRED: 'provider-cred-value', OPENAI_API_KEY: 'sk-e2e-openai', LD_E2E_PLAIN: 'plain-value', LD_E2E_GH_TOKEN: 'gh-value' }
beforeAll(() => {
  Object.assign(process.env, VARS)
})
afterAll(() => {
  for (const k of Object.keys(VARS)) delete process.env[k]
})
afterEach(async () => {
  await t?.close()
  t = undefined
})

const COMMAND = 'echo "cred=[$LD_E2E_PROVIDER_CRED] openai=[$OPENAI_API_KEY] gh=[$LD_E2E_GH_TOKEN] plain=[$LD_E2E_PLAIN]"'

async function execOutput(exec: NonNullable<NonNullable<LoopdeskConfig['tools']>['exec']>): Promise<string> {
  const config = testConfig(server, { tools: { exec: { allowlist: [COMMAND], ...exec } } })
  // a provider whose key lives in a variable without the usual _API_KEY name
  config.models!.providers!.other = { baseUrl: server.openaiBaseUrl, api: 'openai-completions', apiKeyEnv: 'LD_E2E_PROVIDER_CRED', models: [] }
  t = await startTestRuntime(server, { config, runtime: { extensions: false } })
  server.script([{ toolCalls: [{ name: 'exec', args: { command: COMMAND } }] }, { text: 'done' }])
  const { runId } = await t.call('agent', { message: 'show env', idempotencyKey: `env-${Date.now()}` })
  expect(await t.call('agent.wait', { runId, timeoutMs: 15_000 })).toMatchObject({ status: 'ok' })
  const result = t.events
    .filter((e) => e.event === 'agent')
    .map((e) => e.payload as AgentEvent)
    .find((e) => e.runId === runId && e.stream === 'tool' && (e.data as { phase: string }).phase === 'result')
  const content = (result?.data as { result: { content: Array<{ text: string }> } }).result.content
  return content.map((c) => c.text).join('')
}

describe('exec environment (config → runner → tool)', () => {
  it("strips provider keys, including a configured provider's apiKeyEnv, and other tokens by their name", async () => {
    expect(await execOutput({})).toBe('cred=[] openai=[] gh=[] plain=[plain-value]\n')
  })

  it('tools.exec.envPassthrough lets named variables through', async () => {
    expect(await execOutput({ envPassthrough: ['LD_E2E_PROVIDER_CRED', 'LD_E2E_GH_*'] })).toBe('cred=[provider-cred-value] openai=[] gh=[gh-value] plain=[plain-value]\n')
  })
})
