// A reply the runtime's shutdown cut off: its chat `aborted` says `stopReason: "shutdown"`, and what a reload
// reads keeps the cause in OpenClaw's own shape — the reply row's `openclawAbort.origin` is "shutdown" (a Stop's
// is "rpc") next to the usual `stopReason: "aborted"` — so the window can still say the gateway shut down.
import { afterAll, beforeAll, expect, it } from 'vitest'
import type { ChatEvent } from '../../../shared/events'
import { startModelServer, type ModelServer } from '../../../../test/fixtures/model-server'
import { tempDir } from '../../../../test/fixtures/temp-dir'
import { startTestRuntime } from '../../../../test/fixtures/test-runtime'
import { until } from '../../../../test/fixtures/until'

let server: ModelServer
beforeAll(async () => {
  server = await startModelServer()
})
afterAll(async () => {
  await server?.close()
})

it('the stopped reply keeps openclawAbort.origin "shutdown" across a restart; the chat event said shutdown', async () => {
  const stateDir = tempDir('ld-shutdown-stop-')
  const key = 'agent:main:shutdown-stop'
  let t = await startTestRuntime(server, { stateDir })
  try {
    server.script([{ text: 'Half of a reply that never ends', chunks: 6, stallAfterChunks: 2 }])
    await t.call('agent', { sessionKey: key, message: 'go', idempotencyKey: 'sd-1' })
    await until(() => t.events.some((e) => e.event === 'agent' && (e.payload as { stream?: string }).stream === 'assistant'), 5000)
    await t.runtime.shutdown({ drainMs: 0 })
    const chat = t.events.filter((e) => e.event === 'chat' && (e.payload as ChatEvent).runId === 'sd-1').map((e) => e.payload as ChatEvent)
    expect(chat.at(-1)).toMatchObject({ state: 'aborted', stopReason: 'shutdown' })
    await t.close()
    t = await startTestRuntime(server, { stateDir })
    const rows = (await t.call('chat.history', { sessionKey: key })).messages
    expect(rows.at(-1)).toMatchObject({ role: 'assistant', stopReason: 'aborted', aborted: true, openclawAbort: { aborted: true, origin: 'shutdown', runId: 'sd-1' } })
  } finally {
    await t.close()
  }
})
