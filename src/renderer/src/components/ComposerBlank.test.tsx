// A draft of only invisible characters (a lone U+200B, bidi controls) is empty to the runtime: the composer
// disables Send and says why, Enter sends nothing, and the controller refuses it too.
import { act, screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { beforeEach, describe, expect, it } from 'vitest'
import { renderApp, settle } from '../test-utils'

beforeEach(() => localStorage.clear())

const box = () => screen.getByRole('textbox', { name: 'Message' })

describe('a draft of only invisible characters', () => {
  it('disables Send with the reason; Enter and the controller send nothing; a visible character sends', async () => {
    const { bridge, controller, stores } = await renderApp()
    const key = stores.sessions.getState().selectedKey!
    act(() => controller.setDraft(key, '\u200b\u202e \u2066'))
    const send = screen.getByRole('button', { name: 'Send' })
    expect(send).toBeDisabled()
    expect(send).toHaveAccessibleDescription('Nothing to send: the message has only invisible characters.')
    box().focus()
    await userEvent.setup().keyboard('{Enter}')
    await settle(50)
    expect(await act(() => controller.send('\u200b'))).toBe(false)
    expect(bridge.calls.filter((c) => c.name === 'send')).toHaveLength(0)
    expect((box() as HTMLTextAreaElement).value).toBe('\u200b\u202e \u2066')

    // plainly empty: disabled, no reason needed
    act(() => controller.setDraft(key, ''))
    expect(screen.getByRole('button', { name: 'Send' })).toBeDisabled()
    expect(screen.getByRole('button', { name: 'Send' })).not.toHaveAccessibleDescription()

    act(() => controller.setDraft(key, '\u200bhi'))
    expect(screen.getByRole('button', { name: 'Send' })).toBeEnabled()
  })

  it('the fake gateway refuses it as the runtime does', async () => {
    const { bridge } = await renderApp()
    const r = await bridge.send({ sessionKey: 'agent:main:main', message: '\u200b', idempotencyKey: 'k1' })
    expect(r).toMatchObject({ ok: false, error: { code: 'INVALID_REQUEST', message: 'message or attachment required: the message has only invisible characters' } })
  })
})
