// Landing on a message far back in a long session: a sidebar search hit opens the session at the match, and
// the find bar (Ctrl/Cmd+F) counts matches across the whole transcript, not only the loaded rows.
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { preloadFindBar, preloadSettings } from '../lazy-views'
import { LONG, renderApp } from '../test-utils'
import { MAX_DETACHED_ROWS, OPEN_ROWS } from '../state/detached-window'
import type { Item } from '../state/types'

beforeEach(() => localStorage.clear())
// jsdom has no scrolling: the virtualizer's scrollTo moves scrollTop and fires the scroll a browser would
beforeAll(async () => {
  // Settings (the dialog of the last test) and the find bar are lazy chunks: loaded first, as the app's warm-up
  // does (under load the find bar's first import outlasted findByRole's second: the bar "not found")
  await preloadSettings()
  await preloadFindBar()
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
  it('opens a detached window of rows around the message (located by its id), scrolls to it and highlights it briefly', async () => {
    const user = userEvent.setup({ delay: null })
    const { bridge, stores, controller } = await renderApp({ seed })
    const nav = screen.getByRole('navigation', { name: 'Sessions' })
    await user.type(within(nav).getByRole('searchbox', { name: 'Search sessions' }), 'part 246 work')
    // the newest matching message: the answer
    const snippet = await within(nav).findByText(/Answer 124\. Part 246 works/)
    expect(stores.sessions.getState().contentHits?.[KEY]).toBe('m247')
    await user.click(snippet)
    await waitFor(() => expect(found()).toHaveTextContent('Answer 124. Part 246 works'), LONG)
    // one window around the hit, no pages from the end down to it (1,376 turns back)
    const around = bridge.calls.filter((c) => c.name === 'history' && (c.params as { messageId?: string }).messageId === 'm247')
    expect(around.map((c) => (c.params as { limit?: number }).limit)).toEqual([OPEN_ROWS])
    expect(bridge.calls.some((c) => c.name === 'history' && (c.params as { offset?: number }).offset)).toBe(false)
    const questions = (items: readonly Item[]) => items.filter((it) => it.kind === 'user').map((it) => Number(/Question (\d+)/.exec((it as { text: string }).text)![1]))
    const windowed = () => questions(stores.runs.getState().detached![KEY]!.transcript.items)
    expect(windowed().length).toBeLessThanOrEqual(OPEN_ROWS / 2 + 1)
    expect(windowed()).toContain(124)
    expect(windowed()).toEqual(Array.from({ length: windowed().length }, (_, i) => windowed()[0] + i))
    expect(document.querySelector('[role=log]')!.getAttribute('data-detached')).not.toBeNull()
    // the live transcript is left as it was: its newest rows only
    expect(Math.min(...questions(stores.runs.getState().transcripts[KEY]!.items))).toBeGreaterThan(1300)
    expect(screen.getByRole('button', { name: /Jump to latest/ })).toBeInTheDocument()
    // the highlight fades
    await waitFor(() => expect(found()).toBeNull(), LONG)

    // paging up adds older rows above it
    const top = windowed()[0]
    await act(() => controller.loadOlder(KEY))
    expect(windowed()[0]).toBeLessThan(top)
    expect(windowed()).toEqual(Array.from({ length: windowed().length }, (_, i) => windowed()[0] + i))

    // a message sent meanwhile goes to the live transcript, not below the window
    await user.type(screen.getByRole('textbox', { name: /Message/ }), 'brand new question')
    await user.click(screen.getByRole('button', { name: 'Send' }))
    await waitFor(() => expect(stores.runs.getState().transcripts[KEY]!.items.some((it) => it.kind === 'user' && it.text === 'brand new question')).toBe(true), LONG)
    expect(stores.runs.getState().detached![KEY]!.transcript.items.some((it) => it.kind === 'user' && it.text === 'brand new question')).toBe(false)

    // paging down goes on until the end is reached: then the live transcript is shown (where the window's rows
    // were read: the same items), the new message at its end
    let pages = 0
    while (stores.runs.getState().detached?.[KEY] && pages < 40) {
      await act(() => controller.loadNewer(KEY))
      pages++
      expect(stores.runs.getState().detached?.[KEY]?.rows.length ?? 0).toBeLessThanOrEqual(MAX_DETACHED_ROWS)
    }
    expect(stores.runs.getState().detached?.[KEY]).toBeUndefined()
    expect(pages).toBeGreaterThan(5)
    const live = stores.runs.getState().transcripts[KEY]!.items
    await waitFor(() => expect(document.querySelector('[role=log]')!.getAttribute('data-items')).toBe(String(live.length)), LONG)
    expect(document.querySelector('[role=log]')!.getAttribute('data-detached')).toBeNull()
    expect(live.filter((it) => it.kind === 'user').at(-1)).toMatchObject({ text: 'brand new question' })
  })

  it('"Jump to latest" from a detached window shows the live end at once', async () => {
    const user = userEvent.setup({ delay: null })
    const { stores, controller } = await renderApp({ seed })
    await act(() => controller.selectSession(KEY))
    expect(await act(() => controller.revealMessage(KEY, 'm247'))).toBe(true)
    await waitFor(() => expect(found()).toHaveTextContent('Answer 124.'), LONG)
    expect(screen.getByRole('log')).not.toHaveTextContent('Question 1500:')
    await user.click(screen.getByRole('button', { name: /Jump to latest/ }))
    expect(stores.runs.getState().detached?.[KEY]).toBeUndefined()
    await waitFor(() => expect(screen.getByRole('log')).toHaveTextContent('Question 1500:'), LONG)
    // a message the live transcript holds is scrolled to there, no window opened
    expect(await act(() => controller.revealMessage(KEY, 'm2997'))).toBe(true)
    expect(stores.runs.getState().detached?.[KEY]).toBeUndefined()
  })
})

