// Browser mode, a page whose browser is not paired: it waits for approval and comes in by itself.
import { act, render, screen, waitFor } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it, vi } from 'vitest'
import type { Bridge } from '../../../shared/bridge'
import { connectFailure, PairingRequiredError, TokenChangedError } from '../bridge'
import { FakeBridge } from '../bridge/fake-bridge'
import { ConnectedFake, renderApp } from '../test-utils'
import { PairingWaitScreen } from './PairingWait'

const DEVICE = '0123456789abcdef'.repeat(4)
const refusal = (requestId: string | null = 'req-1') =>
  new PairingRequiredError(
    requestId ? `pairing required: approve request ${requestId} on the gateway's machine (loopdesk devices approve), then connect again` : 'pairing required: connect this device once over loopback (127.0.0.1) to pair it',
    requestId ?? undefined,
    DEVICE,
  )

function setup(connect: () => Promise<Bridge>, opts: { retryMs?: number; waitMs?: number } = {}) {
  const onConnected = vi.fn()
  const onRefused = vi.fn()
  const connectFn = vi.fn(connect)
  render(<PairingWaitScreen initial={refusal()} connect={connectFn} onConnected={onConnected} onRefused={onRefused} retryMs={opts.retryMs ?? 20} waitMs={opts.waitMs} />)
  return { onConnected, onRefused, connect: connectFn }
}

describe('waiting for pairing approval (browser mode)', () => {
  it('says this browser waits, names the request and the exact CLI command, and that the desktop window can approve it', () => {
    setup(() => new Promise(() => {}), { retryMs: 60_000 })
    const main = screen.getByRole('main', { name: 'This browser is waiting for approval' })
    expect(main).toHaveTextContent('Approve request req-1 in the Loopdesk desktop window')
    expect(main).toHaveTextContent('loopdesk devices approve req-1')
    expect(main.querySelector('.pairing-command')).toHaveTextContent(/^loopdesk devices approve req-1$/)
    expect(main).toHaveTextContent('This browser is device 0123456789ab…')
    expect(screen.getByRole('status')).toHaveTextContent(/Not approved yet\. Checking again in \d+ s…/)
    expect(screen.getByRole('button', { name: 'Copy command' })).toBeInTheDocument()
  })

  it('asks again every few seconds and comes in once approved', async () => {
    const approved = new FakeBridge()
    let tries = 0
    const { connect, onConnected } = setup(async () => {
      tries++
      if (tries < 3) throw refusal(tries === 2 ? 'req-2' : 'req-1') // the gateway restarted: a new request
      return approved
    })
    await waitFor(() => expect(onConnected).toHaveBeenCalledWith(approved))
    expect(connect).toHaveBeenCalledTimes(3)
  })

  it('shows the newer request id when the gateway opened another one', async () => {
    setup(async () => {
      throw refusal('req-9')
    })
    expect(screen.getByRole('main')).toHaveTextContent('loopdesk devices approve req-1')
    await waitFor(() => expect(screen.getByRole('main')).toHaveTextContent('loopdesk devices approve req-9'))
    expect(screen.getByRole('main')).not.toHaveTextContent('req-1')
  })

  it('stops asking when the request would have lapsed, and asks again on request', async () => {
    const user = userEvent.setup({ delay: null })
    const { connect } = setup(async () => Promise.reject(refusal()), { retryMs: 10, waitMs: 120 })
    await waitFor(() => expect(screen.getByRole('status')).toHaveTextContent('Nobody approved the request in time, so it lapsed.'))
    const calls = connect.mock.calls.length
    expect(calls).toBeGreaterThan(1)
    await act(() => new Promise((r) => setTimeout(r, 100)))
    expect(connect).toHaveBeenCalledTimes(calls) // no more tries
    await user.click(screen.getByRole('button', { name: 'Ask again' }))
    await waitFor(() => expect(connect.mock.calls.length).toBeGreaterThan(calls + 1))
  })

  it('keeps asking through a gateway that cannot be reached for a while, saying why the last try failed', async () => {
    let n = 0
    const approved = new FakeBridge()
    const { onConnected } = setup(async () => {
      n++
      if (n === 1) throw new Error('could not connect to the gateway at ws://127.0.0.1:18789')
      if (n === 2) {
        await new Promise((r) => setTimeout(r, 50))
        throw refusal()
      }
      return approved
    }, { retryMs: 30 })
    await waitFor(() => expect(screen.getByRole('main')).toHaveTextContent('Last try: could not connect to the gateway at ws://127.0.0.1:18789'))
    await waitFor(() => expect(onConnected).toHaveBeenCalledWith(approved))
  })

  it('a refused token ends the wait (nothing to approve)', async () => {
    const { onRefused, connect } = setup(async () => Promise.reject(new TokenChangedError('unauthorized: gateway token mismatch', 'changed')))
    await waitFor(() => expect(onRefused).toHaveBeenCalledTimes(1))
    await act(() => new Promise((r) => setTimeout(r, 80)))
    expect(connect).toHaveBeenCalledTimes(1)
  })

  it('a gateway that keeps no requests: its own words instead of a command', () => {
    render(<PairingWaitScreen initial={refusal(null)} connect={() => new Promise(() => {})} onConnected={() => {}} onRefused={() => {}} retryMs={60_000} />)
    expect(screen.getByRole('main')).toHaveTextContent('connect this device once over loopback (127.0.0.1) to pair it')
    expect(screen.queryByText(/loopdesk devices approve/)).toBeNull()
  })
})

