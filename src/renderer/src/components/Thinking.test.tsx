// While a reasoning model thinks, the run footer says so ("Thinking…") at every reasoning level — at `off`
// without any of the text — and goes back to "Running…" when the reply starts; at level `on` the finished
// block shows as soon as it ends, before the reply streams.
import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import type { FakeScript } from '../bridge/fake-bridge'
import { LONG, renderApp } from '../test-utils'

const log = () => screen.getByRole('log', { name: 'Conversation' })
const footer = () => within(log()).getAllByRole('status').at(-1)?.textContent ?? ''
const SECRET = 'The user probably wants the quarterly numbers. '

async function send(text: string) {
  const user = userEvent.setup()
  await user.type(screen.getByRole('textbox', { name: 'Message' }), `${text}{Enter}`)
}

describe('a thinking model in the window', () => {
  it('level off: the footer reads "Thinking…" while the model reasons, shows none of it, then the reply', async () => {
    // ~40 ticks of 20 ms of reasoning before the first word
    const script: FakeScript = { steps: [{ kind: 'thinking', text: SECRET.repeat(20), level: 'off' }, { kind: 'text', text: 'Revenue grew 4%.' }] }
    await renderApp({ tickMs: 20, scripts: [script] })
    await send('How did we do?')
    await waitFor(() => expect(footer()).toMatch(/^Thinking…/), LONG)
    expect(log().textContent).not.toContain('quarterly')
    await waitFor(() => expect(within(log()).getByText('Revenue grew 4%.')).toBeInTheDocument(), LONG)
    expect(footer()).not.toMatch(/Thinking/)
  })

  it('level on: the finished block appears when it ends, before the reply text streams', async () => {
    const script: FakeScript = {
      steps: [{ kind: 'thinking', text: 'Plan: read the notes, then summarise.', level: 'on' }, { kind: 'wait', ms: 600 }, { kind: 'text', text: 'Here is the summary.' }],
    }
    await renderApp({ tickMs: 20, scripts: [script] })
    await send('Summarise the notes')
    await waitFor(() => expect(within(log()).getByText('Plan: read the notes, then summarise.')).toBeInTheDocument(), LONG)
    expect(within(log()).queryByText('Here is the summary.')).toBeNull()
    // the block is over: the model is not thinking any more
    expect(footer()).toMatch(/^Running…/)
    await waitFor(() => expect(within(log()).getByText('Here is the summary.')).toBeInTheDocument(), LONG)
  })
})
