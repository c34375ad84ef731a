// Answering an approval that no longer waits, over the real runtime and a real socket: the code is OpenClaw's
// APPROVAL_NOT_FOUND, and `details.reason` says it too, as OpenClaw's own approval handlers put it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { useRuntimeGateway } from '../../../test/fixtures/runtime-gateway'
import { connectGateway, type GatewayConnectionClient } from '../../cli/gateway-client'
import { generateNodeDeviceIdentity } from '../../cli/identity'

const TOKEN = 'approval-not-found-token-0123'
const env = useRuntimeGateway(TOKEN, { fallback: { text: 'ok' } })
let c: GatewayConnectionClient

beforeAll(async () => {
  c = await connectGateway({ url: env.stack.gw.url, token: TOKEN, identity: generateNodeDeviceIdentity(), scopes: ['operator.approvals'] })
})
afterAll(async () => {
  await c?.close()
})

describe('exec.approval.resolve of an unknown id', () => {
  it('is APPROVAL_NOT_FOUND with details.reason APPROVAL_NOT_FOUND', async () => {
    await expect(c.request('exec.approval.resolve', { id: 'no-such-approval', decision: 'deny' })).rejects.toMatchObject({
      code: 'APPROVAL_NOT_FOUND',
      details: { reason: 'APPROVAL_NOT_FOUND' },
    })
  })
})
