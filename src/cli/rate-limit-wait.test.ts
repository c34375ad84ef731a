// writeWithRateLimitWait: a config write the gateway refuses for its per-device limit waits once for the
// slot it names (config set and gateway rotate-token both write through it); any other failure, or a second
// refusal, or a wait longer than a minute, is the caller's.
import { describe, expect, it } from 'vitest'
import { captureIO } from '../../test/fixtures/cli-io'
import { writeWithRateLimitWait } from './connect'
import { GatewayClientError } from './gateway-client'

const limited = (ms: number) => new GatewayClientError('request', 'rate limit exceeded for config.patch', 'UNAVAILABLE', { code: 'RATE_LIMITED' }, undefined, ms)

describe('writeWithRateLimitWait', () => {
  it('waits once for the named slot, says so, then runs the retry', async () => {
    const c = captureIO()
    const calls: string[] = []
    const t0 = Date.now()
    const out = await writeWithRateLimitWait(
      c.io,
      async () => {
        calls.push('first')
        throw limited(120)
      },
      async () => {
        calls.push('again')
        return 'written'
      },
    )
    expect(out).toBe('written')
    expect(calls).toEqual(['first', 'again'])
    expect(Date.now() - t0).toBeGreaterThanOrEqual(110)
    expect(c.err()).toBe('loopdesk: the gateway takes a few config writes a minute; waiting 1 s…\n')
  })

  it('passes on other failures, a second refusal and waits over a minute', async () => {
    const other = new GatewayClientError('request', 'invalid config', 'INVALID_REQUEST')
    await expect(writeWithRateLimitWait(captureIO().io, async () => Promise.reject(other))).rejects.toBe(other)
    let n = 0
    await expect(writeWithRateLimitWait(captureIO().io, async () => Promise.reject(limited(++n && 10)))).rejects.toMatchObject({ detailCode: 'RATE_LIMITED' })
    const long = limited(120_000)
    await expect(writeWithRateLimitWait(captureIO().io, async () => Promise.reject(long))).rejects.toBe(long)
  })
})
