// A message the runtime does not take: its text goes back to the composer (never over something typed since),
// the reason is said in plain words, and Retry is offered only when sending it again could work.
import { act, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import type { Result, Results } from '../../../shared/methods'
import { LONG, renderApp } from '../test-utils'

beforeEach(() => localStorage.clear())

const log = () => screen.getByRole('log', { name: 'Conversation' })
const box = () => screen.getByRole('textbox', { name: 'Message' })
const tooLong: Result<Results['chat.send']> = {
  ok: false,
  error: { code: 'INVALID_REQUEST', message: 'invalid chat.send params: /message: must not have more than 1000000 characters' },
}
const lost: Result<Results['chat.send']> = { ok: false, error: { code: 'UNAVAILABLE', message: 'not connected to the gateway' } }

describe('a message the runtime did not take', () => {
  it('refused as invalid: plain words, the text back in the composer, no Retry', async () => {
    const { bridge } = await renderApp()
    vi.spyOn(bridge, 'send').mockResolvedValueOnce(tooLong)
    const user = userEvent.setup()
    await user.type(box(), 'Please read all of this{Enter}')
    const alert = await within(log()).findByRole('alert')
    expect(alert).toHaveTextContent('Not sent: The message is too long: the limit is 1,000,000 characters.')
    expect(alert).not.toHaveTextContent('invalid chat.send params')
    expect(alert).toHaveTextContent('The message is back in the composer.')
    expect(within(log()).queryByRole('button', { name: 'Retry' })).toBeNull()
    expect(box()).toHaveValue('Please read all of this')
  })

  it('lost connection: Retry sends it again once — the failed row goes, the restored draft is taken', async () => {
    const { bridge } = await renderApp()
    const spy = vi.spyOn(bridge, 'send').mockResolvedValueOnce(lost)
    const user = userEvent.setup()
    await user.type(box(), 'Hello there{Enter}')
    const alert = await within(log()).findByRole('alert')
    expect(alert).toHaveTextContent('Not sent: The connection to the gateway was lost.')
    expect(box()).toHaveValue('Hello there')
    await user.click(within(log()).getByRole('button', { name: 'Retry' }))
    await waitFor(() => expect(screen.getAllByRole('status').at(-1)).toHaveTextContent(/^Done/), LONG)
    expect(spy).toHaveBeenCalledTimes(2)
    expect(within(log()).queryByRole('alert')).toBeNull()
    expect(within(log()).getAllByText('Hello there', { selector: '.user-text' })).toHaveLength(1)
    expect(box()).toHaveValue('')
  })

  it('sending the restored text again with Enter replaces the "Not sent" row', async () => {
    const { bridge } = await renderApp()
    vi.spyOn(bridge, 'send').mockResolvedValueOnce(lost)
    const user = userEvent.setup()
    await user.type(box(), 'Hello again{Enter}')
    await within(log()).findByRole('alert')
    expect(box()).toHaveValue('Hello again')
    await user.type(box(), '{Enter}')
    await waitFor(() => expect(screen.getAllByRole('status').at(-1)).toHaveTextContent(/^Done/), LONG)
    expect(within(log()).queryByRole('alert')).toBeNull()
    expect(within(log()).getAllByText('Hello again', { selector: '.user-text' })).toHaveLength(1)
  })

  it('something typed while it was being sent is not overwritten; ↑ recalls the failed text, Retry leaves the draft', async () => {
    const { bridge } = await renderApp()
    let answer!: (r: Result<Results['chat.send']>) => void
    const spy = vi.spyOn(bridge, 'send').mockImplementationOnce(() => new Promise((r) => (answer = r)))
    const user = userEvent.setup()
    await user.type(box(), 'First thought{Enter}')
    await waitFor(() => expect(spy).toHaveBeenCalledTimes(1))
    await user.type(box(), 'Second')
    await act(async () => answer(lost))
    const alert = await within(log()).findByRole('alert')
    expect(alert).toHaveTextContent('Press ↑ in the composer to get the message back.')
    expect(box()).toHaveValue('Second')
    await user.click(within(log()).getByRole('button', { name: 'Retry' }))
    await waitFor(() => expect(screen.getAllByRole('status').at(-1)).toHaveTextContent(/^Done/), LONG)
    expect(spy.mock.calls.map((c) => c[0].message)).toEqual(['First thought', 'First thought'])
    expect(box()).toHaveValue('Second')
    box().focus()
    ;(box() as HTMLTextAreaElement).setSelectionRange(0, 0)
    await user.keyboard('{ArrowUp}')
    expect(box()).toHaveValue('First thought')
  })

  it('a refused steer or queue does not overwrite what was typed since', async () => {
    const { bridge } = await renderApp({ scripts: [{ steps: [{ kind: 'text', text: 'Working' }, { kind: 'untilAborted' }] }] })
    const user = userEvent.setup()
    await user.type(box(), 'Start{Enter}')
    await waitFor(() => expect(screen.getAllByRole('status').at(-1)).toHaveTextContent(/^Running/), LONG)
    let answer!: (r: Result<Results['chat.send']>) => void
    vi.spyOn(bridge, 'send').mockImplementationOnce(() => new Promise((r) => (answer = r)))
    await user.type(box(), 'Queued one{Enter}')
    await user.type(box(), 'Typed since')
    await act(async () => answer(lost))
    await screen.findByText('Could not queue the message: The connection to the gateway was lost.')
    expect(box()).toHaveValue('Typed since')
  })
})
