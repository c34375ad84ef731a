// `loopdesk gateway --help` prints the three gateway commands' help (exit 0) like every other command's
// --help; an unknown gateway command is still a usage error. An empty option value is a usage error too.
import { describe, expect, it } from 'vitest'
import { runCliCaptured } from '../../test/fixtures/cli-io'

describe('loopdesk gateway --help', () => {
  it('lists run, call and rotate-token; exit 0', async () => {
    for (const flag of ['--help', '-h', 'help']) {
      const r = await runCliCaptured(['gateway', flag])
      expect(r.code, flag).toBe(0)
      expect(r.out).toMatch(/^loopdesk gateway run /)
      expect(r.out).toContain('\nloopdesk gateway call <method>')
      expect(r.out).toContain('\nloopdesk gateway rotate-token')
    }
    expect(await runCliCaptured(['gateway', 'launch'])).toMatchObject({ code: 2, err: expect.stringContaining('unknown gateway command: launch') })
  })
})

describe('an empty option value', () => {
  it('is a usage error (exit 2) before anything connects, not a schema message from the gateway', async () => {
    expect(await runCliCaptured(['agent', '-m', 'hi', '--session-key', ''])).toMatchObject({
      code: 2,
      err: expect.stringContaining('--session-key needs a value (it was empty)'),
    })
    expect(await runCliCaptured(['agent', '-m', 'hi', '--session-key=  '])).toMatchObject({ code: 2 })
  })
})

describe('config set / unset without a path', () => {
  it('says what the command needs (exit 2), before anything connects', async () => {
    expect(await runCliCaptured(['config', 'set'])).toMatchObject({
      code: 2,
      err: 'loopdesk: config set needs a path: config set PATH VALUE (or --stdin), e.g. agents.defaults.timeoutSeconds (see: loopdesk --help)\n',
    })
    expect(await runCliCaptured(['config', 'unset'])).toMatchObject({
      code: 2,
      err: 'loopdesk: config unset needs a path: config unset PATH, e.g. agents.defaults.timeoutSeconds (see: loopdesk --help)\n',
    })
  })
})

describe('loopdesk --version', () => {
  it('prints the version for --version, -V, -v and version, and the help names it', async () => {
    const { LOOPDESK_VERSION } = await import('../main/runtime/runtime')
    for (const flag of ['--version', '-V', '-v', 'version']) expect(await runCliCaptured([flag]), flag).toMatchObject({ code: 0, out: `${LOOPDESK_VERSION}\n` })
    expect((await runCliCaptured(['--help'])).out).toContain('\nloopdesk --version (-V, -v)\n')
  })
})

describe('gateway call --params past the gateway bounds', () => {
  it('nested too deep or too many values: a usage error (exit 2) before anything connects, not a stack overflow', async () => {
    // the URL has no gateway: a usage error never gets as far as connecting
    const call = (params: string) => runCliCaptured(['gateway', 'call', 'health', '--json', '--url', 'ws://127.0.0.1:9', '--params', params], { LOOPDESK_GATEWAY_TOKEN: 't' })
    const deep = await call(`${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`)
    expect(deep.code, deep.err).toBe(2)
    expect(JSON.parse(deep.out).error.message).toBe('--params is nested deeper than 64 levels (the limit) (see: loopdesk --help)')
    const wide = await call(JSON.stringify({ list: Array.from({ length: 100_001 }, () => 0) }))
    expect(wide.code, wide.err).toBe(2)
    expect(wide.err).toBe('loopdesk: --params is more than 100,000 values (the limit) (see: loopdesk --help)\n')
  })
})
