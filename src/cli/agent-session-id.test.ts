// `loopdesk agent --session-id`: continues the session that has that id (found in `sessions --json`); an id
// no session has is an error and makes nothing — the gateway alone would start a new session under it.
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { runCliCaptured } from '../../test/fixtures/cli-io'
import { useRuntimeGateway } from '../../test/fixtures/runtime-gateway'
import { tempDir } from '../../test/fixtures/temp-dir'
import { testConfig } from '../../test/fixtures/test-runtime'
import { sessionStorePath } from '../main/runtime/sessions/paths'

const TOKEN = 'agent-session-id-token-0123456789abcdef'
const env = useRuntimeGateway(TOKEN, { fallback: { text: 'ok' } })

describe('loopdesk agent --session-id', () => {
  it('continues an existing session by its id; an unknown id exits 1 with one line and creates no session', async () => {
    const target = ['--url', env.stack.gw.url, '--state-dir', tempDir('loopdesk-cli-sid-')]
    const viaGateway = (args: string[]) => runCliCaptured(['agent', ...args, ...target], { LOOPDESK_GATEWAY_TOKEN: TOKEN })
    const localState = tempDir('loopdesk-cli-sid-local-')
    fs.writeFileSync(path.join(localState, 'loopdesk.json'), JSON.stringify(testConfig(env.server)))
    const local = (args: string[]) => runCliCaptured(['agent', '--local', ...args, '--state-dir', localState], {})

    // the ids as a script finds them: `sessions --json` through the gateway, the store file for --local
    const gatewayIds = async () => {
      const r = await runCliCaptured(['sessions', '--json', '--all', ...target], { LOOPDESK_GATEWAY_TOKEN: TOKEN })
      return (JSON.parse(r.out) as Array<{ sessionId: string }>).map((s) => s.sessionId)
    }
    const localIds = () => Object.values(JSON.parse(fs.readFileSync(sessionStorePath(localState, 'main'), 'utf8')) as Record<string, { sessionId: string }>).map((e) => e.sessionId)

    for (const [name, run, ids] of [['gateway', viaGateway, gatewayIds], ['local', local, localIds]] as const) {
      env.server.push({ text: 'first' })
      const first = await run(['-m', 'first', '--session-key', `agent:main:sid-${name}`, '--json'])
      expect(first.code, first.err).toBe(0)
      const sessionId = JSON.parse(first.out).result.meta.agentMeta.sessionId as string
      expect(await ids()).toContain(sessionId)

      env.server.push({ text: 'second' })
      const again = await run(['-m', 'again', '--session-id', sessionId])
      expect(again.code, again.err).toBe(0)
      expect(again.out).toBe('second\n')

      const before = (await ids()).length
      const missing = await run(['-m', 'hi', '--session-id', `nope-${name}`])
      expect(missing).toEqual({ code: 1, out: '', err: `loopdesk: session not found: nope-${name} (see: loopdesk sessions --json)\n` })
      expect(await ids()).toHaveLength(before)
      expect(await ids()).not.toContain(`nope-${name}`)
    }
  })
})
