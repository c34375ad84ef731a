// --json promises JSON on stdout: a command that fails before it printed anything (no gateway, a bad flag, a
// refused token) prints its error there as one JSON object too — a script's JSON.parse never meets an empty stdout.
import { describe, expect, it } from 'vitest'
import { runCliCaptured } from '../../test/fixtures/cli-io'
import { useRuntimeGateway } from '../../test/fixtures/runtime-gateway'
import { tempDir } from '../../test/fixtures/temp-dir'

const TOKEN = 'json-errors-token-0123456789abcdef'
const env = useRuntimeGateway(TOKEN)

describe('--json on failure', () => {
  it('no gateway, a usage error, a wrong token: one JSON error object on stdout, the line on stderr, the exit code in both', async () => {
    const state = tempDir('loopdesk-cli-json-err-')
    const cases: Array<[string[], number, RegExp, NodeJS.ProcessEnv?]> = [
      [['sessions', '--json', '--url', 'ws://127.0.0.1:1'], 3, /gateway not running/],
      [['status', '--json', '--url', 'ws://127.0.0.1:1'], 3, /gateway not running/],
      [['agent', '-m', 'hi', '--json', '--timeout', 'abc'], 2, /--timeout must be an integer/],
      [['models', '--json', '--url', env.stack.gw.url, '--token', 'wrong-token-0123456789abcdef'], 4, /gateway auth failed/],
    ]
    for (const [args, exit, message] of cases) {
      const r = await runCliCaptured([...args, '--state-dir', state], {})
      expect(r.code, r.err).toBe(exit)
      expect(r.err).toMatch(message)
      const parsed = JSON.parse(r.out)
      expect(parsed).toMatchObject({ ok: false, error: { exitCode: exit } })
      expect(parsed.error.message).toMatch(message)
    }
  })

  it('a command that printed its JSON before failing prints no second object (gateway call --json)', async () => {
    const r = await runCliCaptured(['gateway', 'call', 'no.such.method', '--json', '--url', env.stack.gw.url, '--state-dir', tempDir('loopdesk-cli-json-err-')], {
      LOOPDESK_GATEWAY_TOKEN: TOKEN,
    })
    expect(r.code).toBe(1)
    expect(r.out.trim().split('\n')).toHaveLength(1)
    expect(JSON.parse(r.out)).toMatchObject({ ok: false, error: { code: 'INVALID_REQUEST' } })
  })

  it('without --json stdout stays empty on failure', async () => {
    const r = await runCliCaptured(['sessions', '--url', 'ws://127.0.0.1:1', '--state-dir', tempDir('loopdesk-cli-json-err-')], {})
    expect(r.code).toBe(3)
    expect(r.out).toBe('')
  })
})
