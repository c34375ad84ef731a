// A run the model answered after Ollama cut its prompt (runtime ollama-truncation.ts) is not an error, but its
// footer says what happened and how to fix it — also once the finished turn is rebuilt from history.
import { act, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { FakeScript } from '../bridge/fake-bridge'
import { preloadSettings } from '../lazy-views'
import { LONG, renderApp } from '../test-utils'

const MESSAGE =
  "Ollama read only 2048 of the ~9000 tokens sent to ollama/llama: its context is smaller than the conversation, so it dropped part of it and the reply may miss what was cut. Raise Ollama's context (OLLAMA_CONTEXT_LENGTH=16384 for `ollama serve`, or PARAMETER num_ctx in a Modelfile) and set this model's context window in Loopdesk (Settings → Models, now 32768) to match."
const truncated: FakeScript = {
  steps: [
    { kind: 'notice', data: { reason: 'context_truncated', provider: 'ollama', model: 'llama', promptTokens: 2048, estimatedTokens: 9000, message: MESSAGE } },
    { kind: 'text', text: 'An answer about the last part only.' },
  ],
}
const log = () => screen.getByRole('log', { name: 'Conversation' })

// Settings is a lazy chunk: loaded first, as the app's idle warm-up does (see Cards.test.tsx)
beforeAll(async () => {
  await preloadSettings()
})
beforeEach(() => localStorage.clear())

describe('a run whose prompt Ollama cut', () => {
  it('the footer keeps the warning after the run ends and history is reloaded; its button opens the model settings', async () => {
    await renderApp({ scripts: [truncated] })
    const user = userEvent.setup()
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'Read the whole log{Enter}')
    await waitFor(() => expect(within(log()).getAllByRole('status').at(-1)?.textContent).toMatch(/^Done/), LONG)
    // the end-of-run refetch rebuilds the turn from history
    await act(() => new Promise((r) => setTimeout(r, 600)))
    const note = within(log()).getByRole('note')
    expect(note).toHaveTextContent('Ollama read only 2048 of the ~9000 tokens')
    expect(note).toHaveTextContent('OLLAMA_CONTEXT_LENGTH')
    // not an error: the run is Done, with no Retry
    expect(within(log()).getAllByRole('status').at(-1)?.textContent).toMatch(/^Done/)
    await user.click(within(note).getByRole('button', { name: 'Open model settings' }))
    const dialog = await screen.findByRole('dialog', { name: 'Settings' })
    expect(within(dialog).getByRole('button', { name: 'Models' })).toHaveAttribute('aria-current', 'page')
  })

  it('after a reload whose events no longer hold the run, the note comes back from history', async () => {
    const first = await renderApp({ scripts: [truncated] })
    const user = userEvent.setup()
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'Read the whole log{Enter}')
    await waitFor(() => expect(within(log()).getByRole('note')).toHaveTextContent('Ollama read only 2048'), LONG)
    await waitFor(() => expect(within(log()).getAllByRole('status').at(-1)?.textContent).toMatch(/^Done/), LONG)
    first.unmount()
    first.bridge.forgetEvents('agent:main:main')
    await renderApp({}, first.bridge)
    await waitFor(() => expect(within(log()).getByText('An answer about the last part only.')).toBeInTheDocument(), LONG)
    const note = within(log()).getByRole('note')
    expect(note).toHaveTextContent('Ollama read only 2048 of the ~9000 tokens')
    expect(within(note).getByRole('button', { name: 'Open model settings' })).toBeInTheDocument()
  })

  it('a run without it has no note', async () => {
    await renderApp({ scripts: [{ steps: [{ kind: 'text', text: 'Fine.' }] }] })
    const user = userEvent.setup()
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'Hi{Enter}')
    await waitFor(() => expect(within(log()).getAllByRole('status').at(-1)?.textContent).toMatch(/^Done/), LONG)
    expect(within(log()).queryByRole('note')).toBeNull()
  })
})
