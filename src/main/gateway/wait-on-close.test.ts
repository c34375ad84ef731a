// agent.wait holds a timer and a waiter in the runtime for up to a day: a client that leaves (or never reads
// its answers) must not keep them. Measured before the fix: 100,000 day-long waits per connection, each
// connection closed, grew the gateway ~3 KB a wait (955 MB after three rounds) — nothing was released.
import { beforeAll, describe, expect, it } from 'vitest'
import { useRuntimeGateway } from '../../../test/fixtures/runtime-gateway'
import { until } from '../../../test/fixtures/until'
import { connectGateway, GatewayClientError } from '../../cli/gateway-client'
import { generateNodeDeviceIdentity } from '../../cli/identity'
import { MAX_PENDING_WAITS } from './requests'
import type { RunRegistry } from '../runtime/events/run-registry'

const TOKEN = 'wait-on-close-token-0123456789'
const env = useRuntimeGateway(TOKEN, { fallback: { text: 'ok' } })
const identity = generateNodeDeviceIdentity()
let runs: RunRegistry

beforeAll(() => {
  runs = env.stack.rt.runtime.core.runs
})

const connect = () => connectGateway({ url: env.stack.gw.url, token: TOKEN, identity })
const DAY = 86_400_000

describe('agent.wait and the connection it came on', () => {
  it('a closed connection’s pending waits are released at once, not after their timeout', async () => {
    const base = runs.waiterCount()
    const c = await connect()
    const waits = Array.from({ length: 40 }, (_, i) => c.request('agent.wait', { runId: `gone-${i}`, timeoutMs: DAY }).catch(() => 'closed'))
    await until(() => runs.waiterCount() === base + 40, 10_000)
    // another connection's wait on the same run is not touched
    const other = await connect()
    const kept = other.request('agent.wait', { runId: 'gone-0', timeoutMs: DAY })
    await until(() => runs.waiterCount() === base + 41, 10_000)
    await c.close()
    expect(await Promise.all(waits)).toEqual(Array(40).fill('closed'))
    await until(() => runs.waiterCount() === base + 1, 10_000)
    await other.close()
    await kept.catch(() => undefined)
    await until(() => runs.waiterCount() === base, 10_000)
  })

  it(`one connection may have ${MAX_PENDING_WAITS} waits pending; the next is refused with a structured error`, async () => {
    const c = await connect()
    const waits = Array.from({ length: MAX_PENDING_WAITS }, (_, i) => c.request('agent.wait', { runId: `many-${i}`, timeoutMs: DAY }).catch(() => 'closed'))
    await until(() => runs.waiterCount() >= MAX_PENDING_WAITS, 20_000)
    const refused = await c.request('agent.wait', { runId: 'one-too-many', timeoutMs: DAY }).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(refused).toBeInstanceOf(GatewayClientError)
    expect(refused).toMatchObject({ code: 'INVALID_REQUEST', details: { code: 'TOO_MANY_WAITS' } })
    expect((refused as Error).message).toContain(`too many agent.wait requests pending on this connection (max ${MAX_PENDING_WAITS})`)
    // the connection still works
    await expect(c.request('health', {})).resolves.toMatchObject({ ok: true })
    // another connection has its own budget
    const other = await connect()
    await expect(other.request('agent.wait', { runId: 'other-conn', timeoutMs: 0 })).resolves.toMatchObject({ status: 'timeout' })
    await other.close()
    await c.close()
    await Promise.all(waits)
    await until(() => runs.waiterCount() === 0, 10_000)
  })
})
