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

const REJECTED_MESSAGE = "pairing rejected: this device's pairing request was rejected on the gateway's machine; it may ask again in 10 min"
const rejection = (ms: number) => new PairingRequiredError(REJECTED_MESSAGE, undefined, DEVICE, ms)

function setup(connect: () => Promise<Bridge>, opts: { retryMs?: number; waitMs?: number; initial?: PairingRequiredError } = {}) {
  const onConnected = vi.fn()
  const onRefused = vi.fn()
  const connectFn = vi.fn(connect)
  render(<PairingWaitScreen initial={opts.initial ?? refusal()} connect={connectFn} onConnected={onConnected} onRefused={onRefused} retryMs={opts.retryMs ?? 20} waitMs={opts.waitMs} />)
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

  it('rejected while it waits: says so and stops asking (no request to name, nothing to click) until the gateway lets it ask again', async () => {
    let rejected = true
    const { connect } = setup(async () => {
      throw rejected ? rejection(10 * 60_000) : refusal('req-2')
    }, { retryMs: 10 })
    const main = await screen.findByRole('main', { name: 'Pairing was rejected' })
    expect(main).toHaveTextContent('its request to pair this browser was rejected')
    expect(main).toHaveTextContent('This browser is device 0123456789ab…')
    expect(main).not.toHaveTextContent('loopdesk devices approve')
    expect(screen.getByRole('status')).toHaveTextContent('You can ask again in 10 min.')
    expect(screen.queryByRole('button')).toBeNull()
    const calls = connect.mock.calls.length
    await act(() => new Promise((r) => setTimeout(r, 150)))
    expect(connect).toHaveBeenCalledTimes(calls) // no more tries
    rejected = false
    await act(() => new Promise((r) => setTimeout(r, 50)))
    expect(connect).toHaveBeenCalledTimes(calls)
  })

  it('refused as rejected from the start: counts down, then "Ask again" opens a new request and waits for it', async () => {
    const user = userEvent.setup({ delay: null })
    const { connect } = setup(async () => Promise.reject(refusal('req-5')), { initial: rejection(1200), retryMs: 60_000 })
    expect(screen.getByRole('main', { name: 'Pairing was rejected' })).toBeInTheDocument()
    expect(screen.getByRole('status')).toHaveTextContent('You can ask again in 2 s.')
    expect(screen.queryByRole('button', { name: 'Ask again' })).toBeNull()
    await waitFor(() => expect(screen.getByRole('status')).toHaveTextContent('You can ask again in 1 s.'), { timeout: 1500 })
    const ask = await screen.findByRole('button', { name: 'Ask again' }, { timeout: 2000 })
    expect(screen.getByRole('status')).toHaveTextContent('You can ask again now')
    expect(connect).not.toHaveBeenCalled()
    await user.click(ask)
    const main = await screen.findByRole('main', { name: 'This browser is waiting for approval' })
    expect(main).toHaveTextContent('loopdesk devices approve req-5')
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

  it('a rejected device: PairingRequiredError without a request, with how long it is refused (bounded, defaulted)', () => {
    const rejected = (details: Record<string, unknown>) =>
      connectFailure(Object.assign(new Error(REJECTED_MESSAGE), { code: 'NOT_PAIRED', details: { code: 'PAIRING_REQUIRED', deviceId: DEVICE, ...details } }), 'invalid')
    expect(rejected({ reason: 'rejected', retryAfterMs: 42_000 })).toMatchObject({ requestId: undefined, deviceId: DEVICE, rejectedForMs: 42_000, message: REJECTED_MESSAGE })
    expect(rejected({ reason: 'rejected' })).toMatchObject({ rejectedForMs: 10 * 60_000 })
    expect(rejected({ reason: 'rejected', retryAfterMs: 1e12 })).toMatchObject({ rejectedForMs: 10 * 60_000 })
    expect(rejected({ reason: 'rejected', retryAfterMs: -5 })).toMatchObject({ rejectedForMs: 10 * 60_000 })
    expect(rejected({ requestId: 'r-1' })).toMatchObject({ requestId: 'r-1', rejectedForMs: undefined })
  })
})

describe('a page whose pairing went away while it ran (browser mode)', () => {
  it('the refused reconnect shows the wait screen with the new request instead of the Retry notice', async () => {
    const bridge = new ConnectedFake({ tickMs: 1 })
    await renderApp({}, bridge)
    await act(async () =>
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
    await act(async () => bridge.set({ state: 'open' }))
    expect(screen.queryByRole('main', { name: 'This browser is waiting for approval' })).toBeNull()
    expect(screen.getByRole('textbox', { name: 'Message' })).toBeInTheDocument()
  })

  it('a reconnect refused as rejected shows that it was rejected, not a request to approve', async () => {
    const bridge = new ConnectedFake({ tickMs: 1 })
    await renderApp({}, bridge)
    await act(async () => bridge.set({ state: 'failed', error: { message: REJECTED_MESSAGE, details: { code: 'PAIRING_REQUIRED', reason: 'rejected', retryAfterMs: 540_000, deviceId: DEVICE } } }))
    expect(screen.getByRole('main', { name: 'Pairing was rejected' })).toBeInTheDocument()
    expect(screen.getByRole('status')).toHaveTextContent('You can ask again in 9 min.')
    expect(screen.queryByRole('textbox', { name: 'Message' })).toBeNull()
  })
})
