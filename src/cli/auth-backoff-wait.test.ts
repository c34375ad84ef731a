// The gateway refuses an address for a few seconds after a burst of wrong tokens (AUTH_RATE_LIMITED): the
// CLI waits that out once — a user who has just fixed their token gets in — and a still-wrong token is
// still an auth failure. Real gateway, real sockets.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { runCliCaptured } from '../../test/fixtures/cli-io'
import { tempDir } from '../../test/fixtures/temp-dir'
import { startTestGateway, TEST_TOKEN, type TestGateway } from '../main/gateway/test-support'
import { EXIT } from './io'

let t: TestGateway
beforeEach(async () => {
  t = await startTestGateway()
})
afterEach(async () => {
  await t.stop()
})

const health = (token: string) =>
  runCliCaptured(['gateway', 'call', 'health', '--url', t.gw.url, '--state-dir', tempDir('loopdesk-cli-backoff-')], { LOOPDESK_GATEWAY_TOKEN: token })

describe('CLI and the wrong-token backoff', () => {
  it('after 10 wrong tokens the right one waits the lock out and gets in; a wrong one still fails as auth', async () => {
    for (let i = 0; i < 10; i++) expect((await health('wrong-token-0000000000')).code).toBe(EXIT.auth)
    const ok = await health(TEST_TOKEN)
    expect(ok.err).toMatch(/^loopdesk: the gateway refuses connects from this address for 1 s \(too many wrong tokens lately\); waiting…\n$/)
    expect(ok.code).toBe(EXIT.ok)

    for (let i = 0; i < 10; i++) await health('wrong-token-0000000000')
    const still = await health('wrong-token-0000000000')
    expect(still.err).toContain('waiting…')
    expect(still.code).toBe(EXIT.auth)
    expect(still.err).toContain('AUTH_TOKEN_MISMATCH')
  })
})
