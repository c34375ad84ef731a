// The window's pairing prompt: remote devices asking to connect, answered here or elsewhere.
import { act, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { PAIRING_REJECTION_MS, PAIRING_REQUEST_TTL_MS } from '../../../shared/pairing'
import { FakeBridge } from '../bridge/fake-bridge'
import { ConnectedFake, renderApp } from '../test-utils'

const PHONE = 'a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90'
const TABLET = 'ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100'

beforeEach(() => localStorage.clear())
afterEach(() => vi.useRealTimers())

const region = () => screen.getByRole('region', { name: 'Device pairing requests' })
const card = (client: string) => screen.getByRole('group', { name: `A device asks to connect: ${client}` })

describe('pairing prompt', () => {
  it('shows nothing while no device asks', async () => {
    await renderApp()
    expect(screen.queryByRole('region', { name: 'Device pairing requests' })).toBeNull()
  })

  it('names the device (short id, client, platform, address, scopes) and lists several, newest first', async () => {
    const { bridge } = await renderApp()
    const ids: string[] = []
    await act(async () => {
      ids.push(bridge.requestPairing({ deviceId: PHONE, clientId: 'openclaw-ios', clientMode: 'ui', platform: 'iOS 19', remoteIp: '192.168.1.23', scopes: ['operator.read', 'operator.write'], ts: Date.now() - 1000 }).requestId)
      ids.push(bridge.requestPairing({ deviceId: TABLET, clientId: 'cli', clientMode: 'cli', remoteIp: '10.0.0.8', ts: Date.now() }).requestId)
    })
    const phone = await waitFor(() => card('openclaw-ios'))
    expect(phone).toHaveTextContent('a1b2c3d4e5f6…')
    expect(within(phone).getByTitle(PHONE)).toBeInTheDocument()
    expect(phone).toHaveTextContent('192.168.1.23')
    expect(phone).not.toHaveTextContent('through a proxy')
    expect(phone).toHaveTextContent('iOS 19')
    expect(phone).toHaveTextContent('operator.read, operator.write')
    expect(phone).toHaveTextContent(/5 min left/)
    expect(region()).toHaveTextContent('2 devices ask to connect')
    const cards = within(region()).getAllByRole('group')
    expect(cards.map((c) => c.getAttribute('data-request-id'))).toEqual([ids[1], ids[0]])
    // each card's buttons say which device they answer
    expect(within(phone).getByRole('button', { name: 'Approve openclaw-ios a1b2c3d4e5f6…' })).toBeEnabled()
    expect(within(phone).getByRole('button', { name: 'Reject openclaw-ios a1b2c3d4e5f6…' })).toBeEnabled()
  })

  it('a loopback address means the device came through a proxy on this machine: says so', async () => {
    const { bridge } = await renderApp()
    await act(async () => void bridge.requestPairing({ deviceId: PHONE, clientId: 'openclaw-ios', remoteIp: '::ffff:127.0.0.1' }))
    await waitFor(() => expect(card('openclaw-ios')).toHaveTextContent('::ffff:127.0.0.1 (through a proxy: the device’s own address is not known)'))
  })

  it('shows requests that were pending before the window opened (pairingList)', async () => {
    const bridge = new FakeBridge({ tickMs: 1 })
    bridge.requestPairing({ deviceId: PHONE, clientId: 'openclaw-android' })
    await renderApp({}, bridge)
    // (the cards are a chunk of their own: drawn once it is here)
    await waitFor(() => expect(card('openclaw-android')).toBeInTheDocument())
    expect(bridge.calls.some((c) => c.name === 'pairingList')).toBe(true)
  })

  it('Approve calls the bridge with the request id; the card goes and a toast says it is paired', async () => {
    const user = userEvent.setup({ delay: null })
    const { bridge } = await renderApp()
    let requestId = ''
    await act(async () => void (requestId = bridge.requestPairing({ deviceId: PHONE, clientId: 'openclaw-ios' }).requestId))
    await user.click(await screen.findByRole('button', { name: /^Approve openclaw-ios/ }))
    expect(bridge.calls.filter((c) => c.name === 'pairingApprove')).toEqual([{ name: 'pairingApprove', params: { requestId } }])
    await waitFor(() => expect(screen.queryByRole('region', { name: 'Device pairing requests' })).toBeNull())
    expect(await screen.findByText('Paired openclaw-ios (a1b2c3d4e5f6…): it connects on its next try.')).toBeInTheDocument()
    expect((await bridge.pairingList({})).ok && (await bridge.pairingList({}))).toMatchObject({ data: { pending: [], paired: [{ deviceId: PHONE }] } })
  })

  it('Reject by keyboard calls the bridge; only that card goes', async () => {
    const user = userEvent.setup({ delay: null })
    const { bridge } = await renderApp()
    let phoneReq = ''
    await act(async () => {
      phoneReq = bridge.requestPairing({ deviceId: PHONE, clientId: 'openclaw-ios' }).requestId
      bridge.requestPairing({ deviceId: TABLET, clientId: 'cli' })
    })
    const reject = await screen.findByRole('button', { name: /^Reject openclaw-ios/ })
    reject.focus()
    await user.keyboard('{Enter}')
    expect(bridge.calls.filter((c) => c.name === 'pairingReject')).toEqual([{ name: 'pairingReject', params: { requestId: phoneReq } }])
    await waitFor(() => expect(screen.queryByRole('group', { name: 'A device asks to connect: openclaw-ios' })).toBeNull())
    expect(card('cli')).toBeInTheDocument()
    expect(bridge.calls.some((c) => c.name === 'pairingApprove')).toBe(false)
  })

  it('disappears when the request is answered elsewhere (device.pair.resolved from the CLI)', async () => {
    const { bridge } = await renderApp()
    let requestId = ''
    await act(async () => void (requestId = bridge.requestPairing({ deviceId: PHONE, clientId: 'openclaw-ios' }).requestId))
    await waitFor(() => card('openclaw-ios'))
    await act(async () => bridge.resolvePairingElsewhere(requestId, 'approved'))
    await waitFor(() => expect(screen.queryByRole('region', { name: 'Device pairing requests' })).toBeNull())
    expect(bridge.calls.some((c) => c.name === 'pairingApprove' || c.name === 'pairingReject')).toBe(false)
  })

  it('an answer that comes too late (answered or expired meanwhile) removes the card with a notice, no error', async () => {
    const user = userEvent.setup({ delay: null })
    const { bridge } = await renderApp()
    let requestId = ''
    await act(async () => void (requestId = bridge.requestPairing({ deviceId: PHONE, clientId: 'openclaw-ios' }).requestId))
    await screen.findByRole('button', { name: /^Approve openclaw-ios/ })
    bridge.expirePairing(requestId) // gone on the gateway, no event
    await user.click(screen.getByRole('button', { name: /^Approve openclaw-ios/ }))
    await waitFor(() => expect(screen.queryByRole('region', { name: 'Device pairing requests' })).toBeNull())
    expect(await screen.findByText('The request from openclaw-ios (a1b2c3d4e5f6…) was already answered or has expired.')).toBeInTheDocument()
  })

  it('a failed answer keeps the card with the reason, and it can be tried again', async () => {
    const user = userEvent.setup({ delay: null })
    const { bridge } = await renderApp()
    await act(async () => void bridge.requestPairing({ deviceId: PHONE, clientId: 'openclaw-ios' }))
    const approve = await screen.findByRole('button', { name: /^Approve openclaw-ios/ })
    const real = bridge.pairingApprove.bind(bridge)
    const spy = vi.spyOn(bridge, 'pairingApprove').mockResolvedValueOnce({ ok: false, error: { code: 'UNAVAILABLE', message: 'connection to the gateway was lost' } })
    await user.click(approve)
    expect(await within(card('openclaw-ios')).findByRole('alert')).toHaveTextContent('Could not answer: connection to the gateway was lost')
    spy.mockImplementation(real)
    await user.click(screen.getByRole('button', { name: /^Approve openclaw-ios/ }))
    await waitFor(() => expect(screen.queryByRole('region', { name: 'Device pairing requests' })).toBeNull())
  })

  it('goes when the request lapses (no event: the list is read again at its time-up)', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true })
    const { bridge } = await renderApp()
    let requestId = ''
    await act(async () => void (requestId = bridge.requestPairing({ deviceId: PHONE, clientId: 'openclaw-ios' }).requestId))
    await waitFor(() => card('openclaw-ios'))
    const lists = bridge.calls.filter((c) => c.name === 'pairingList').length
    bridge.expirePairing(requestId)
    await act(() => vi.advanceTimersByTimeAsync(PAIRING_REQUEST_TTL_MS + 2000))
    await waitFor(() => expect(screen.queryByRole('region', { name: 'Device pairing requests' })).toBeNull())
    expect(bridge.calls.filter((c) => c.name === 'pairingList').length).toBeGreaterThan(lists)
  })

  it('a reconnect reads the list again (events may have been missed meanwhile)', async () => {
    const bridge = new ConnectedFake({ tickMs: 1 })
    await renderApp({}, bridge)
    await act(async () => bridge.set({ state: 'reconnecting' }))
    // asked while this page was disconnected: its event never reached the page
    bridge.requestPairing({ deviceId: PHONE, clientId: 'openclaw-ios' }, { unannounced: true })
    await act(() => new Promise((r) => setTimeout(r, 20)))
    expect(screen.queryByRole('region', { name: 'Device pairing requests' })).toBeNull()
    await act(async () => bridge.set({ state: 'open' }))
    await waitFor(() => card('openclaw-ios'))
  })

  it('a rejected device shows as "Recently rejected" with "Allow to ask again", which lifts the rejection', async () => {
    const user = userEvent.setup({ delay: null })
    const { bridge } = await renderApp()
    await act(async () => void bridge.requestPairing({ deviceId: PHONE, clientId: 'openclaw-ios', remoteIp: '192.168.1.23' }))
    await user.click(await screen.findByRole('button', { name: /^Reject openclaw-ios/ }))
    const rejected = await screen.findByRole('list', { name: 'Recently rejected devices' })
    const line = within(rejected).getByRole('listitem')
    expect(line).toHaveTextContent('Recently rejected: openclaw-ios (a1b2c3d4e5f6…) from 192.168.1.23 — may ask again in 10 min')
    expect(screen.queryByRole('region', { name: 'Device pairing requests' })).toBeNull()

    await user.click(within(line).getByRole('button', { name: 'Allow openclaw-ios (a1b2c3d4e5f6…) to ask again' }))
    expect(bridge.calls.filter((c) => c.name === 'pairingLiftRejection')).toEqual([{ name: 'pairingLiftRejection', params: { deviceId: PHONE } }])
    await waitFor(() => expect(screen.queryByRole('list', { name: 'Recently rejected devices' })).toBeNull())
    expect(await screen.findByText('openclaw-ios (a1b2c3d4e5f6…) may ask to connect again now.')).toBeInTheDocument()
    expect((await bridge.pairingList({})).ok && (await bridge.pairingList({}))).toMatchObject({ data: { loopdeskRejected: [] } })
  })

  it('the "Recently rejected" line goes when another window or the CLI lets the device ask again (no re-list needed)', async () => {
    const bridge = new FakeBridge({ tickMs: 1 })
    bridge.rejectDevice({ deviceId: TABLET, clientId: 'cli', remoteIp: '10.0.0.8' })
    bridge.rejectDevice({ deviceId: PHONE, clientId: 'openclaw-ios', remoteIp: '10.0.0.9' })
    await renderApp({}, bridge)
    const rejected = await screen.findByRole('list', { name: 'Recently rejected devices' })
    await waitFor(() => expect(within(rejected).getAllByRole('listitem')).toHaveLength(2))
    const lists = bridge.calls.filter((c) => c.name === 'pairingList').length

    await act(async () => bridge.liftRejectionElsewhere(TABLET)) // loopdesk.device.pair.liftRejection in another window
    await waitFor(() => expect(within(rejected).getAllByRole('listitem')).toHaveLength(1))
    expect(rejected).toHaveTextContent('openclaw-ios (a1b2c3d4e5f6…)')
    await act(async () => bridge.removeDeviceElsewhere(PHONE)) // loopdesk devices remove <id>
    await waitFor(() => expect(screen.queryByRole('list', { name: 'Recently rejected devices' })).toBeNull())
    expect(bridge.calls.filter((c) => c.name === 'pairingList').length).toBe(lists) // the events said it all
    expect(screen.queryByText(/may ask to connect again now/)).toBeNull() // no toast: it was not this window's doing
  })

  it('a request removed by the CLI (device.pair.remove of a device that only asks) takes its card away', async () => {
    const { bridge } = await renderApp()
    await act(async () => void bridge.requestPairing({ deviceId: PHONE, clientId: 'openclaw-ios' }))
    await act(async () => void bridge.requestPairing({ deviceId: TABLET, clientId: 'cli' }))
    await waitFor(() => card('openclaw-ios'))
    await act(async () => bridge.removeDeviceElsewhere(PHONE))
    await waitFor(() => expect(screen.queryByRole('group', { name: 'A device asks to connect: openclaw-ios' })).toBeNull())
    expect(card('cli')).toBeInTheDocument()
    // dropped, not rejected: it is not listed as recently rejected
    await act(() => new Promise((r) => setTimeout(r, 20)))
    expect(screen.queryByRole('list', { name: 'Recently rejected devices' })).toBeNull()
  })

  it('lists devices rejected before the window opened, and drops one when its time is up', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true })
    const bridge = new FakeBridge({ tickMs: 1 })
    bridge.rejectDevice({ deviceId: TABLET, clientId: 'cli', remoteIp: '10.0.0.8' }, Date.now() - PAIRING_REJECTION_MS + 60_000)
    await renderApp({}, bridge)
    expect(await screen.findByRole('list', { name: 'Recently rejected devices' })).toHaveTextContent('Recently rejected: cli (ffeeddccbbaa…) from 10.0.0.8 — may ask again in 1 min')
    await act(() => vi.advanceTimersByTimeAsync(62_000))
    await waitFor(() => expect(screen.queryByRole('list', { name: 'Recently rejected devices' })).toBeNull())
  })
})
