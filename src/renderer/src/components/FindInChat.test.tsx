// Landing on a message far back in a long session: a sidebar search hit opens the session at the match, and
// the find bar (Ctrl/Cmd+F) counts matches across the whole transcript, not only the loaded rows.
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { preloadSettings } from '../lazy-views'
import { LONG, renderApp } from '../test-utils'

beforeEach(() => localStorage.clear())
// jsdom has no scrolling: the virtualizer's scrollTo moves scrollTop and fires the scroll a browser would
beforeAll(async () => {
  // Settings (the dialog of the last test) is a lazy chunk: loaded first, as the app's warm-up does
  await preloadSettings()
  HTMLElement.prototype.scrollTo = function (this: HTMLElement, opts?: ScrollToOptions | number) {
    if (typeof opts === 'object' && opts.top !== undefined) this.scrollTop = opts.top
    this.dispatchEvent(new Event('scroll'))
  } as typeof HTMLElement.prototype.scrollTo
})

const KEY = 'agent:main:long'
// 3,000 messages: the newest page holds Questions 1401–1500; Question 124 is 1,376 turns back
const seed = [
  { key: 'agent:main:main', label: 'Main', messages: 4 },
  { key: KEY, label: 'Long', messages: 3000 },
]
const found = () => document.querySelector<HTMLElement>('[data-found]')

describe('a search hit opens its session at the matching message', () => {
  it('loads history back to the message (located by its id), scrolls to it and highlights it briefly', async () => {
    const user = userEvent.setup({ delay: null })
    const { bridge, stores } = await renderApp({ seed })
    const nav = screen.getByRole('navigation', { name: 'Sessions' })
    await user.type(within(nav).getByRole('searchbox', { name: 'Search sessions' }), 'part 246 work')
    // the newest matching message: the answer
    const snippet = await within(nav).findByText(/Answer 124\. Part 246 works/)
    expect(stores.sessions.getState().contentHits?.[KEY]).toBe('m247')
    await user.click(snippet)
    await waitFor(() => expect(found()).toHaveTextContent('Answer 124. Part 246 works'), LONG)
    // the hit was located by its id, then the pages in between loaded: one transcript, no gap
    expect(bridge.calls.some((c) => c.name === 'history' && (c.params as { messageId?: string }).messageId === 'm247')).toBe(true)
    const users = stores.runs
      .getState()
      .transcripts[KEY]!.items.filter((it) => it.kind === 'user')
      .map((it) => Number(/Question (\d+)/.exec((it as { text: string }).text)![1]))
    expect(users[0]).toBeLessThan(124)
    expect(users).toEqual(Array.from({ length: users.length }, (_, i) => users[0] + i))
    expect(users.at(-1)).toBe(1500)
    // it is in view: the conversation no longer sits at its end
    expect(screen.getByRole('button', { name: /Jump to latest/ })).toBeInTheDocument()
    // the highlight fades
    await waitFor(() => expect(found()).toBeNull(), LONG)
  })
})

describe('revealMessage', () => {
  it('the latest request wins: a far message still loading does not take the focus from a later, nearer one', async () => {
    const user = userEvent.setup({ delay: null })
    const { controller, stores } = await renderApp({ seed, historyDelayMs: 100 })
    await user.click(within(screen.getByRole('navigation', { name: 'Sessions' })).getByText('Long'))
    await waitFor(() => expect(stores.runs.getState().transcripts[KEY]?.loaded).toBe(true), LONG)
    const far = controller.revealMessage(KEY, 'm247', { persist: true })
    const near = controller.revealMessage(KEY, 'm2999', { persist: true })
    expect(await near).toBe(true)
    expect(await far).toBe(false)
    expect(stores.runs.getState().focus?.messageId).toBe('m2999')
    await waitFor(() => expect(found()).toHaveTextContent('Answer 1500.'))
  })

  it('says so when the message is gone (a stale hit) and loads nothing more', async () => {
    const { controller, stores, bridge } = await renderApp({ seed })
    await act(() => controller.selectSession(KEY))
    const pages = () => bridge.calls.filter((c) => c.name === 'history' && (c.params as { offset?: number }).offset).length
    expect(await act(() => controller.revealMessage(KEY, 'no-such-message'))).toBe(false)
    expect(await screen.findByText('That message is no longer in this conversation')).toBeInTheDocument()
    expect(pages()).toBe(0)
    expect(stores.runs.getState().focus).toBeUndefined()
  })
})

