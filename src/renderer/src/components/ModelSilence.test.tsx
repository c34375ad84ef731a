// The runtime says the model server went quiet (its `silence` stream, runtime model-silence.ts): the run footer
// says so — before the first token and mid-reply — with a Stop beside it, instead of "Running… · 25 s".
import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { beforeEach, describe, expect, it } from 'vitest'
import type { FakeScript } from '../bridge/fake-bridge'
import { LONG, renderApp } from '../test-utils'
import { footerSilenceText } from './Messages'

const log = () => screen.getByRole('log', { name: 'Conversation' })
const footer = () => within(log()).getAllByRole('status').at(-1)?.textContent ?? ''

beforeEach(() => localStorage.clear())

describe('a silent model server', () => {
  it('before the first token: "No response from the model (mock) for N s" with Stop, which stops the run', async () => {
    const hang: FakeScript = {
      steps: [{ kind: 'silence', data: { phase: 'silent', since: 'request', silentMs: 20_000, provider: 'mock' } }, { kind: 'untilAborted' }],
    }
    await renderApp({ scripts: [hang] })
    const user = userEvent.setup()
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'hello{Enter}')
    await waitFor(() => expect(footer()).toMatch(/^No response from the model \(mock\) for 2\d s/), LONG)
    await user.click(within(log()).getByRole('button', { name: 'Stop' }))
    await waitFor(() => expect(footer()).toMatch(/^Stopped/), LONG)
    expect(within(log()).queryByRole('button', { name: 'Stop' })).toBeNull()
  })

  it('mid-reply: "The model stopped sending N s ago", cleared by the next text', async () => {
    const stall: FakeScript = {
      steps: [
        { kind: 'text', text: 'Line 1 of a long reply.' },
        { kind: 'silence', data: { phase: 'silent', since: 'reply', silentMs: 20_000, provider: 'mock', idleTimeoutMs: 120_000 } },
        // long enough to be drawn before the next text on a loaded machine (events are applied in batches: a
        // silence and the text after it in one batch is never shown — rightly, the model was not silent then)
        { kind: 'wait', ms: 2500 },
        { kind: 'text', text: ' And the rest.' },
        { kind: 'wait', ms: 400 },
      ],
    }
    await renderApp({ scripts: [stall] })
    const user = userEvent.setup()
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'hello{Enter}')
    await waitFor(() => expect(footer()).toMatch(/^The model \(mock\) stopped sending 2\d s ago/), LONG)
    await waitFor(() => expect(footer()).toMatch(/^Running…/), LONG)
    expect(within(log()).queryByRole('button', { name: 'Stop' })).toBeNull()
    await waitFor(() => expect(footer()).toMatch(/^Done/), LONG)
  })

  it('counts from when the silence began', () => {
    expect(footerSilenceText({ what: 'request', since: 1000 }, 26_500)).toBe('No response from the model for 25 s')
    expect(footerSilenceText({ what: 'reply', since: 0, provider: 'ollama' }, 61_000)).toBe('The model (ollama) stopped sending 61 s ago')
  })
})
