// Two windows (browser tabs) on one session: a message sent in one shows in the other as soon as its run
// starts — above the streamed reply, not only when the reply ends — and names a new session there too; the
// window that sent it shows it once. Two controllers on one FakeBridge (which, like the runtime, writes the
// run's user message only after the run's lifecycle start).
import { afterEach, describe, expect, it } from 'vitest'
import { FakeBridge } from '../bridge/fake-bridge'
import { Controller } from './controller'
import { createAppStores } from './stores'
import { retryableRun } from './run-reducer'
import { sessionTitle } from '../../../shared/session-title'
import type { Transcript } from './types'

const SK = 'agent:main:main'

async function until(cond: () => boolean, what: string, ms = 5000) {
  const end = Date.now() + ms
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 5))
  }
}

const controllers: Controller[] = []
afterEach(() => {
  for (const c of controllers.splice(0)) c.dispose()
  localStorage.clear()
})

async function tab(bridge: FakeBridge) {
  const stores = createAppStores()
  const controller = new Controller(bridge, stores, (cb) => setTimeout(cb, 0))
  controllers.push(controller)
  await controller.start()
  const t = (key = SK): Transcript => stores.runs.getState().transcripts[key]!
  return { stores, controller, t }
}

const kinds = (t: Transcript) => t.items.map((it) => (it.kind === 'user' ? `user:${it.text}` : it.kind))

describe('a run started in another window', () => {
  it('shows its user message above the reply while the reply streams, once in each window', async () => {
    // a long reply: the run is still streaming when the message must be there
    const bridge = new FakeBridge({ tickMs: 5, chunkChars: 2, scripts: [{ steps: [{ kind: 'text', text: 'x'.repeat(400) }] }] })
    const one = await tab(bridge)
    const two = await tab(bridge)
    expect(two.t().items).toEqual([])
    await one.controller.send('Hello from tab one')
    await until(() => two.t().items.some((it) => it.kind === 'user'), 'the user message in tab two')
    const run = two.t().items.find((it) => it.kind === 'run')
    expect(run && run.kind === 'run' && run.status).toBe('running') // not only at the end
    expect(kinds(two.t())[0]).toBe('user:Hello from tab one') // above the reply
    await until(() => !bridge.isRunning(SK), 'the run end')
    await until(() => !two.stores.runs.getState().loading[SK] && two.t().items.some((it) => it.kind === 'assistant'), 'tab two settled')
    await new Promise((r) => setTimeout(r, 600)) // the end-of-run refetches
    for (const t of [one.t(), two.t()]) expect(t.items.filter((it) => it.kind === 'user').map((it) => it.kind === 'user' && it.text)).toEqual(['Hello from tab one'])
  })

  it('a failed turn sent from the other window retries with the text history has', async () => {
    const bridge = new FakeBridge({ tickMs: 5, chunkChars: 2, scripts: [{ steps: [{ kind: 'error', message: 'HTTP 500' }] }] })
    const one = await tab(bridge)
    const two = await tab(bridge)
    await one.controller.send('Try this')
    await until(() => two.t().items.some((it) => it.kind === 'run' && it.status === 'error'), 'the error in tab two')
    await until(() => retryableRun(two.t()) !== undefined, 'a retryable turn')
    expect(await two.controller.retry(SK, retryableRun(two.t())!)).toBe(true)
    const sent = bridge.calls.filter((c) => c.name === 'send').map((c) => c.params as { message: string; idempotencyKey: string })
    expect(sent.map((p) => p.message)).toEqual(['Try this', 'Try this'])
    expect(sent[1].idempotencyKey).not.toBe(sent[0].idempotencyKey)
  })

  it('names a new session in the other window when the run starts', async () => {
    const bridge = new FakeBridge({ tickMs: 5, chunkChars: 2, scripts: [{ steps: [{ kind: 'text', text: 'y'.repeat(400) }] }] })
    const one = await tab(bridge)
    const key = (await one.controller.createSession())!
    const two = await tab(bridge)
    await two.controller.selectSession(key)
    const row = () => two.stores.sessions.getState().rows.find((r) => r.key === key)!
    expect(sessionTitle(row())).not.toBe('Plan the trip')
    await one.controller.send('Plan the trip')
    await until(() => sessionTitle(row()) === 'Plan the trip', 'the title in tab two')
    expect(bridge.isRunning(key)).toBe(true)
  })
})