describe('find in the conversation', () => {
  it('Ctrl+F opens the find bar; matches are counted across the whole session; Enter / Shift+Enter step; Escape closes', async () => {
    const user = userEvent.setup({ delay: null })
    const { bridge } = await renderApp({ seed })
    await user.click(within(screen.getByRole('navigation', { name: 'Sessions' })).getByText('Long'))
    await waitFor(() => expect(screen.getByRole('log')).toHaveTextContent(/Question 1500/), LONG)
    const box = screen.getByRole('textbox', { name: /Message/ })
    box.focus()
    fireEvent.keyDown(window, { key: 'f', code: 'KeyF', ctrlKey: true })
    const bar = await screen.findByRole('search', { name: 'Find in conversation' })
    const input = within(bar).getByRole('searchbox', { name: 'Find in conversation' })
    expect(input).toHaveFocus()
    // "part 240": Questions/Answers 121 and 1201–1205, 12 messages; only the newest 5 turns are loaded
    await user.type(input, 'part 240')
    await waitFor(() => expect(within(bar).getByRole('status')).toHaveTextContent('12 of 12'), LONG)
    expect(bridge.calls.filter((c) => c.name === 'chatFind').at(-1)!.params).toMatchObject({ sessionKey: KEY, query: 'part 240' })
    await waitFor(() => expect(found()).toHaveTextContent('Answer 1205. Part 2408 works'), LONG)
    await user.keyboard('{Shift>}{Enter}{/Shift}')
    await waitFor(() => expect(found()).toHaveTextContent('Question 1205: how does part 2408 work?'), LONG)
    expect(within(bar).getByRole('status')).toHaveTextContent('11 of 12')
    // past the newest it wraps to the oldest, 1,380 turns back: loaded and scrolled to
    await user.keyboard('{Enter}{Enter}')
    expect(within(bar).getByRole('status')).toHaveTextContent('1 of 12')
    await waitFor(() => expect(found()).toHaveTextContent('Question 121: how does part 240 work?'), LONG)
    // the buttons step too
    await user.click(within(bar).getByRole('button', { name: 'Next match' }))
    await waitFor(() => expect(found()).toHaveTextContent('Answer 121. Part 240 works'), LONG)
    expect(within(bar).getByRole('status')).toHaveTextContent('2 of 12')
    // Escape (focus on the button now) closes it, the highlight goes, focus returns to where it was
    await user.keyboard('{Escape}')
    expect(screen.queryByRole('search', { name: 'Find in conversation' })).toBeNull()
    expect(found()).toBeNull()
    expect(box).toHaveFocus()
  })

  it('says when nothing matches, and Ctrl+F does nothing while a dialog is open', async () => {
    const user = userEvent.setup({ delay: null })
    await renderApp({ seed })
    await waitFor(() => expect(screen.getByRole('log')).toHaveTextContent(/Question 1/))
    fireEvent.keyDown(window, { key: 'f', code: 'KeyF', metaKey: true })
    const bar = await screen.findByRole('search', { name: 'Find in conversation' })
    await user.type(within(bar).getByRole('searchbox'), 'zebra crossing')
    await waitFor(() => expect(within(bar).getByRole('status')).toHaveTextContent('No matches'))
    expect(within(bar).getByRole('button', { name: 'Next match' })).toBeDisabled()
    await user.click(within(bar).getByRole('button', { name: 'Close find' }))
    expect(screen.queryByRole('search', { name: 'Find in conversation' })).toBeNull()
    await user.click(screen.getByRole('button', { name: 'Settings' }))
    await screen.findByRole('dialog', { name: 'Settings' }, LONG)
    fireEvent.keyDown(window, { key: 'f', code: 'KeyF', ctrlKey: true })
    await new Promise((r) => setTimeout(r, 50))
    expect(screen.queryByRole('search', { name: 'Find in conversation' })).toBeNull()
  })
})