describe('connectFailure', () => {
  it('turns PAIRING_REQUIRED into a PairingRequiredError with the request, a refused token into TokenChangedError', () => {
    const pairing = Object.assign(new Error('pairing required: …'), { code: 'NOT_PAIRED', details: { code: 'PAIRING_REQUIRED', requestId: 'r-7', deviceId: DEVICE } })
    const mapped = connectFailure(pairing, 'invalid')
    expect(mapped).toBeInstanceOf(PairingRequiredError)
    expect(mapped).toMatchObject({ requestId: 'r-7', deviceId: DEVICE, message: 'pairing required: …' })
    const token = Object.assign(new Error('unauthorized'), { details: { code: 'AUTH_TOKEN_MISMATCH' } })
    expect(connectFailure(token, 'invalid')).toMatchObject({ reason: 'invalid' })
    expect(connectFailure(token, 'invalid')).toBeInstanceOf(TokenChangedError)
    const other = new Error('could not connect')
    expect(connectFailure(other, 'invalid')).toBe(other)
  })
})

describe('a page whose pairing went away while it ran (browser mode)', () => {
  it('the refused reconnect shows the wait screen with the new request instead of the Retry notice', async () => {
    const bridge = new ConnectedFake({ tickMs: 1 })
    await renderApp({}, bridge)
    act(() =>
      bridge.set({
        state: 'failed',
        error: { message: "pairing required: approve request req-77 on the gateway's machine (loopdesk devices approve), then connect again", details: { code: 'PAIRING_REQUIRED', requestId: 'req-77', deviceId: DEVICE } },
      }),
    )
    const main = screen.getByRole('main', { name: 'This browser is waiting for approval' })
    expect(main).toHaveTextContent('loopdesk devices approve req-77')
    expect(screen.queryByRole('textbox', { name: 'Message' })).toBeNull()
    expect(screen.queryByText(/Not connected to the Loopdesk runtime/)).toBeNull()
    // back (approved and reconnected some other way): the app again
    act(() => bridge.set({ state: 'open' }))
    expect(screen.queryByRole('main', { name: 'This browser is waiting for approval' })).toBeNull()
    expect(screen.getByRole('textbox', { name: 'Message' })).toBeInTheDocument()
  })
})
