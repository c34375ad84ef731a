// "Stop and retry" fetches its logic when clicked (state/stop-and-retry.ts, a chunk of its own). A chunk that
// cannot load (the app updated under an open browser tab, a dropped connection) must say so: the click otherwise
// did nothing at all — the run went on silent, with no stop and no word why.
import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import type { FakeScript } from '../bridge/fake-bridge'
import { LONG, renderApp } from '../test-utils'

vi.mock('../state/stop-and-retry', () => {
  throw new Error('Failed to fetch dynamically imported module: stop-and-retry-9f8e.js')
})

const log = () => screen.getByRole('log', { name: 'Conversation' })
const statuses = () => within(log()).getAllByRole('status').map((s) => s.textContent ?? '')
const silent: FakeScript = {
  steps: [{ kind: 'silence', data: { phase: 'silent', since: 'request', silentMs: 20_000, provider: 'mock' } }, { kind: 'untilAborted' }],
}

beforeEach(() => localStorage.clear())

describe('Stop and retry whose chunk cannot load', () => {
  it('says it could not stop and retry; the run is left as it was and Stop still works', async () => {
    const { stores } = await renderApp({ scripts: [silent] })
    const user = userEvent.setup()
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'hello{Enter}')
    await waitFor(() => expect(statuses().at(-1)).toMatch(/^No response/), LONG)
    await user.click(within(log()).getByRole('button', { name: 'Stop and retry' }))
    await waitFor(() => expect(stores.ui.getState().toasts.map((t) => t.text).at(-1)).toMatch(/^Could not stop and retry: .*reload/i), LONG)
    expect(within(log()).getByRole('button', { name: 'Stop' })).toBeEnabled()
  })
})
