// `loopdesk agent` with no model set up says how to set one up (the app's Settings, an API key variable, a local
// server through `loopdesk config set`), as `loopdesk models` does — not only the config key. --local on a fresh
// state dir, and through a gateway whose config names no default model.
import { describe, expect, it } from 'vitest'
import { runCliCaptured } from '../../test/fixtures/cli-io'
import { useRuntimeGateway } from '../../test/fixtures/runtime-gateway'
import { tempDir } from '../../test/fixtures/temp-dir'

const TOKEN = 'agent-no-model-token-0123456789ab'
const env = useRuntimeGateway(TOKEN)

const expectGuidance = (err: string) => {
  expect(err).toMatch(/^error: no model configured — set one up in the Loopdesk app \(Settings → Models\), or set an API key variable \(OPENAI_API_KEY/m)
  expect(err).toContain('loopdesk config set models.providers.local')
  expect(err).not.toContain('set agents.defaults.model.primary to "<provider>/<model>"')
}

describe('loopdesk agent with no model', () => {
  it('--local on a fresh state dir: the setup guidance, exit 1', async () => {
    const r = await runCliCaptured(['agent', '-m', 'hi', '--local', '--state-dir', tempDir('loopdesk-cli-nomodel-')], {})
    expect(r.code).toBe(1)
    expectGuidance(r.err)
    // config set needs a gateway, which --local runs without
    expect(r.err).toContain('`loopdesk config set` goes through a gateway: start one with `loopdesk gateway run`, or edit loopdesk.json in the state dir')
  })

  it('through a gateway whose config names no default model: the same', async () => {
    await env.stack.rt.call('config.patch', { patch: { agents: { defaults: { model: null } } } })
    const r = await runCliCaptured(['agent', '-m', 'hi', '--url', env.stack.gw.url, '--state-dir', tempDir('loopdesk-cli-nomodel-')], { LOOPDESK_GATEWAY_TOKEN: TOKEN })
    expect(r.code).toBe(1)
    expectGuidance(r.err)
    expect(r.err).not.toContain('goes through a gateway')
  })
})
