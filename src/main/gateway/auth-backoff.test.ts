// Wrong-token connects are throttled per address: real gateway, real WebSockets (and the policy's clock
// arithmetic on its own, where waiting for real would take minutes).
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { generateNodeDeviceIdentity } from '../../cli/identity'
import { AuthBackoff, LOCAL_BACKOFF, REMOTE_BACKOFF } from './auth-backoff'
import { RawClient, startTestGateway, TEST_TOKEN, type TestGateway } from './test-support'

let t: TestGateway
let logs: string[]
beforeEach(async () => {
  logs = []
  const logger = { info: (m: string) => logs.push(`info ${m}`), warn: (m: string) => logs.push(`warn ${m}`), error: (m: string) => logs.push(`error ${m}`) }
  t = await startTestGateway({}, { logger })
})
afterEach(async () => {
  await t.stop()
})

const WRONG = 'wrong-token-guess-0000000000'

/** one token-only connect (no device): the response frame and the close */
async function tryConnect(token: string, headers?: Record<string, string>) {
  const c = RawClient.open(t.gw.url, headers)
  await c.challenge()
  c.send({
    type: 'req',
    id: 'c1',
    method: 'connect',
    params: { minProtocol: 3, maxProtocol: 4, client: { id: 'cli', version: '1.0.0', platform: 'linux', mode: 'cli' }, role: 'operator', auth: { token } },
  })
  const res = await c.res('c1')
  if (res.ok) c.ws.close()
  return { res, closed: res.ok ? undefined : await c.closed }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe('wrong-token backoff over real WebSockets', () => {
  it('loopback: 10 wrong tokens in a minute, then refused with AUTH_RATE_LIMITED and when to retry — even the right token — for about a second', async () => {
    for (let i = 0; i < 10; i++) expect((await tryConnect(WRONG)).res.error?.details?.code).toBe('AUTH_TOKEN_MISMATCH')
    const locked = await tryConnect(WRONG)
    expect(locked.res.ok).toBe(false)
    expect(locked.res.error).toMatchObject({ code: 'INVALID_REQUEST', retryable: true, details: { code: 'AUTH_RATE_LIMITED', recommendedNextStep: 'wait_then_retry' } })
    const wait = locked.res.error!.retryAfterMs!
    expect(wait).toBeGreaterThan(0)
    expect(wait).toBeLessThanOrEqual(LOCAL_BACKOFF.baseLockMs)
    expect(locked.res.error!.details.retryAfterMs).toBe(wait)
    expect(locked.res.error!.message).toMatch(/too many failed connects from this address; retry in 1 s/)
    expect(locked.closed?.code).toBe(1008)
    // no token is judged while the lock holds: the right one is refused the same way
    expect((await tryConnect(TEST_TOKEN)).res.error?.details?.code).toBe('AUTH_RATE_LIMITED')

    await sleep(wait + 50)
    expect((await tryConnect(TEST_TOKEN)).res.ok).toBe(true) // a user who fixed the token is back in a second

    // one line for the burst's first try and one for the lock; never the token
    expect(logs.filter((l) => l.includes('AUTH_TOKEN_MISMATCH'))).toHaveLength(1)
    const burst = logs.filter((l) => l.startsWith('warn ') && l.includes('failed connects'))
    expect(burst).toEqual([expect.stringMatching(/^warn gateway: 10 failed connects \(wrong token\) from \S+ since the first; refusing its connects for 1 s \(AUTH_RATE_LIMITED\)$/)])
    expect(logs.join('\n')).not.toContain(WRONG)
    expect(logs.join('\n')).not.toContain(TEST_TOKEN)
  })

  it('failing again right after a lock locks again, twice as long', async () => {
    for (let i = 0; i < 10; i++) await tryConnect(WRONG)
    const first = (await tryConnect(WRONG)).res.error!
    await sleep(first.retryAfterMs! + 50)
    expect((await tryConnect(WRONG)).res.error?.details?.code).toBe('AUTH_TOKEN_MISMATCH') // judged, and counted
    const again = (await tryConnect(TEST_TOKEN)).res.error!
    expect(again.details.code).toBe('AUTH_RATE_LIMITED')
    expect(again.retryAfterMs).toBeGreaterThan(LOCAL_BACKOFF.baseLockMs)
    expect(again.retryAfterMs).toBeLessThanOrEqual(2 * LOCAL_BACKOFF.baseLockMs)
  })

  it('a success forgets the failures: 9 wrong, the right one, 9 wrong — never locked', async () => {
    for (let i = 0; i < 9; i++) await tryConnect(WRONG)
    expect((await tryConnect(TEST_TOKEN)).res.ok).toBe(true)
    for (let i = 0; i < 9; i++) expect((await tryConnect(WRONG)).res.error?.details?.code).toBe('AUTH_TOKEN_MISMATCH')
    expect((await tryConnect(TEST_TOKEN)).res.ok).toBe(true)
  })

  it("another local process's wrong tokens do not hold off a paired device (the user's CLI, the browser page): it is let past the lock, its token still judged", async () => {
    // the CLI's identity pairs on its first loopback connect
    await (await t.connect()).close()
    for (let i = 0; i < 10; i++) await tryConnect(WRONG)
    expect((await tryConnect(WRONG)).res.error?.details?.code).toBe('AUTH_RATE_LIMITED')
    // locked: the paired device with the right token gets in at once, no wait
    const cli = await t.connect()
    expect(cli.hello.type).toBe('hello-ok')
    await cli.close()
    // ...which does not lift the lock for the guesser: the right token without a paired key is still refused
    expect((await tryConnect(TEST_TOKEN)).res.error?.details?.code).toBe('AUTH_RATE_LIMITED')
    // a device never paired here is locked out like any token-only connect (its key proves nothing)
    const stranger = await t.connect({ identity: generateNodeDeviceIdentity() }).catch((e) => e)
    expect(stranger.details?.code).toBe('AUTH_RATE_LIMITED')
    // the paired device's token is judged: a wrong one is a mismatch (and counted), not a way around the token
    const wrong = await t.connect({ token: WRONG }).catch((e) => e)
    expect(wrong.details?.code).toBe('AUTH_TOKEN_MISMATCH')
  })

  it('a paired device’s own wrong tokens lock that device (same schedule), not the address nor other devices', async () => {
    const guesser = generateNodeDeviceIdentity()
    const other = generateNodeDeviceIdentity()
    // both pair on their first loopback connect
    await (await t.connect({ identity: guesser })).close()
    await (await t.connect({ identity: other })).close()
    for (let i = 0; i < 10; i++) {
      const e = await t.connect({ identity: guesser, token: WRONG }).catch((err) => err)
      expect(e.details?.code).toBe('AUTH_TOKEN_MISMATCH')
    }
    // locked: its next try is refused before its token is judged — the right one too
    for (const token of [WRONG, TEST_TOKEN]) {
      const e = await t.connect({ identity: guesser, token }).catch((err) => err)
      expect(e.details?.code).toBe('AUTH_RATE_LIMITED')
      expect(e.message).toMatch(/too many failed connects from this device/)
      expect(e.details?.retryAfterMs).toBeGreaterThan(0)
      expect(e.details?.retryAfterMs).toBeLessThanOrEqual(LOCAL_BACKOFF.baseLockMs)
    }
    expect(logs.some((l) => l.startsWith('warn') && l.includes('paired device'))).toBe(true)
    // its failures are its own: the address, another paired device and a token-only client are not held off
    expect((await tryConnect(TEST_TOKEN)).res.ok).toBe(true)
    await (await t.connect({ identity: other })).close()
    // the lock runs out (loopback: a second); then the right token gets in and forgets the failures
    await sleep(LOCAL_BACKOFF.baseLockMs + 100)
    await (await t.connect({ identity: guesser })).close()
    for (let i = 0; i < 9; i++) await t.connect({ identity: guesser, token: WRONG }).catch(() => undefined)
    await (await t.connect({ identity: guesser })).close()
  })

  it('a proxied (remote) flood gets the long lock and leaves direct loopback clients alone', async () => {
    const proxied = { 'X-Forwarded-For': '203.0.113.7' }
    for (let i = 0; i < 10; i++) await tryConnect(WRONG, proxied)
    const locked = (await tryConnect(WRONG, proxied)).res.error!
    expect(locked.details.code).toBe('AUTH_RATE_LIMITED')
    expect(locked.retryAfterMs).toBeGreaterThan(LOCAL_BACKOFF.maxLockMs)
    expect(locked.retryAfterMs).toBeLessThanOrEqual(REMOTE_BACKOFF.baseLockMs)
    expect((await tryConnect(TEST_TOKEN)).res.ok).toBe(true)
    expect(logs.some((l) => l.includes('(remote or proxied)'))).toBe(true)
  })
})

describe('AuthBackoff policy', () => {
  it('doubles each lock up to the cap; a quiet window forgets the address', () => {
    const b = new AuthBackoff()
    let now = 1_000_000
    for (let i = 0; i < 9; i++) expect(b.failure('a', LOCAL_BACKOFF, now++).lockedMs).toBeUndefined()
    expect(b.failure('a', LOCAL_BACKOFF, now).lockedMs).toBe(1000)
    const locks: number[] = []
    for (let i = 0; i < 4; i++) {
      now += b.retryAfter('a', now)
      expect(b.retryAfter('a', now)).toBe(0)
      locks.push(b.failure('a', LOCAL_BACKOFF, now).lockedMs!)
    }
    expect(locks).toEqual([2000, 4000, 4000, 4000]) // loopback never waits more than 4 s
    now += 4000 + LOCAL_BACKOFF.windowMs + 1
    const fresh = b.failure('a', LOCAL_BACKOFF, now)
    expect(fresh).toMatchObject({ first: true, count: 1 })
    expect(fresh.lockedMs).toBeUndefined()

    let t2 = 0
    for (let i = 0; i < 10; i++) b.failure('r', REMOTE_BACKOFF, t2)
    const remote: number[] = []
    for (let i = 0; i < 8; i++) {
      t2 += b.retryAfter('r', t2)
      remote.push(b.failure('r', REMOTE_BACKOFF, t2).lockedMs!)
    }
    expect(remote.at(-1)).toBe(REMOTE_BACKOFF.maxLockMs)
    expect(Math.max(...remote)).toBe(REMOTE_BACKOFF.maxLockMs)
  })
})
