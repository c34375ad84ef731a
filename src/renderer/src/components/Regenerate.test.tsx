// Regenerate (the last finished turn, also a stopped one) and Edit (a user message): the message is sent again
// — as it was, or edited — in a new session forked just before it (sessions.fork); the original keeps its reply.
import { act, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import type { FakeScript } from '../bridge/fake-bridge'
import { LONG, renderApp } from '../test-utils'
import { preloadEditMessage } from '../lazy-views'

// the message editor is a chunk of its own: loaded first, as the idle warm-up does
beforeAll(async () => {
  await preloadEditMessage()
})

type SendParams = { sessionKey: string; message: string }
const sends = (bridge: { calls: Array<{ name: string; params: unknown }> }) => bridge.calls.filter((c) => c.name === 'send').map((c) => c.params as SendParams)
const log = () => screen.getByRole('log', { name: 'Conversation' })
const statuses = () => within(log()).getAllByRole('status').map((s) => s.textContent ?? '')
const reply = (text: string): FakeScript => ({ steps: [{ kind: 'text', text }] })

beforeEach(() => localStorage.clear())

describe('Regenerate', () => {
  it('sends the last message again in a new session that opens; the original keeps its reply', async () => {
    const { bridge, stores } = await renderApp({ scripts: [reply('First answer.'), reply('Second answer.'), reply('Another take.'), reply('A third take.')] })
    const user = userEvent.setup()
    const box = () => screen.getByRole('textbox', { name: 'Message' })
    await user.type(box(), 'Hello{Enter}')
    await waitFor(() => expect(statuses().at(-1)).toMatch(/^Done/), LONG)
    await user.type(box(), 'Tell me more{Enter}')
    await waitFor(() => expect(statuses().at(-1)).toMatch(/^Done/), LONG)
    const original = stores.sessions.getState().selectedKey!
    // only the last turn offers it
    await waitFor(() => expect(within(log()).getAllByRole('button', { name: 'Regenerate' })).toHaveLength(1), LONG)
    await user.click(within(log()).getByRole('button', { name: 'Regenerate' }))
    await waitFor(() => expect(stores.sessions.getState().selectedKey).not.toBe(original), LONG)
    const forked = stores.sessions.getState().selectedKey!
    await waitFor(() => expect(within(log()).getByText('Another take.')).toBeInTheDocument(), LONG)
    expect(sends(bridge).at(-1)).toMatchObject({ sessionKey: forked, message: 'Tell me more' })
    // the fork holds the first turn and the new reply, not the replaced one
    expect(within(log()).getByText('First answer.')).toBeInTheDocument()
    expect(within(log()).queryByText('Second answer.')).toBeNull()
    expect(stores.sessions.getState().rows.find((r) => r.key === forked)).toMatchObject({ displayName: expect.stringMatching(/ \(fork\)$/), spawnedBy: original })
    // the original is unchanged
    expect(bridge.calls.filter((c) => c.name === 'sessionsFork')).toHaveLength(1)
    const again = await bridge.history({ sessionKey: original, limit: 50 })
    expect(again.ok && again.data.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant'])
    // the header says where the new session came from and leads back to the original, replaced reply and all
    const header = screen.getByRole('banner')
    await waitFor(() => expect(header).toHaveTextContent('Branched from')) // a lazy chunk
    await user.click(within(header).getByRole('button', { name: 'Main' }))
    await waitFor(() => expect(stores.sessions.getState().selectedKey).toBe(original))
    await waitFor(() => expect(within(log()).getByText('Second answer.')).toBeInTheDocument(), LONG)
    expect(screen.getByRole('banner')).not.toHaveTextContent('Branched from')
    // regenerating again: a second fork, told apart by its name
    await user.click(within(log()).getByRole('button', { name: 'Regenerate' }))
    await waitFor(() => expect(stores.sessions.getState().selectedKey).not.toBe(original), LONG)
    const second = stores.sessions.getState().selectedKey!
    expect(second).not.toBe(forked)
    const nameOf = (key: string) => stores.sessions.getState().rows.find((r) => r.key === key)?.displayName
    expect(nameOf(second)).toBe(nameOf(forked)!.replace(/ \(fork\)$/, ' (fork 2)'))
    await waitFor(() => expect(within(log()).getByText('A third take.')).toBeInTheDocument(), LONG)
  })

  it('is offered after Stop too, and not while a run is active', async () => {
    const slow: FakeScript = { steps: [{ kind: 'text', text: 'Working' }, { kind: 'untilAborted' }] }
    const { controller } = await renderApp({ scripts: [slow] })
    const user = userEvent.setup()
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'Go{Enter}')
    await waitFor(() => expect(statuses().at(-1)).toMatch(/^Running/), LONG)
    expect(within(log()).queryByRole('button', { name: 'Regenerate' })).toBeNull()
    await act(() => controller.stop())
    await waitFor(() => expect(statuses().at(-1)).toMatch(/^Stopped/), LONG)
    await waitFor(() => expect(within(log()).getByRole('button', { name: 'Regenerate' })).toBeInTheDocument(), LONG)
  })
})

describe('Edit', () => {
  it('edits a message in place and sends the new text in a fork from just before it; Escape cancels', async () => {
    const { bridge, stores } = await renderApp({ scripts: [reply('Answer one.'), reply('Answer two.'), reply('Edited answer.')] })
    const user = userEvent.setup()
    const box = () => screen.getByRole('textbox', { name: 'Message' })
    await user.type(box(), 'First question{Enter}')
    await waitFor(() => expect(statuses().at(-1)).toMatch(/^Done/), LONG)
    await user.type(box(), 'Second question{Enter}')
    await waitFor(() => expect(statuses().at(-1)).toMatch(/^Done/), LONG)
    const original = stores.sessions.getState().selectedKey!
    await waitFor(() => expect(within(log()).getAllByRole('button', { name: 'Edit' })).toHaveLength(2), LONG)
    // Escape leaves it as it was
    await user.click(within(log()).getAllByRole('button', { name: 'Edit' })[0])
    expect(screen.getByRole('textbox', { name: 'Edit message' })).toHaveFocus()
    await user.keyboard('{Escape}')
    expect(screen.queryByRole('textbox', { name: 'Edit message' })).toBeNull()
    expect(stores.sessions.getState().selectedKey).toBe(original)
    // focus goes back to the message's Edit, not to <body> (so does Cancel)
    expect(within(log()).getAllByRole('button', { name: 'Edit' })[0]).toHaveFocus()
    await user.click(within(log()).getAllByRole('button', { name: 'Edit' })[1])
    await user.click(screen.getByRole('button', { name: 'Cancel' }))
    expect(within(log()).getAllByRole('button', { name: 'Edit' })[1]).toHaveFocus()
    // edit the first one: the fork starts empty and gets the edited text
    await user.click(within(log()).getAllByRole('button', { name: 'Edit' })[0])
    const editor = screen.getByRole('textbox', { name: 'Edit message' })
    expect(editor).toHaveValue('First question')
    expect(screen.getByText(/this session stays as it is/)).toBeInTheDocument()
    await user.clear(editor)
    await user.type(editor, 'A better question{Enter}')
    await waitFor(() => expect(stores.sessions.getState().selectedKey).not.toBe(original), LONG)
    const forked = stores.sessions.getState().selectedKey!
    await waitFor(() => expect(within(log()).getByText('Edited answer.')).toBeInTheDocument(), LONG)
    expect(sends(bridge).at(-1)).toMatchObject({ sessionKey: forked, message: 'A better question' })
    expect(within(log()).queryByText('Answer one.')).toBeNull()
    const kept = await bridge.history({ sessionKey: original, limit: 50 })
    expect(kept.ok && kept.data.messages.length).toBe(4)
  })

  it('an edited message the runtime refuses waits in the new session\'s composer, not lost', async () => {
    const { bridge, stores } = await renderApp({ scripts: [reply('Answer one.')] })
    const user = userEvent.setup()
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'Original{Enter}')
    await waitFor(() => expect(statuses().at(-1)).toMatch(/^Done/), LONG)
    const original = stores.sessions.getState().selectedKey!
    await waitFor(() => expect(within(log()).getByRole('button', { name: 'Edit' })).toBeInTheDocument(), LONG)
    vi.spyOn(bridge, 'send').mockResolvedValueOnce({ ok: false, error: { code: 'UNAVAILABLE', message: 'not connected' } })
    await user.click(within(log()).getByRole('button', { name: 'Edit' }))
    await user.clear(screen.getByRole('textbox', { name: 'Edit message' }))
    await user.type(screen.getByRole('textbox', { name: 'Edit message' }), 'Reworded{Enter}')
    await waitFor(() => expect(stores.sessions.getState().selectedKey).not.toBe(original), LONG)
    await waitFor(() => expect(screen.getByRole('textbox', { name: 'Message' })).toHaveValue('Reworded'), LONG)
  })
})
