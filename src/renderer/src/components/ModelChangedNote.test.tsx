// A run that moved its session to the default model (its last model's provider was removed: runtime
// model-switch.ts) says so under the run — live, and after a reload whose events no longer hold the run.
import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { FakeScript } from '../bridge/fake-bridge'
import { preloadModelList } from '../lazy-views'
import { LONG, renderApp } from '../test-utils'

const MESSAGE = 'Model changed: gone/m1 → anthropic/claude-sonnet-4-5 (its provider was removed). This session now uses the default model.'
const switched: FakeScript = {
  steps: [
    { kind: 'notice', data: { reason: 'model_changed', from: 'gone/m1', to: 'anthropic/claude-sonnet-4-5', message: MESSAGE } },
    { kind: 'text', text: 'A reply from the default model.' },
  ],
}
const log = () => screen.getByRole('log', { name: 'Conversation' })

beforeAll(async () => {
  await preloadModelList()
})
beforeEach(() => localStorage.clear())

describe('the model-changed note', () => {
  it('shows under the run, offers the picker, and comes back from history after a reload', async () => {
    const first = await renderApp({ scripts: [switched] })
    const user = userEvent.setup()
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'Still there?{Enter}')
    await waitFor(() => expect(within(log()).getByRole('note')).toHaveTextContent('Model changed: gone/m1 → anthropic/claude-sonnet-4-5'), LONG)
    await waitFor(() => expect(within(log()).getAllByRole('status').at(-1)?.textContent).toMatch(/^Done/), LONG)
    // not an error, and no model settings to open: the session's model is chosen in the header
    await user.click(within(within(log()).getByRole('note')).getByRole('button', { name: 'Choose another model' }))
    // the list is a lazy chunk: under load its import alone can take longer than findBy's 1 s
    await waitFor(() => expect(screen.getByRole('listbox', { name: 'Model for this session' })).toHaveFocus(), LONG)
    await user.keyboard('{Escape}')

    first.unmount()
    first.bridge.forgetEvents('agent:main:main')
    await renderApp({}, first.bridge)
    await waitFor(() => expect(within(log()).getByText('A reply from the default model.')).toBeInTheDocument(), LONG)
    expect(within(log()).getByRole('note')).toHaveTextContent(MESSAGE)
  })
})
