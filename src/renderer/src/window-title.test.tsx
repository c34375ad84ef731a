// The window title says what waits for the user: exec approvals, remote devices asking to be paired, or both.
import { act, screen, waitFor } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { beforeEach, describe, expect, it } from 'vitest'
import { FakeBridge } from './bridge/fake-bridge'
import { renderApp } from './test-utils'
import { APP_TITLE, attentionTitle } from './window-title'

const PHONE = 'a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90'
const TABLET = 'ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100'

beforeEach(() => {
  localStorage.clear()
  document.title = APP_TITLE
})

const approval = (id: string) => {
  const now = Date.now()
  return { id, runId: `run-${id}`, sessionKey: 'agent:main:main', toolCallId: `call-${id}`, command: 'make', cwd: '/w', createdAt: now, expiresAt: now + 120_000 }
}

describe('attentionTitle', () => {
  it('counts what waits and names each kind; nothing waiting is the plain title', () => {
    expect(attentionTitle(0, 0)).toBe('Loopdesk')
    expect(attentionTitle(2, 0)).toBe('(2) Approval needed — Loopdesk')
    expect(attentionTitle(0, 1)).toBe('(1) Pairing request — Loopdesk')
    expect(attentionTitle(0, 3)).toBe('(3) Pairing requests — Loopdesk')
    expect(attentionTitle(1, 1)).toBe('(2) Approval needed · Pairing request — Loopdesk')
    expect(attentionTitle(2, 2)).toBe('(4) Approval needed · Pairing requests — Loopdesk')
  })
})

describe('the window title', () => {
  it('says a device asks to be paired, counts several, and goes back once they are answered here or elsewhere', async () => {
    const user = userEvent.setup({ delay: null })
    const { bridge } = await renderApp()
    expect(document.title).toBe('Loopdesk')
    let phone = ''
    act(() => void (phone = bridge.requestPairing({ deviceId: PHONE, clientId: 'openclaw-ios' }).requestId))
    await waitFor(() => expect(document.title).toBe('(1) Pairing request — Loopdesk'))
    act(() => void bridge.requestPairing({ deviceId: TABLET, clientId: 'cli' }))
    await waitFor(() => expect(document.title).toBe('(2) Pairing requests — Loopdesk'))

    act(() => bridge.resolvePairingElsewhere(phone, 'approved'))
    await waitFor(() => expect(document.title).toBe('(1) Pairing request — Loopdesk'))
    await user.click(screen.getByRole('button', { name: /^Reject cli / }))
    await waitFor(() => expect(document.title).toBe('Loopdesk'))
  })

  it('a pairing request waiting before the window opened shows at once', async () => {
    const bridge = new FakeBridge({ tickMs: 1 })
    bridge.requestPairing({ deviceId: PHONE })
    await renderApp({}, bridge)
    await waitFor(() => expect(document.title).toBe('(1) Pairing request — Loopdesk'))
  })

  it('with approvals and pairing requests both waiting, says both and counts them together', async () => {
    const { bridge } = await renderApp()
    act(() => bridge.inject({ event: 'exec.approval.requested', payload: approval('ap-1') }))
    await waitFor(() => expect(document.title).toBe('(1) Approval needed — Loopdesk'))
    act(() => void bridge.requestPairing({ deviceId: PHONE }))
    await waitFor(() => expect(document.title).toBe('(2) Approval needed · Pairing request — Loopdesk'))
    act(() => bridge.inject({ event: 'exec.approval.resolved', payload: { id: 'ap-1', runId: 'run-ap-1', sessionKey: 'agent:main:main', decision: 'deny', resolvedBy: 'timeout', ts: Date.now() } }))
    await waitFor(() => expect(document.title).toBe('(1) Pairing request — Loopdesk'))
  })
})
