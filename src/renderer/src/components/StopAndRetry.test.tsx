// "Stop and retry" beside the silence notice: the silent run is stopped and, once it has ended, the same message
// goes again in the same session by Retry's path (new idempotency key, attachments kept) — not only Stop.
import { act, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { beforeEach, describe, expect, it } from 'vitest'
import type { FakeScript } from '../bridge/fake-bridge'
import { stopAndRetry } from '../state/stop-and-retry'
import { LONG, renderApp } from '../test-utils'

type SendParams = { sessionKey: string; message: string; idempotencyKey: string }
const sends = (bridge: { calls: Array<{ name: string; params: unknown }> }) => bridge.calls.filter((c) => c.name === 'send').map((c) => c.params as SendParams)
const log = () => screen.getByRole('log', { name: 'Conversation' })
const statuses = () => within(log()).getAllByRole('status').map((s) => s.textContent ?? '')
const silent: FakeScript = {
  steps: [{ kind: 'silence', data: { phase: 'silent', since: 'request', silentMs: 20_000, provider: 'mock' } }, { kind: 'untilAborted' }],
}
const answers: FakeScript = { steps: [{ kind: 'text', text: 'Here it is.' }] }

beforeEach(() => localStorage.clear())

describe('Stop and retry beside the silence notice', () => {
  it('stops the silent run, then sends the same message again in the same session; the message box keeps the keyboard', async () => {
    const { bridge, controller } = await renderApp({ scripts: [silent, answers] })
    const user = userEvent.setup()
    const box = screen.getByRole('textbox', { name: 'Message' })
    await user.type(box, 'Summarise the notes{Enter}')
    await waitFor(() => expect(statuses().at(-1)).toMatch(/^No response from the model \(mock\) for 2\d s/), LONG)
    const session = controller.stores.sessions.getState().selectedKey
    await user.click(within(log()).getByRole('button', { name: 'Stop and retry' }))
    expect(box).toHaveFocus()
    await waitFor(() => expect(sends(bridge)).toHaveLength(2), LONG)
    const [first, again] = sends(bridge)
    expect(again).toMatchObject({ sessionKey: session, message: 'Summarise the notes' })
    expect(again.idempotencyKey).not.toBe(first.idempotencyKey)
    expect(bridge.calls.filter((c) => c.name === 'abort')).toHaveLength(1)
    await waitFor(() => expect(statuses().at(-1)).toMatch(/^Done/), LONG)
    expect(statuses().some((s) => /^Stopped/.test(s))).toBe(true)
    expect(within(log()).getByText('Here it is.')).toBeInTheDocument()
    expect(within(log()).queryByRole('button', { name: 'Stop and retry' })).toBeNull()
    expect(controller.stores.sessions.getState().selectedKey).toBe(session)
  })

  it("stops only the run it was pressed for: another session opened meanwhile keeps its run (stop() acts on the open one)", async () => {
    const { bridge, controller } = await renderApp({ scripts: [silent, silent] })
    const user = userEvent.setup()
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'first{Enter}')
    await waitFor(() => expect(statuses().at(-1)).toMatch(/^No response/), LONG)
    const first = controller.stores.sessions.getState().selectedKey!
    const firstRun = (controller.stores.runs.getState().transcripts[first].items.findLast((i) => i.kind === 'run') as { runId: string }).runId
    // the click's chunk is on its way while the user opens another session and sends there
    const other = (await controller.createSession('other'))!
    await controller.selectSession(other)
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'second{Enter}')
    await waitFor(() => expect(statuses().at(-1)).toMatch(/^No response/), LONG)
    await expect(stopAndRetry(controller, first, firstRun, 50)).resolves.toBe(false)
    expect(bridge.calls.filter((c) => c.name === 'abort')).toHaveLength(0)
    expect(sends(bridge)).toHaveLength(2)
    expect(statuses().at(-1)).toMatch(/^No response/)
  })

  it('Retry stays for failed turns only: a stopped turn offers Regenerate, not Retry', async () => {
    const { controller } = await renderApp({ scripts: [silent] })
    const user = userEvent.setup()
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'hello{Enter}')
    await waitFor(() => expect(statuses().at(-1)).toMatch(/^No response/), LONG)
    await user.click(within(log()).getByRole('button', { name: 'Stop' }))
    await waitFor(() => expect(statuses().at(-1)).toMatch(/^Stopped/), LONG)
    expect(within(log()).queryByRole('button', { name: 'Retry' })).toBeNull()
    const key = controller.stores.sessions.getState().selectedKey!
    const run = controller.stores.runs.getState().transcripts[key].items.findLast((i) => i.kind === 'run')!
    // Retry's own check, without the stopped-run allowance Stop and retry passes
    await expect(controller.retry(key, (run as { runId: string }).runId)).resolves.toBe(false)
  })

  it('a stop that does not take in time sends nothing and says so; the footer keeps Stop and retry, then offers Retry once stopped', async () => {
    const { bridge, controller } = await renderApp({ scripts: [silent, answers] })
    const user = userEvent.setup()
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'Summarise the notes{Enter}')
    await waitFor(() => expect(statuses().at(-1)).toMatch(/^No response/), LONG)
    const key = controller.stores.sessions.getState().selectedKey!
    const runId = sends(bridge)[0].idempotencyKey
    // the runtime does not answer the stop (a stuck connection, a tool ignoring it)
    const abort = bridge.abort.bind(bridge)
    let held: (() => void) | undefined
    bridge.abort = (p) => new Promise((resolve) => (held = () => void abort(p).then(resolve)))
    await expect(stopAndRetry(controller, key, runId, 300)).resolves.toBe(false)
    expect(sends(bridge)).toHaveLength(1)
    expect(screen.getByText('The reply did not stop within 1 s, so the message was not sent again. Retry once it has stopped.')).toBeInTheDocument()
    expect(within(log()).getByRole('button', { name: 'Stop and retry' })).toBeEnabled()
    // the stop lands late: the stopped turn can be sent again
    held!()
    await waitFor(() => expect(statuses().at(-1)).toMatch(/^Stopped/), LONG)
    // a history reload (a reconnect) rebuilds the run from chat.history, which cannot tell this stop from a plain
    // one: the Retry stays (beside Regenerate, which a stopped turn always has once history names its message)
    await act(() => controller.loadTranscript(key))
    expect(within(log()).getByRole('button', { name: 'Retry' })).toBeEnabled()
    await user.click(within(log()).getByRole('button', { name: 'Retry' }))
    await waitFor(() => expect(sends(bridge)).toHaveLength(2), LONG)
    expect(sends(bridge)[1]).toMatchObject({ sessionKey: key, message: 'Summarise the notes' })
    await waitFor(() => expect(within(log()).getByText('Here it is.')).toBeInTheDocument(), LONG)
  })
})