describe('a reply running while a detached window is shown', () => {
  it('streams into the live transcript; the window is not busy; "Jump to latest" shows the run going on', async () => {
    const user = userEvent.setup({ delay: null })
    const { stores, controller } = await renderApp({ seed, scripts: [{ steps: [{ kind: 'text', text: 'Working on it' }, { kind: 'untilAborted' }] }] })
    await act(() => controller.selectSession(KEY))
    await user.type(screen.getByRole('textbox', { name: /Message/ }), 'a long job')
    await user.click(screen.getByRole('button', { name: 'Send' }))
    await waitFor(() => expect(screen.getByRole('log')).toHaveAttribute('aria-busy', 'true'), LONG)
    expect(await act(() => controller.revealMessage(KEY, 'm247'))).toBe(true)
    await waitFor(() => expect(found()).toHaveTextContent('Answer 124.'), LONG)
    // the list shows the window, which is not what streams
    expect(screen.getByRole('log')).not.toHaveAttribute('aria-busy')
    const live = () => stores.runs.getState().transcripts[KEY]!.items
    await waitFor(() => expect(live().some((it) => it.kind === 'assistant' && it.text.includes('Working on it'))).toBe(true), LONG)
    expect(stores.runs.getState().detached![KEY]!.transcript.items.some((it) => it.kind === 'assistant' && it.text.includes('Working on it'))).toBe(false)
    await user.click(screen.getByRole('button', { name: /Jump to latest/ }))
    expect(screen.getByRole('log')).toHaveAttribute('aria-busy', 'true')
    await waitFor(() => expect(screen.getByRole('log')).toHaveTextContent('Working on it'), LONG)
    await act(() => controller.stop())
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

  it('counts occurrences, not messages: Enter steps through each occurrence of a message before the next message', async () => {
    const user = userEvent.setup({ delay: null })
    const { stores } = await renderApp({ seed })
    await user.click(within(screen.getByRole('navigation', { name: 'Sessions' })).getByText('Main'))
    const box = screen.getByRole('textbox', { name: /Message/ })
    await user.type(box, 'kiwi, kiwi and more kiwi')
    await user.click(screen.getByRole('button', { name: 'Send' }))
    await waitFor(() => expect(screen.getByRole('log')).toHaveTextContent('kiwi, kiwi and more kiwi'), LONG)
    // (the fake model's reply repeats the message: three occurrences there too)
    await waitFor(() => expect(screen.getByRole('button', { name: 'Send' })).toBeInTheDocument(), LONG)
    await waitFor(() => expect(stores.runs.getState().transcripts['agent:main:main']!.items.some((it) => it.kind === 'run' && it.status === 'done')).toBe(true), LONG)
    fireEvent.keyDown(window, { key: 'f', code: 'KeyF', ctrlKey: true })
    const bar = await screen.findByRole('search', { name: 'Find in conversation' })
    await user.type(within(bar).getByRole('searchbox'), 'KIWI')
    const status = within(bar).getByRole('status')
    // two messages, three occurrences each: the newest first
    await waitFor(() => expect(status).toHaveTextContent('6 of 6'), LONG)
    const focus = () => stores.runs.getState().focus
    await waitFor(() => expect(focus()).toMatchObject({ occurrence: 2, query: 'KIWI' }))
    const reply = focus()!.messageId
    // past the newest it wraps to the question's first occurrence, then its second and third
    await user.keyboard('{Enter}')
    expect(status).toHaveTextContent('1 of 6')
    await waitFor(() => expect(focus()).toMatchObject({ occurrence: 0 }))
    const question = focus()!.messageId
    expect(question).not.toBe(reply)
    await waitFor(() => expect(found()).toHaveTextContent('kiwi, kiwi and more kiwi'), LONG)
    await user.keyboard('{Enter}')
    expect(status).toHaveTextContent('2 of 6')
    await waitFor(() => expect(focus()).toMatchObject({ messageId: question, occurrence: 1 }))
    await user.keyboard('{Enter}{Enter}')
    expect(status).toHaveTextContent('4 of 6')
    await waitFor(() => expect(focus()).toMatchObject({ messageId: reply, occurrence: 0 }))
    await user.keyboard('{Shift>}{Enter}{/Shift}')
    expect(status).toHaveTextContent('3 of 6')
    await waitFor(() => expect(focus()).toMatchObject({ messageId: question, occurrence: 2 }))
  })

  it('a match inside a collapsed tool card opens the card, its output shown whole when the match is past the preview', async () => {
    const user = userEvent.setup({ delay: null })
    const output = `${'line of build output\n'.repeat(400)}error: persimmon not found\n`
    const { stores } = await renderApp({
      scripts: [{ steps: [{ kind: 'tool', name: 'exec', args: { command: 'make all' }, result: { content: [{ type: 'text', text: output }] }, durationMs: 20 }, { kind: 'text', text: 'Built.' }] }],
    })
    await user.type(screen.getByRole('textbox', { name: /Message/ }), 'build it')
    await user.click(screen.getByRole('button', { name: 'Send' }))
    const card = await screen.findByRole('group', { name: 'Tool exec' }, LONG)
    await waitFor(() => expect(stores.runs.getState().transcripts['agent:main:main']!.items.some((it) => it.kind === 'run' && it.status === 'done')).toBe(true), LONG)
    // collapsed: the output is not in the page
    expect(within(card).getByRole('button', { expanded: false })).toBeInTheDocument()
    expect(card).not.toHaveTextContent('persimmon')
    fireEvent.keyDown(window, { key: 'f', code: 'KeyF', ctrlKey: true })
    const bar = await screen.findByRole('search', { name: 'Find in conversation' })
    await user.type(within(bar).getByRole('searchbox'), 'persimmon')
    await waitFor(() => expect(within(bar).getByRole('status')).toHaveTextContent('1 of 1'), LONG)
    // the card is the found row, opened, and the match (past the 2,000-character preview) is shown
    await waitFor(() => expect(found()).toHaveTextContent('error: persimmon not found'), LONG)
    const opened = within(found()!).getByRole('group', { name: 'Tool exec' })
    expect(within(opened).getAllByRole('button', { expanded: true }).length).toBeGreaterThan(0)
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
