// Retry on a failed turn (a model error: HTTP 500, a stream cut off, …): the session's last turn only, not while
// a run is active; it sends the same message again (text and attachments) under a new idempotency key.
import { act, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import type { FakeScript } from '../bridge/fake-bridge'
import { LONG, renderApp } from '../test-utils'

type SendParams = { message: string; idempotencyKey: string; attachments?: Array<{ fileName: string; content: string }> }
const sends = (bridge: { calls: Array<{ name: string; params: unknown }> }) => bridge.calls.filter((c) => c.name === 'send').map((c) => c.params as SendParams)
const log = () => screen.getByRole('log', { name: 'Conversation' })
const statuses = () => within(log()).getAllByRole('status').map((s) => s.textContent ?? '')
const fails: FakeScript = { steps: [{ kind: 'text', text: 'Partial ' }, { kind: 'error', message: 'HTTP 500: upstream connect error' }] }
const answers: FakeScript = { steps: [{ kind: 'text', text: 'All good now.' }] }

beforeEach(() => {
  localStorage.clear()
  Object.assign(URL, { createObjectURL: vi.fn(() => 'blob:loopdesk/1'), revokeObjectURL: vi.fn() })
})

describe('Retry on a failed turn', () => {
  it('sends the same message again (new idempotency key) from the keyboard; then the failed turn has no Retry', async () => {
    const { bridge } = await renderApp({ scripts: [fails, answers] })
    const user = userEvent.setup()
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'Summarise the notes{Enter}')
    await waitFor(() => expect(statuses().at(-1)).toMatch(/^Error: HTTP 500: upstream connect error/), LONG)
    // after the end-of-run refetch too (the turn rebuilt from history)
    await act(() => new Promise((r) => setTimeout(r, 600)))
    expect(statuses().at(-1)).toMatch(/^Error: HTTP 500: upstream connect error/)
    const retry = within(log()).getByRole('button', { name: 'Retry' })
    retry.focus()
    await user.keyboard('{Enter}')
    await waitFor(() => expect(sends(bridge)).toHaveLength(2))
    const [first, again] = sends(bridge)
    expect(again.message).toBe('Summarise the notes')
    expect(again.idempotencyKey).not.toBe(first.idempotencyKey)
    await waitFor(() => expect(statuses().at(-1)).toMatch(/^Done/), LONG)
    expect(within(log()).queryByRole('button', { name: 'Retry' })).toBeNull()
    // the composer was left alone: no draft put back; it has the keyboard Retry had, not <body>
    expect(screen.getByRole('textbox', { name: 'Message' })).toHaveValue('')
    expect(screen.getByRole('textbox', { name: 'Message' })).toHaveFocus()
  })

  it('only on the last turn, and not while a run is active', async () => {
    const slow: FakeScript = { steps: [{ kind: 'text', text: 'Working' }, { kind: 'untilAborted' }] }
    const { bridge, controller } = await renderApp({ scripts: [fails, slow] })
    const user = userEvent.setup()
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'First{Enter}')
    await waitFor(() => expect(within(log()).getByRole('button', { name: 'Retry' })).toBeInTheDocument(), LONG)
    // another message starts a run: the failed turn is no longer the last, and a run is active
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'Second{Enter}')
    await waitFor(() => expect(statuses().at(-1)).toMatch(/^Running/), LONG)
    expect(within(log()).queryByRole('button', { name: 'Retry' })).toBeNull()
    await act(() => controller.stop())
    await waitFor(() => expect(statuses().at(-1)).toMatch(/^Stopped/), LONG)
    expect(within(log()).queryByRole('button', { name: 'Retry' })).toBeNull()
    expect(sends(bridge).map((s) => s.message)).toEqual(['First', 'Second'])
  })

  it('sends the attachments again, and a retry that cannot be sent keeps the Retry', async () => {
    const { bridge } = await renderApp({ scripts: [fails, answers] })
    const user = userEvent.setup()
    await user.upload(screen.getByLabelText('Choose files to attach') as HTMLInputElement, [new File(['hello notes'], 'notes.txt', { type: 'text/plain' })])
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'Read this{Enter}')
    await waitFor(() => expect(within(log()).getByRole('button', { name: 'Retry' })).toBeInTheDocument(), LONG)
    // the runtime refuses the first retry (not connected): a toast, the failed turn keeps its Retry
    const real = bridge.send.bind(bridge)
    const refuse = vi.spyOn(bridge, 'send').mockResolvedValueOnce({ ok: false, error: { code: 'UNAVAILABLE', message: 'not connected' } })
    await user.click(within(log()).getByRole('button', { name: 'Retry' }))
    await screen.findByText('Could not retry: The connection to the gateway was lost.')
    expect(within(log()).queryByText(/Not sent/)).toBeNull()
    refuse.mockImplementation(real)
    await user.click(within(log()).getByRole('button', { name: 'Retry' }))
    await waitFor(() => expect(statuses().at(-1)).toMatch(/^Done/), LONG)
    const calls = refuse.mock.calls.map((c) => c[0] as SendParams)
    expect(calls).toHaveLength(2)
    for (const c of calls) expect(c).toMatchObject({ message: 'Read this', attachments: [{ fileName: 'notes.txt', content: btoa('hello notes') }] })
    expect(calls[0].idempotencyKey).not.toBe(sends(bridge)[0].idempotencyKey)
  })
})
