// The composer knows the message size limit the gateway checks: a count near it, Send disabled over it; and it
// says when its drafts cannot be stored.
import { act, screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import { MAX_MESSAGE_CHARS } from '../../../shared/message-limit'
import { renderApp, settle } from '../test-utils'
import { MAX_SAVED_DRAFT_CHARS } from '../state/saved-drafts'

beforeEach(() => localStorage.clear())

const box = () => screen.getByRole('textbox', { name: 'Message' })

describe('message size limit in the composer', () => {
  it('counts near the limit; over it Send is disabled with the reason and Enter sends nothing', async () => {
    const { bridge, controller, stores } = await renderApp()
    const key = stores.sessions.getState().selectedKey!
    // typing a million characters is too slow for a test: as a paste would, set the draft
    act(() => controller.setDraft(key, 'hi'))
    expect(screen.queryByLabelText(/of 1,000,000 characters$/)).toBeNull()

    act(() => controller.setDraft(key, 'z'.repeat(MAX_MESSAGE_CHARS - 5)))
    expect(screen.getByLabelText('999,995 of 1,000,000 characters')).toHaveTextContent('999,995 / 1,000,000')
    expect(screen.getByRole('button', { name: 'Send' })).toBeEnabled()

    act(() => controller.setDraft(key, 'z'.repeat(MAX_MESSAGE_CHARS + 500)))
    const send = screen.getByRole('button', { name: 'Send' })
    expect(send).toBeDisabled()
    expect(send).toHaveAccessibleDescription('The message is too long: 500 characters over the limit of 1,000,000. Shorten it or split it into several messages.')
    expect(screen.getByLabelText('1,000,500 of 1,000,000 characters')).toBeInTheDocument()
    box().focus()
    await userEvent.setup().keyboard('{Enter}')
    await settle(50)
    expect(bridge.calls.filter((c) => c.name === 'send')).toHaveLength(0)
    expect((box() as HTMLTextAreaElement).value).toHaveLength(MAX_MESSAGE_CHARS + 500)
    // the controller refuses it too (a caller other than the composer)
    expect(await act(() => controller.send('z'.repeat(MAX_MESSAGE_CHARS + 1)))).toBe(false)
    expect(bridge.calls.filter((c) => c.name === 'send')).toHaveLength(0)
  })

  it('counts characters as the gateway does: an emoji is one, not two', async () => {
    const { controller, stores } = await renderApp()
    const key = stores.sessions.getState().selectedKey!
    // 1,000,000 emoji are 2,000,000 UTF-16 units but within the limit
    act(() => controller.setDraft(key, '😀'.repeat(MAX_MESSAGE_CHARS)))
    expect(screen.getByRole('button', { name: 'Send' })).toBeEnabled()
    expect(screen.getByLabelText('1,000,000 of 1,000,000 characters')).toBeInTheDocument()
  })
})

describe('a draft the browser cannot store', () => {
  it('says so under the composer and keeps the text', async () => {
    const { controller, stores } = await renderApp()
    const key = stores.sessions.getState().selectedKey!
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    const setItem = vi.spyOn(Storage.prototype, 'setItem').mockImplementation(() => {
      throw new DOMException('quota', 'QuotaExceededError')
    })
    try {
      act(() => controller.setDraft(key, 'my important draft'))
      await settle(250)
      expect(screen.getByText(/Drafts cannot be saved \(the browser's storage is full or off\)/)).toBeInTheDocument()
      expect(box()).toHaveValue('my important draft')
    } finally {
      setItem.mockRestore()
      warn.mockRestore()
    }
    act(() => controller.setDraft(key, 'my important draft!'))
    await settle(250)
    expect(screen.queryByText(/Drafts cannot be saved/)).toBeNull()
  })
  it('too long to be stored (saved-drafts.ts): says so while it is, and keeps the text', async () => {
    const { controller, stores } = await renderApp()
    const key = stores.sessions.getState().selectedKey!
    const long = 'x'.repeat(MAX_SAVED_DRAFT_CHARS + 1)
    act(() => controller.setDraft(key, long))
    await settle(250)
    expect(screen.getByText(/This draft is too long to be saved/)).toBeInTheDocument()
    expect(box()).toHaveValue(long)
    expect(localStorage.getItem('loopdesk.drafts')).toBe('{}')
    act(() => controller.setDraft(key, long.slice(1)))
    await settle(250)
    expect(screen.queryByText(/This draft is too long to be saved/)).toBeNull()
    expect(JSON.parse(localStorage.getItem('loopdesk.drafts')!)[key]).toHaveLength(MAX_SAVED_DRAFT_CHARS)
  })
})
