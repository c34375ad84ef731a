// Answering an approval that no longer waits, over the real runtime and a real socket: as OpenClaw's own approval
// handlers answer it — INVALID_REQUEST with `details.reason: APPROVAL_NOT_FOUND` — and a message the window and the
// CLI show as it is (they branch on no code).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { useRuntimeGateway } from '../../../test/fixtures/runtime-gateway'
import { connectGateway, type GatewayConnectionClient } from '../../cli/gateway-client'
import { generateNodeDeviceIdentity } from '../../cli/identity'
import { runCli } from '../../cli/main'
import { captureIO } from '../../../test/fixtures/cli-io'
import { tempDir } from '../../../test/fixtures/temp-dir'

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
  it('is INVALID_REQUEST with details.reason APPROVAL_NOT_FOUND', async () => {
    const err = await c.request('exec.approval.resolve', { id: 'no-such-approval', decision: 'deny' }).catch((e: unknown) => e)
    expect(err).toMatchObject({
      code: 'INVALID_REQUEST',
      message: 'no pending exec approval with id no-such-approval (it may have expired or been answered)',
      details: { reason: 'APPROVAL_NOT_FOUND', code: 'APPROVAL_NOT_FOUND' },
    })
  })

  it('the CLI says what happened in one line', async () => {
    const io = captureIO()
    const params = JSON.stringify({ id: 'gone-approval', decision: 'allow-once' })
    const argv = ['gateway', 'call', 'exec.approval.resolve', '--params', params, '--url', env.stack.gw.url, '--token', TOKEN, '--state-dir', tempDir('ld-apnf-')]
    expect(await runCli(argv, io.io)).toBe(1)
    expect(io.err()).toBe('loopdesk: INVALID_REQUEST: no pending exec approval with id gone-approval (it may have expired or been answered)\n')
  })
})
