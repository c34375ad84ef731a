import { act, screen, waitFor } from '@testing-library/react'
import { beforeEach, describe, expect, it } from 'vitest'
import type { ChatHistoryPage, Result } from '../../../shared/methods'
import { FakeBridge } from '../bridge/fake-bridge'
import type { UserItem } from '../state/types'
import { LONG, renderApp } from '../test-utils'

beforeEach(() => localStorage.clear())

const KEY = 'agent:main:main'

describe('conversation history paging', () => {
  it('opens at the newest messages and loads older pages only when the top is reached', async () => {
    const { bridge, stores } = await renderApp({ seed: [{ key: KEY, label: 'Long', messages: 600 }], historyDelayMs: 150 })
    const transcript = () => stores.runs.getState().transcripts[KEY]!
    const questions = () => transcript().items.filter((it): it is UserItem => it.kind === 'user').map((it) => it.text.split(':')[0])
    const olderCalls = () => bridge.calls.filter((c) => c.name === 'history' && (c.params as { offset?: number }).offset)
    await waitFor(() => expect(transcript().loaded).toBe(true))
    expect(questions()[0]).toBe('Question 201')
    // the list starts at the end (jsdom fires no scroll event for it: send the one a browser would)
    const scroller = document.querySelector('.conversation-scroll') as HTMLElement
    expect(scroller.scrollTop).toBeGreaterThan(10_000)
    act(() => void scroller.dispatchEvent(new Event('scroll')))
    await waitFor(() => expect(screen.getByText(/^Question 300:/)).toBeInTheDocument())
    // nothing older is fetched just for opening it
    await new Promise((r) => setTimeout(r, 200))
    expect(olderCalls()).toHaveLength(0)
    expect(screen.queryByText('Loading earlier messages…')).toBeNull()

    // the user reaches the top
    act(() => {
      scroller.scrollTop = 0
      scroller.dispatchEvent(new Event('scroll'))
    })
    expect(await screen.findByText('Loading earlier messages…', undefined, LONG)).toBeInTheDocument()
    await waitFor(() => expect(questions()[0]).toBe('Question 101'), LONG)
    expect(olderCalls()).toHaveLength(1)
    // nothing shown before was lost or repeated
    expect(questions()).toEqual(Array.from({ length: 200 }, (_, i) => `Question ${101 + i}`))
  })
})

describe('conversation with damaged transcript lines', () => {
  it('says quietly how many lines could not be read and which file; an intact session says nothing', async () => {
    const bridge = new FakeBridge({ tickMs: 1, chunkChars: 24, seed: [{ key: KEY, label: 'Damaged', messages: 4 }] })
    const history = bridge.history.bind(bridge) as (p: unknown) => Promise<Result<ChatHistoryPage>>
    let damaged = true
    // the runtime's page for a transcript with two unreadable lines
    ;(bridge as unknown as { history: typeof history }).history = async (p) => {
      const r = await history(p)
      return r.ok && damaged ? { ...r, data: { ...r.data, damagedLines: 2, transcriptFile: 'agents/main/sessions/s1.jsonl' } } : r
    }
    const { stores, controller } = await renderApp({}, bridge)
    await waitFor(() => expect(stores.runs.getState().transcripts[KEY]?.loaded).toBe(true))
    expect(await screen.findByRole('note')).toHaveTextContent('2 lines of this conversation could not be read (file agents/main/sessions/s1.jsonl in Loopdesk\'s state folder)')
    // repaired (e.g. restored from a backup): the next load drops the notice
    damaged = false
    await act(() => controller.loadTranscript(KEY))
    await waitFor(() => expect(screen.queryByRole('note')).toBeNull())
  })
})
